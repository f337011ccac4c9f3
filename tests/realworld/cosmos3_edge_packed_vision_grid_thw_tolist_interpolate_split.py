"""Cosmos3 Edge's packed SigLIP2 vision tower takes all images as one sequence of patches plus `image_grid_thw`:
the learned position grid is resized per image in a loop over `grid_thw.tolist()`, attention is run per image by
`torch.split(..., lengths.tolist())` of the `cu_seqlens` built from the grid, and the projected features are split
with `(image_grid_thw.prod(-1) // merge**2).tolist()`. The model test sets `test_torch_exportable = False` because
these "packed patch spans require data-dependent shape handling".

Source: https://github.com/huggingface/transformers/blob/e197c4ee116725440bb52901e8bae53b73f9969a/tests/models/cosmos3_edge/test_modeling_cosmos3_edge.py
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {0: "num_patches"}, "image_grid_thw": {0: "num_images"}}
BLIND = "domains-55"


class Config:
    hidden_size = 32
    num_attention_heads = 4
    intermediate_size = 48
    num_channels = 3
    patch_size = 2
    num_patches = 16
    spatial_merge_size = 2
    layer_norm_eps = 1e-6
    attention_dropout = 0.0
    merger_intermediate_size = 64
    out_hidden_size = 32


def get_vision_cu_seqlens(grid_thw, merge_temporal=False, kwargs=None):
    if kwargs is not None and (cu_seqlens := kwargs.pop("cu_seqlens", None)) is not None:
        return cu_seqlens
    dtype = grid_thw.dtype if torch.jit.is_tracing() else torch.int32
    if merge_temporal:
        seqlens = grid_thw[:, 0] * grid_thw[:, 1] * grid_thw[:, 2]
    else:
        seqlens = torch.repeat_interleave(grid_thw[:, 1] * grid_thw[:, 2], grid_thw[:, 0])
    return F.pad(seqlens.cumsum(dim=0, dtype=dtype), (1, 0), value=0)


def eager_attention_forward(module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs):
    attn_weights = torch.matmul(query, key.transpose(2, 3)) * scaling
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_output = torch.matmul(attn_weights, value)
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, attn_weights


class Cosmos3EdgeVisionEmbeddings(nn.Module):
    """SigLIP2 patch and learned-position embeddings for packed Edge vision inputs."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_dim = config.hidden_size
        self.patch_size = config.patch_size
        self.patch_embedding = nn.Linear(config.num_channels * self.patch_size * self.patch_size, self.embed_dim)
        self.num_patches = config.num_patches
        self.position_embedding_size = int(self.num_patches**0.5)
        self.position_embedding = nn.Embedding(self.num_patches, self.embed_dim)

    @staticmethod
    def resize_positional_embeddings(positional_embeddings, grid_thw, spatial_merge_size):
        positional_embeddings = positional_embeddings.permute(2, 0, 1).unsqueeze(0)
        source_dtype = positional_embeddings.dtype
        if positional_embeddings.device.type == "cpu":
            positional_embeddings = positional_embeddings.float()

        position_chunks = []
        for temporal, height, width in grid_thw.tolist():
            resized_embeddings = F.interpolate(
                positional_embeddings,
                size=(height, width),
                mode="bilinear",
                align_corners=False,
                antialias=True,
            )
            resized_embeddings = resized_embeddings.squeeze(0).permute(1, 2, 0).to(source_dtype)
            resized_embeddings = resized_embeddings.reshape(
                height // spatial_merge_size,
                spatial_merge_size,
                width // spatial_merge_size,
                spatial_merge_size,
                -1,
            )
            # Preserve the processor's block-major 2x2 patch order before the projector groups adjacent patches.
            resized_embeddings = resized_embeddings.transpose(1, 2).reshape(height * width, -1)
            position_chunks.append(resized_embeddings.repeat(temporal, 1))

        return torch.cat(position_chunks, dim=0)

    def forward(self, pixel_values, grid_thw):
        target_dtype = self.patch_embedding.weight.dtype
        patch_embeds = self.patch_embedding(pixel_values.to(dtype=target_dtype))
        positional_embeddings = self.position_embedding.weight.reshape(
            self.position_embedding_size, self.position_embedding_size, -1
        )
        position_embeddings = self.resize_positional_embeddings(
            positional_embeddings, grid_thw, self.config.spatial_merge_size
        )
        return patch_embeds + position_embeddings


class Cosmos3EdgeVisionAttention(nn.Module):
    """Packed non-causal SigLIP2 attention with one sequence per image or video frame."""

    def __init__(self, config):
        super().__init__()
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.scale = self.head_dim**-0.5
        self.dropout = config.attention_dropout
        self.k_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.v_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.q_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.out_proj = nn.Linear(self.embed_dim, self.embed_dim)

    def forward(self, hidden_states, cu_seqlens, **kwargs):
        sequence_length = hidden_states.shape[0]
        query_states = self.q_proj(hidden_states).reshape(sequence_length, -1, self.head_dim)
        key_states = self.k_proj(hidden_states).reshape(sequence_length, -1, self.head_dim)
        value_states = self.v_proj(hidden_states).reshape(sequence_length, -1, self.head_dim)

        query_states = query_states.transpose(0, 1).unsqueeze(0)
        key_states = key_states.transpose(0, 1).unsqueeze(0)
        value_states = value_states.transpose(0, 1).unsqueeze(0)

        lengths = cu_seqlens[1:] - cu_seqlens[:-1]
        splits = [
            torch.split(tensor, lengths.tolist(), dim=2) for tensor in (query_states, key_states, value_states)
        ]
        attn_output = torch.cat(
            [
                eager_attention_forward(
                    self,
                    query,
                    key,
                    value,
                    attention_mask=None,
                    scaling=self.scale,
                    dropout=0.0 if not self.training else self.dropout,
                )[0]
                for query, key, value in zip(*splits)
            ],
            dim=1,
        )
        return self.out_proj(attn_output.reshape(sequence_length, -1).contiguous())


class Cosmos3EdgeVisionEncoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layer_norm1 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.self_attn = Cosmos3EdgeVisionAttention(config)
        self.layer_norm2 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.mlp = nn.Sequential(
            nn.Linear(config.hidden_size, config.intermediate_size),
            nn.GELU(approximate="tanh"),
            nn.Linear(config.intermediate_size, config.hidden_size),
        )

    def forward(self, hidden_states, cu_seqlens):
        residual = hidden_states
        hidden_states = self.layer_norm1(hidden_states)
        hidden_states = self.self_attn(hidden_states=hidden_states, cu_seqlens=cu_seqlens)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.layer_norm2(hidden_states)
        hidden_states = self.mlp(hidden_states)
        return residual + hidden_states


class Cosmos3EdgePatchMerger(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.hidden_size = config.hidden_size * (config.spatial_merge_size**2)
        self.norm = nn.LayerNorm(config.hidden_size, eps=1e-6)
        self.linear_fc1 = nn.Linear(self.hidden_size, config.merger_intermediate_size)
        self.act_fn = nn.GELU()
        self.linear_fc2 = nn.Linear(config.merger_intermediate_size, config.out_hidden_size)
        self.spatial_merge_size = config.spatial_merge_size
        self.input_hidden_size = config.hidden_size

    def forward(self, x):
        x = x.reshape(-1, self.spatial_merge_size**2, self.input_hidden_size)
        x = self.norm(x).view(-1, self.hidden_size)
        return self.linear_fc2(self.act_fn(self.linear_fc1(x)))


class Cosmos3EdgeImageFeatures(nn.Module):
    def __init__(self, config=Config(), num_layers=2):
        super().__init__()
        self.embeddings = Cosmos3EdgeVisionEmbeddings(config)
        self.layers = nn.ModuleList([Cosmos3EdgeVisionEncoderLayer(config) for _ in range(num_layers)])
        self.post_layernorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.projector = Cosmos3EdgePatchMerger(config)

    def visual(self, pixel_values, grid_thw, **kwargs):
        hidden_states = self.embeddings(pixel_values, grid_thw)
        cu_seqlens = get_vision_cu_seqlens(grid_thw, kwargs=kwargs)
        for encoder_layer in self.layers:
            hidden_states = encoder_layer(hidden_states, cu_seqlens=cu_seqlens)
        return self.post_layernorm(hidden_states)

    def get_image_features(self, pixel_values, image_grid_thw=None):
        last_hidden_state = self.visual(pixel_values, grid_thw=image_grid_thw)
        image_embeds = self.projector(last_hidden_state)
        split_sizes = (image_grid_thw.prod(-1) // self.projector.spatial_merge_size**2).tolist()
        return torch.split(image_embeds, split_sizes)

    def forward(self, pixel_values, image_grid_thw):
        image_embeds = self.get_image_features(pixel_values, image_grid_thw)
        return torch.cat(image_embeds, dim=0)


def make_model():
    return Cosmos3EdgeImageFeatures().eval()


def _packed(grids):
    grid_thw = torch.tensor(grids)
    return (torch.randn(int(grid_thw.prod(-1).sum()), 12), grid_thw)


def example_inputs():
    return _packed([[1, 4, 4], [1, 2, 4]])


def other_inputs():
    return [_packed([[1, 2, 2], [1, 4, 2], [2, 2, 2]]), _packed([[1, 6, 6]])]


def probe_inputs():
    return other_inputs()
