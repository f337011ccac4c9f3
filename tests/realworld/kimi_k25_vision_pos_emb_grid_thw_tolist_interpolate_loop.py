"""Kimi K2.5 vision tower (transformers, before "Exportable kimi"): the position embeddings loop
`for t, h, w in grid_thw.tolist()`, keep the learned grid when `(h, w) == self.position_embeddings.shape[:-1]`
and otherwise bicubic-`F.interpolate` it to each image's (h, w), add the time table when `t > 1`, and the
temporal patch merger slices `hidden_states[pre_sum : pre_sum + t * h * w]` in another `grid_thw.tolist()`
loop; the PR rewrites both into precomputed gather indices so the model exports.

Source: https://github.com/huggingface/transformers/pull/47096
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"pixel_values": {0: "num_patches"}, "grid_thw": {0: "num_images"}}
BLIND = "domains-54"


class Kimi_K25VisionConfig:
    patch_size = 4
    pos_emb_height = 8
    pos_emb_width = 8
    pos_emb_time = 4
    hidden_size = 16
    merge_kernel_size = (2, 2)


class Kimi_K25VisionPositionEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dim = config.hidden_size
        self.num_frames = config.pos_emb_time

        self.position_embeddings = nn.Parameter(
            torch.randn(config.pos_emb_height, config.pos_emb_width, config.hidden_size)
        )
        time_position_embeddings = self.compute_pos_embed()
        self.register_buffer("time_position_embeddings", time_position_embeddings, persistent=False)

    def compute_pos_embed(self):
        position_ids = torch.arange(self.num_frames, dtype=torch.float32)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, self.dim, 2, dtype=torch.int64).to(dtype=torch.float) / self.dim))
        freqs = torch.outer(position_ids, inv_freq)  # (M, D/2)
        pos_embed = torch.cat([freqs.sin(), freqs.cos()], dim=1)  # (M, D)
        return pos_embed.unsqueeze(1)

    def forward(self, hidden_states: torch.Tensor, grid_thw: torch.Tensor) -> torch.Tensor:
        pos_embs = []
        for t, h, w in grid_thw.tolist():
            if t > self.num_frames:
                raise ValueError(
                    f"Got an input with {t} frames. Number of frames should be less than config.pos_emb_time=({self.num_frames})"
                )

            # Apply learned positions on h/w grids with optional interpolation for bigger images
            if (h, w) == self.position_embeddings.shape[:-1]:
                position_embeddings = self.position_embeddings.flatten(0, 1)
            else:
                position_embeddings = self.position_embeddings.permute(2, 0, 1).unsqueeze(0)
                position_embeddings = F.interpolate(
                    position_embeddings,
                    size=(h, w),
                    mode="bicubic",
                )
                position_embeddings = position_embeddings.squeeze(0).permute(1, 2, 0).flatten(0, 1)

            position_embeddings = position_embeddings.unsqueeze(0).repeat(t, 1, 1)
            # Add RoPE positions for time grid if processing videos
            if t > 1:
                position_embeddings = position_embeddings + self.time_position_embeddings[0:t]

            pos_embs.append(position_embeddings.flatten(0, 1))
        hidden_states = hidden_states + torch.cat(pos_embs, dim=0)
        return hidden_states


class Kimi_K25VisionPatchEmbed(nn.Module):
    def __init__(self, config):
        super().__init__()
        patch_size = (
            config.patch_size if not isinstance(config.patch_size, int) else (config.patch_size, config.patch_size)
        )
        self.proj = nn.Conv2d(3, config.hidden_size, kernel_size=patch_size, stride=patch_size)
        self.pos_emb = Kimi_K25VisionPositionEmbeddings(config)

    def forward(self, pixel_values: torch.Tensor, grid_thw: torch.Tensor) -> torch.Tensor:
        hidden_states = self.proj(pixel_values).view(pixel_values.size(0), -1)
        hidden_states = self.pos_emb(hidden_states, grid_thw)
        return hidden_states


class Kimi_K25VisionModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.merge_kernel_size = config.merge_kernel_size
        self.patch_embed = Kimi_K25VisionPatchEmbed(config)
        self.final_layernorm = nn.LayerNorm(config.hidden_size, eps=1e-05)

    def temporal_patch_merger(self, hidden_states: torch.Tensor, grid_thw: torch.Tensor) -> torch.Tensor:
        hidden_dim = hidden_states.size(-1)
        kernel_height, kernel_width = self.merge_kernel_size

        outputs = []
        pre_sum = 0
        for t, h, w in grid_thw.tolist():
            # Get the current sequence
            seq = hidden_states[pre_sum : pre_sum + t * h * w]
            # Reshape along self.merge_kernel_size and concat to the last dimension
            new_height, new_width = h // kernel_height, w // kernel_width
            reshaped_seq = seq.view(t, new_height, kernel_height, new_width, kernel_width, hidden_dim)
            reshaped_seq = reshaped_seq.permute(0, 1, 3, 2, 4, 5).contiguous().mean(dim=0)  # temporal pooling
            padded_seq = reshaped_seq.view(new_height * new_width, kernel_height * kernel_width, -1)
            outputs.append(padded_seq)
            pre_sum += t * h * w

        return torch.cat(outputs, dim=0)

    def forward(self, pixel_values: torch.Tensor, grid_thw: torch.Tensor):
        hidden_states = self.patch_embed(pixel_values, grid_thw=grid_thw)
        hidden_states = self.final_layernorm(hidden_states)
        pooled_hidden_states = self.temporal_patch_merger(hidden_states, grid_thw)
        return hidden_states, pooled_hidden_states


def make_model():
    return Kimi_K25VisionModel(Kimi_K25VisionConfig()).eval()


def _inputs(grids):
    grid_thw = torch.tensor(grids, dtype=torch.int64)
    num_patches = int(sum(t * h * w for t, h, w in grids))
    return (torch.randn(num_patches, 3, 4, 4), grid_thw)


def example_inputs():
    return _inputs([[1, 8, 8], [1, 4, 6]])


def other_inputs():
    return [_inputs([[2, 6, 4], [1, 10, 6], [1, 8, 8]]), _inputs([[1, 4, 12]])]


def probe_inputs():
    return other_inputs()
