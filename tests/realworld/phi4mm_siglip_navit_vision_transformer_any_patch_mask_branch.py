"""Phi-4-multimodal (trust_remote_code `vision_siglip_navit.py`) SiglipVisionTransformer: to skip the mask when the
image fills the whole padded canvas it does `if not torch.any(~patch_attention_mask): attention_mask = None else:
attention_mask = _prepare_4d_attention_mask(patch_attention_mask, ...)`; torch.export cannot guard on that
data-dependent `any()`, so onnx-diagnostic's Phi4-MM export patches the forward ("PATCHED: skip the test") to always
build the 4-D mask. (NaViT bucketized position ids reduced to a plain position table, one encoder layer.)

Source: https://github.com/sdpython/onnx-diagnostic/pull/364
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"pixel_values": {0: "batch"}, "patch_attention_mask": {0: "batch"}}
BLIND = "domains-53"


def _prepare_4d_attention_mask(mask, dtype, tgt_len=None):
    bsz, src_len = mask.size()
    tgt_len = tgt_len if tgt_len is not None else src_len
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted_mask = 1.0 - expanded_mask
    return inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)


class SiglipVisionEmbeddings(nn.Module):
    def __init__(self, hidden_size=32, image_size=56, patch_size=14):
        super().__init__()
        self.patch_embedding = nn.Conv2d(3, hidden_size, kernel_size=patch_size, stride=patch_size)
        self.num_patches = (image_size // patch_size) ** 2
        self.position_embedding = nn.Embedding(self.num_patches, hidden_size)
        self.register_buffer("position_ids", torch.arange(self.num_patches).unsqueeze(0), persistent=False)

    def forward(self, pixel_values, patch_attention_mask):
        patch_embeds = self.patch_embedding(pixel_values)
        embeddings = patch_embeds.flatten(2).transpose(1, 2)
        position_ids = self.position_ids * patch_attention_mask.flatten(1)
        return embeddings + self.position_embedding(position_ids)


class SiglipEncoderLayer(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, hidden_size // num_heads
        self.layer_norm1 = nn.LayerNorm(hidden_size)
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.out_proj = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states, attention_mask=None):
        B, L, D = hidden_states.shape
        q, k, v = self.qkv(self.layer_norm1(hidden_states)).chunk(3, dim=-1)
        q, k, v = (t.view(B, L, self.num_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        attn_weights = torch.matmul(q, k.transpose(2, 3)) * self.head_dim ** -0.5
        if attention_mask is not None:
            attn_weights = attn_weights + attention_mask
        attn_weights = attn_weights.softmax(dim=-1)
        out = torch.matmul(attn_weights, v).transpose(1, 2).reshape(B, L, D)
        return hidden_states + self.out_proj(out)


class SiglipVisionTransformer(nn.Module):
    def __init__(self, hidden_size=32, patch_size=14):
        super().__init__()
        self.patch_size = patch_size
        self.embeddings = SiglipVisionEmbeddings(hidden_size, patch_size=patch_size)
        self.encoder = SiglipEncoderLayer(hidden_size)
        self.post_layernorm = nn.LayerNorm(hidden_size)

    def forward(self, pixel_values, patch_attention_mask=None):
        batch_size = pixel_values.size(0)
        if patch_attention_mask is None:
            patch_attention_mask = torch.ones(
                size=(batch_size, pixel_values.size(2) // self.patch_size, pixel_values.size(3) // self.patch_size),
                dtype=torch.bool,
                device=pixel_values.device,
            )

        hidden_states = self.embeddings(pixel_values=pixel_values, patch_attention_mask=patch_attention_mask)

        patch_attention_mask = patch_attention_mask.view(batch_size, -1)
        # The call to `_upad_input` in `_flash_attention_forward` is expensive
        # So when the `patch_attention_mask` is full of 1s (i.e. attending to the whole sequence),
        # avoiding passing the attention_mask, which is equivalent to attending to the whole sequence
        if not torch.any(~patch_attention_mask):
            attention_mask = None
        else:
            attention_mask = _prepare_4d_attention_mask(patch_attention_mask, hidden_states.dtype)

        last_hidden_state = self.encoder(hidden_states, attention_mask=attention_mask)
        return self.post_layernorm(last_hidden_state)


def _mask(batch, valid_hw):
    m = torch.zeros(batch, 4, 4, dtype=torch.bool)
    for b, (h, w) in enumerate(valid_hw):
        m[b, :h, :w] = True
    return m


def make_model():
    return SiglipVisionTransformer().eval()


def example_inputs():
    # a full-canvas crop: no padding patches
    return (torch.randn(2, 3, 56, 56), _mask(2, [(4, 4), (4, 4)]))


def other_inputs():
    return [
        (torch.randn(3, 3, 56, 56), _mask(3, [(4, 4), (2, 3), (3, 4)])),
        (torch.randn(1, 3, 56, 56), _mask(1, [(3, 2)])),
    ]


def probe_inputs():
    return other_inputs()
