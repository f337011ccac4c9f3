"""Qwen3-VL's vision encoder (transformers `Qwen3VLVisionModel`) interpolates its learned position table
in `fast_pos_embed_interpolate(grid_thw)`: it loops over the rows of the `grid_thw` tensor, calls
`torch.linspace(0, n - 1, h)` with the tensor values, collects indices and weights with `.tolist()`,
rebuilds them with `torch.tensor(...)` and `split`s by `h * w`. optimum-executorch's commit "Add support
for M-RoPE vision encoders" says these data-dependent ops (linspace, repeat_interleave) cannot be traced
by torch.export and precomputes them as buffers. Trimmed to patch embedding + position interpolation +
patch merger, at varying image grids.

Source: https://github.com/huggingface/optimum-executorch/commit/813433232d20b2f4b6e52663cce7f897a6abd5b2
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "num_patches"}}
BLIND = "domains-36"


class Qwen3VLVisionConfig:
    in_channels = 3
    temporal_patch_size = 2
    patch_size = 4
    hidden_size = 32
    out_hidden_size = 48
    spatial_merge_size = 2
    num_position_embeddings = 64  # 8 x 8 grid


class Qwen3VLVisionPatchEmbed(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.in_features = config.in_channels * config.temporal_patch_size * config.patch_size**2
        self.proj = nn.Linear(self.in_features, config.hidden_size)

    def forward(self, hidden_states):
        return self.proj(hidden_states.view(-1, self.in_features))


class Qwen3VLVisionPatchMerger(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.hidden_size = config.hidden_size * (config.spatial_merge_size**2)
        self.norm = nn.LayerNorm(config.hidden_size, eps=1e-6)
        self.linear_fc1 = nn.Linear(self.hidden_size, self.hidden_size)
        self.act_fn = nn.GELU()
        self.linear_fc2 = nn.Linear(self.hidden_size, config.out_hidden_size)

    def forward(self, x):
        x = self.norm(x).view(-1, self.hidden_size)
        return self.linear_fc2(self.act_fn(self.linear_fc1(x)))


class Qwen3VLVisionModel(nn.Module):
    def __init__(self, config=Qwen3VLVisionConfig()):
        super().__init__()
        self.config = config
        self.patch_embed = Qwen3VLVisionPatchEmbed(config)
        self.pos_embed = nn.Embedding(config.num_position_embeddings, config.hidden_size)
        self.num_grid_per_side = int(config.num_position_embeddings**0.5)
        self.merger = Qwen3VLVisionPatchMerger(config)

    def fast_pos_embed_interpolate(self, grid_thw):
        grid_ts, grid_hs, grid_ws = grid_thw[:, 0], grid_thw[:, 1], grid_thw[:, 2]

        idx_list = [[] for _ in range(4)]
        weight_list = [[] for _ in range(4)]

        for t, h, w in zip(grid_ts, grid_hs, grid_ws):
            h_idxs = torch.linspace(0, self.num_grid_per_side - 1, h)
            w_idxs = torch.linspace(0, self.num_grid_per_side - 1, w)

            h_idxs_floor = h_idxs.int()
            w_idxs_floor = w_idxs.int()
            h_idxs_ceil = (h_idxs.int() + 1).clip(max=self.num_grid_per_side - 1)
            w_idxs_ceil = (w_idxs.int() + 1).clip(max=self.num_grid_per_side - 1)

            dh = h_idxs - h_idxs_floor
            dw = w_idxs - w_idxs_floor

            base_h = h_idxs_floor * self.num_grid_per_side
            base_h_ceil = h_idxs_ceil * self.num_grid_per_side

            indices = [
                (base_h[None].T + w_idxs_floor[None]).flatten(),
                (base_h[None].T + w_idxs_ceil[None]).flatten(),
                (base_h_ceil[None].T + w_idxs_floor[None]).flatten(),
                (base_h_ceil[None].T + w_idxs_ceil[None]).flatten(),
            ]

            weights = [
                ((1 - dh)[None].T * (1 - dw)[None]).flatten(),
                ((1 - dh)[None].T * dw[None]).flatten(),
                (dh[None].T * (1 - dw)[None]).flatten(),
                (dh[None].T * dw[None]).flatten(),
            ]

            for i in range(4):
                idx_list[i].extend(indices[i].tolist())
                weight_list[i].extend(weights[i].tolist())

        idx_tensor = torch.tensor(idx_list, dtype=torch.long, device=self.pos_embed.weight.device)
        weight_tensor = torch.tensor(
            weight_list, dtype=self.pos_embed.weight.dtype, device=self.pos_embed.weight.device
        )
        pos_embeds = self.pos_embed(idx_tensor) * weight_tensor[:, :, None]
        patch_pos_embeds = pos_embeds[0] + pos_embeds[1] + pos_embeds[2] + pos_embeds[3]

        patch_pos_embeds = patch_pos_embeds.split([h * w for h, w in zip(grid_hs, grid_ws)])

        patch_pos_embeds_permute = []
        merge_size = self.config.spatial_merge_size
        for pos_embed, t, h, w in zip(patch_pos_embeds, grid_ts, grid_hs, grid_ws):
            pos_embed = pos_embed.repeat(t, 1)
            pos_embed = (
                pos_embed.view(t, h // merge_size, merge_size, w // merge_size, merge_size, -1)
                .permute(0, 1, 3, 2, 4, 5)
                .flatten(0, 4)
            )
            patch_pos_embeds_permute.append(pos_embed)
        patch_pos_embeds = torch.cat(patch_pos_embeds_permute)
        return patch_pos_embeds

    def forward(self, hidden_states: torch.Tensor, grid_thw: torch.Tensor) -> torch.Tensor:
        hidden_states = self.patch_embed(hidden_states)

        pos_embeds = self.fast_pos_embed_interpolate(grid_thw)
        hidden_states = hidden_states + pos_embeds

        seq_len, _ = hidden_states.size()
        hidden_states = hidden_states.reshape(seq_len, -1)
        return self.merger(hidden_states)


def _inputs(t, h, w):
    return (torch.randn(t * h * w, 3 * 2 * 4 * 4), torch.tensor([[t, h, w]]))


def make_model():
    return Qwen3VLVisionModel().eval()


def example_inputs():
    return _inputs(1, 6, 8)


def other_inputs():
    return [_inputs(1, 10, 4), _inputs(1, 4, 12)]


def probe_inputs():
    return other_inputs()
