"""Qwen2.5-VL vision tower (HF transformers 4.49): `get_window_index(grid_thw)` loops over the image grids,
pads each merged-token grid to whole windows, gathers the window order and extends a Python list with
`cu_seqlens_tmp.tolist()` / `.item()`; the forward rebuilds `cu_window_seqlens` with `torch.tensor(...)` +
`unique_consecutive`, gathers `hidden_states[window_index]`, and each block's attention builds its mask
with `for i in range(1, len(cu_seqlens))` slice assignments. optimum-intel's Qwen2.5-VL export (PR 1163)
replaces this forward with one that takes `window_index`, `attention_mask` and `window_attention_mask` as
inputs, because the cu_seqlens processing is "unsupported by tracing due to cycle with dynamic len".
(Rotary position embedding trimmed; one window block and one full-attention block.)

Source: https://github.com/huggingface/optimum-intel/pull/1163
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "seq"}, "grid_thw": {0: "num_images"}}
BLIND = "domains-40"


class Qwen2RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states


class Qwen2_5_VisionPatchEmbed(nn.Module):
    def __init__(self, patch_size=2, temporal_patch_size=2, in_channels=3, embed_dim=32):
        super().__init__()
        self.patch_size = patch_size
        self.temporal_patch_size = temporal_patch_size
        self.in_channels = in_channels
        self.embed_dim = embed_dim
        kernel_size = [temporal_patch_size, patch_size, patch_size]
        self.proj = nn.Conv3d(in_channels, embed_dim, kernel_size=kernel_size, stride=kernel_size, bias=False)

    def forward(self, hidden_states):
        hidden_states = hidden_states.view(
            -1, self.in_channels, self.temporal_patch_size, self.patch_size, self.patch_size
        )
        return self.proj(hidden_states).view(-1, self.embed_dim)


class Qwen2_5_VLVisionSdpaAttention(nn.Module):
    def __init__(self, dim, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(dim, dim * 3, bias=True)
        self.proj = nn.Linear(dim, dim)

    def forward(self, hidden_states, cu_seqlens):
        seq_length = hidden_states.shape[0]
        q, k, v = self.qkv(hidden_states).reshape(seq_length, 3, self.num_heads, -1).permute(1, 0, 2, 3).unbind(0)
        attention_mask = torch.zeros([1, seq_length, seq_length], device=q.device, dtype=torch.bool)
        for i in range(1, len(cu_seqlens)):
            attention_mask[..., cu_seqlens[i - 1] : cu_seqlens[i], cu_seqlens[i - 1] : cu_seqlens[i]] = True
        q = q.transpose(0, 1)
        k = k.transpose(0, 1)
        v = v.transpose(0, 1)
        attn_output = F.scaled_dot_product_attention(q, k, v, attention_mask, dropout_p=0.0)
        attn_output = attn_output.transpose(0, 1)
        attn_output = attn_output.reshape(seq_length, -1)
        return self.proj(attn_output)


class Qwen2_5_VLVisionBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = Qwen2RMSNorm(dim)
        self.norm2 = Qwen2RMSNorm(dim)
        self.attn = Qwen2_5_VLVisionSdpaAttention(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.SiLU(), nn.Linear(dim * 2, dim))

    def forward(self, hidden_states, cu_seqlens):
        hidden_states = hidden_states + self.attn(self.norm1(hidden_states), cu_seqlens=cu_seqlens)
        return hidden_states + self.mlp(self.norm2(hidden_states))


class Qwen2_5_VLPatchMerger(nn.Module):
    def __init__(self, dim, context_dim, spatial_merge_size=2):
        super().__init__()
        self.hidden_size = context_dim * (spatial_merge_size**2)
        self.ln_q = Qwen2RMSNorm(context_dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(self.hidden_size, self.hidden_size), nn.GELU(),
                                 nn.Linear(self.hidden_size, dim))

    def forward(self, x):
        return self.mlp(self.ln_q(x).view(-1, self.hidden_size))


class Qwen2_5_VisionTransformerPretrainedModel(nn.Module):
    def __init__(self, embed_dim=32, out_hidden_size=48, patch_size=2, spatial_merge_size=2, window_size=8,
                 fullatt_block_indexes=(1,)):
        super().__init__()
        self.spatial_merge_size = spatial_merge_size
        self.patch_size = patch_size
        self.fullatt_block_indexes = list(fullatt_block_indexes)
        self.window_size = window_size
        self.spatial_merge_unit = self.spatial_merge_size * self.spatial_merge_size
        self.patch_embed = Qwen2_5_VisionPatchEmbed(patch_size=patch_size, embed_dim=embed_dim)
        self.blocks = nn.ModuleList([Qwen2_5_VLVisionBlock(embed_dim) for _ in range(2)])
        self.merger = Qwen2_5_VLPatchMerger(out_hidden_size, embed_dim, spatial_merge_size)

    def get_window_index(self, grid_thw):
        window_index: list = []
        cu_window_seqlens: list = [0]
        window_index_id = 0
        vit_merger_window_size = self.window_size // self.spatial_merge_size // self.patch_size

        for grid_t, grid_h, grid_w in grid_thw:
            llm_grid_h, llm_grid_w = (
                grid_h // self.spatial_merge_size,
                grid_w // self.spatial_merge_size,
            )
            index = torch.arange(grid_t * llm_grid_h * llm_grid_w).reshape(grid_t, llm_grid_h, llm_grid_w)
            pad_h = vit_merger_window_size - llm_grid_h % vit_merger_window_size
            pad_w = vit_merger_window_size - llm_grid_w % vit_merger_window_size
            num_windows_h = (llm_grid_h + pad_h) // vit_merger_window_size
            num_windows_w = (llm_grid_w + pad_w) // vit_merger_window_size
            index_padded = F.pad(index, (0, pad_w, 0, pad_h), "constant", -100)
            index_padded = index_padded.reshape(
                grid_t,
                num_windows_h,
                vit_merger_window_size,
                num_windows_w,
                vit_merger_window_size,
            )
            index_padded = index_padded.permute(0, 1, 3, 2, 4).reshape(
                grid_t,
                num_windows_h * num_windows_w,
                vit_merger_window_size,
                vit_merger_window_size,
            )
            seqlens = (index_padded != -100).sum([2, 3]).reshape(-1)
            index_padded = index_padded.reshape(-1)
            index_new = index_padded[index_padded != -100]
            window_index.append(index_new + window_index_id)
            cu_seqlens_tmp = seqlens.cumsum(0) * self.spatial_merge_unit + cu_window_seqlens[-1]
            cu_window_seqlens.extend(cu_seqlens_tmp.tolist())
            window_index_id += (grid_t * llm_grid_h * llm_grid_w).item()
        window_index = torch.cat(window_index, dim=0)

        return window_index, cu_window_seqlens

    def forward(self, hidden_states, grid_thw):
        hidden_states = self.patch_embed(hidden_states)
        window_index, cu_window_seqlens = self.get_window_index(grid_thw)
        cu_window_seqlens = torch.tensor(
            cu_window_seqlens,
            device=hidden_states.device,
            dtype=grid_thw.dtype if torch.jit.is_tracing() else torch.int32,
        )
        cu_window_seqlens = torch.unique_consecutive(cu_window_seqlens)

        seq_len, _ = hidden_states.size()
        hidden_states = hidden_states.reshape(seq_len // self.spatial_merge_unit, self.spatial_merge_unit, -1)
        hidden_states = hidden_states[window_index, :, :]
        hidden_states = hidden_states.reshape(seq_len, -1)

        cu_seqlens = torch.repeat_interleave(grid_thw[:, 1] * grid_thw[:, 2], grid_thw[:, 0]).cumsum(
            dim=0,
            dtype=grid_thw.dtype if torch.jit.is_tracing() else torch.int32,
        )
        cu_seqlens = F.pad(cu_seqlens, (1, 0), value=0)

        for layer_num, blk in enumerate(self.blocks):
            if layer_num in self.fullatt_block_indexes:
                cu_seqlens_now = cu_seqlens
            else:
                cu_seqlens_now = cu_window_seqlens
            hidden_states = blk(hidden_states, cu_seqlens=cu_seqlens_now)

        hidden_states = self.merger(hidden_states)
        reverse_indices = torch.argsort(window_index)
        hidden_states = hidden_states[reverse_indices, :]

        return hidden_states


def _inputs(grids):
    grid_thw = torch.tensor(grids, dtype=torch.int64)
    seq = int((grid_thw[:, 0] * grid_thw[:, 1] * grid_thw[:, 2]).sum())
    return (torch.randn(seq, 3 * 2 * 2 * 2), grid_thw)


def make_model():
    return Qwen2_5_VisionTransformerPretrainedModel().eval()


def example_inputs():
    return _inputs([[1, 4, 6]])


def other_inputs():
    return [_inputs([[1, 6, 4], [1, 2, 2]]), _inputs([[2, 4, 8]])]


def probe_inputs():
    return other_inputs()
