"""HF Pixtral vision encoder (Mistral3 / Pixtral VLMs): with `image_sizes=None` the forward builds
`image_sizes = [(height, width)] * batch_size`, crops a `patch_embeds_list` per image in a Python loop
over the batch, builds 2D position ids per image (`position_ids_in_meshgrid`) and a block-diagonal
attention mask from `torch.tensor(patch_embeds_list).cumsum(-1)` with slice assignment per block.
TensorRT-LLM's auto_deploy patch for this model says these parts of the forward "are not compatible with
`torch.export`" and replaces them with custom ops and a tensor-only mask. Trimmed to patch conv, RoPE
and one attention layer.

Source: https://github.com/NVIDIA/TensorRT-LLM/blob/f0c873f5ffdd170c9f5b70c844c02ecca9860b8f/tensorrt_llm/_torch/auto_deploy/models/patches/pixtral.py
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-40"


class PixtralVisionConfig:
    hidden_size = 32
    num_attention_heads = 4
    head_dim = 8
    num_channels = 3
    image_size = 64
    patch_size = 8
    rope_theta = 10000.0


def position_ids_in_meshgrid(patch_embeds_list, max_width):
    positions = []
    for patch in patch_embeds_list:
        height, width = patch.shape[-2:]
        mesh = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
        h_grid, v_grid = torch.stack(mesh, dim=-1).reshape(-1, 2).chunk(2, -1)
        ids = h_grid * max_width + v_grid
        positions.append(ids[:, 0])
    return torch.cat(positions)


def generate_block_attention_mask(patch_embeds_list, tensor):
    dtype = tensor.dtype
    device = tensor.device
    seq_len = tensor.shape[1]
    d_min = torch.finfo(dtype).min
    causal_mask = torch.full((seq_len, seq_len), fill_value=d_min, dtype=dtype, device=device)

    block_end_idx = torch.tensor(patch_embeds_list).cumsum(-1)
    block_start_idx = torch.tensor([0] + patch_embeds_list[:-1]).cumsum(-1)
    for start, end in zip(block_start_idx, block_end_idx):
        causal_mask[start:end, start:end] = 0

    causal_mask = causal_mask[None, None, :, :].expand(tensor.shape[0], 1, -1, -1)
    return causal_mask


class PixtralRotaryEmbedding(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dim = config.head_dim
        self.base = config.rope_theta
        max_patches_per_side = config.image_size // config.patch_size
        freqs = 1.0 / (self.base ** (torch.arange(0, self.dim, 2).float() / self.dim))
        h = torch.arange(max_patches_per_side, device=freqs.device)
        w = torch.arange(max_patches_per_side, device=freqs.device)
        freqs_h = torch.outer(h, freqs[::2]).float()
        freqs_w = torch.outer(w, freqs[1::2]).float()
        inv_freq = torch.cat(
            [
                freqs_h[:, None, :].repeat(1, max_patches_per_side, 1),
                freqs_w[None, :, :].repeat(max_patches_per_side, 1, 1),
            ],
            dim=-1,
        ).reshape(-1, self.dim // 2)
        self.register_buffer("inv_freq", torch.cat((inv_freq, inv_freq), dim=-1), persistent=False)

    @torch.no_grad()
    def forward(self, x, position_ids):
        freqs = self.inv_freq[position_ids]
        emb = freqs
        cos = emb.cos()
        sin = emb.sin()
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


class PixtralAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.head_dim
        self.scale = self.head_dim**-0.5
        self.q_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.k_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.v_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.o_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)

    def forward(self, hidden_states, attention_mask, position_embeddings):
        batch_size, patches, _ = hidden_states.size()
        q = self.q_proj(hidden_states).view(batch_size, patches, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(batch_size, patches, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(batch_size, patches, self.num_heads, self.head_dim).transpose(1, 2)
        cos, sin = position_embeddings
        cos, sin = cos.unsqueeze(0), sin.unsqueeze(0)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        attn_weights = torch.matmul(q, k.transpose(2, 3)) * self.scale
        attn_weights = attn_weights + attention_mask
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(q.dtype)
        attn_output = torch.matmul(attn_weights, v).transpose(1, 2).reshape(batch_size, patches, -1)
        return self.o_proj(attn_output)


class PixtralVisionModel(nn.Module):
    def __init__(self, config=PixtralVisionConfig()):
        super().__init__()
        self.config = config
        self.patch_size = config.patch_size
        self.patch_conv = nn.Conv2d(config.num_channels, config.hidden_size, kernel_size=config.patch_size,
                                    stride=config.patch_size, bias=False)
        self.ln_pre = nn.LayerNorm(config.hidden_size, eps=1e-5)
        self.patch_positional_embedding = PixtralRotaryEmbedding(config)
        self.attention = PixtralAttention(config)

    def forward(self, pixel_values, image_sizes=None):
        if image_sizes is None:
            batch_size, _, height, width = pixel_values.shape
            image_sizes = [(height, width)] * batch_size

        # pass images through initial convolution independently
        patch_embeds = self.patch_conv(pixel_values)
        patch_embeds_list = [
            embed[..., : (size[0] // self.patch_size), : (size[1] // self.patch_size)]
            for embed, size in zip(patch_embeds, image_sizes)
        ]

        # flatten to a single sequence
        patch_embeds = torch.cat([p.flatten(1).T for p in patch_embeds_list], dim=0).unsqueeze(0)
        patch_embeds = self.ln_pre(patch_embeds)

        # positional embeddings
        position_ids = position_ids_in_meshgrid(
            patch_embeds_list, max_width=self.config.image_size // self.config.patch_size
        )
        position_embeddings = self.patch_positional_embedding(patch_embeds, position_ids)

        attention_mask = generate_block_attention_mask(
            [p.shape[-2] * p.shape[-1] for p in patch_embeds_list], patch_embeds
        )
        return patch_embeds + self.attention(patch_embeds, attention_mask, position_embeddings)


def make_model():
    return PixtralVisionModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 40),)


def other_inputs():
    return [(torch.randn(3, 3, 48, 24),), (torch.randn(1, 3, 16, 64),)]


def probe_inputs():
    return other_inputs()
