"""Ernie-4.5-VL vision resampler: `_temporal_slicing` walks `zip(grid_t, grid_hw_after_conv, batch_offsets)`
(tensor values of `grid_thw`) and builds `range(0, temporal_size, 2)` / `torch.arange(batch_offset + ...)` per
image or video to interleave even/odd frames; the transformers exporters had to precompute these indices
outside the graph because the `range(0, temporal_size, 2)` loop over the grid's values is untraceable.
(Vision tower reduced to the patch features it hands the resampler.)

Source: https://github.com/huggingface/transformers/blob/020acb33fe1d0b660f9a528de8f9d0b7c380fc17/src/transformers/exporters/precompute.py
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "num_patches"}}
BLIND = "domains-54"


class Ernie4_5_VLRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class Ernie4_5_VLVisionMLP(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, out_dim)
        self.act_fn = nn.GELU()
        self.fc2 = nn.Linear(out_dim, out_dim)
        self.ln = nn.LayerNorm(out_dim, eps=1e-6)

    def forward(self, hidden_states):
        hidden_states = self.fc1(hidden_states)
        hidden_states = self.act_fn(hidden_states)
        hidden_states = self.fc2(hidden_states)
        hidden_states = self.ln(hidden_states)
        return hidden_states


class Ernie4_5_VLVariableResolutionResamplerModel(nn.Module):
    def __init__(self, in_dim=8, out_dim=16, spatial_merge_size=2, temporal_merge_size=2, rms_norm_eps=1e-5):
        super().__init__()
        self.in_dim = in_dim
        self.out_dim = out_dim
        self.spatial_merge_size = spatial_merge_size
        self.temporal_merge_size = temporal_merge_size

        # compress 2d conv(picture) to 1d
        self.spatial_dim = self.in_dim * self.spatial_merge_size**2
        # compress 3d conv(video) to 1d
        self.temporal_dim = self.in_dim * self.spatial_merge_size**2 * self.temporal_merge_size

        self.spatial_linear = Ernie4_5_VLVisionMLP(self.spatial_dim, self.spatial_dim)
        self.temporal_linear = Ernie4_5_VLVisionMLP(self.temporal_dim, self.spatial_dim)

        self.mlp = nn.Linear(self.spatial_dim, self.out_dim)
        self.after_norm = Ernie4_5_VLRMSNorm(self.out_dim, rms_norm_eps)

    def _temporal_slicing(self, hidden_states, grid_thw):
        # Calculating offsets on spatial dim (based on flattened tensors)
        grid_t, grid_hw = grid_thw[:, 0], grid_thw[:, 1:]
        grid_hw_after_conv = grid_hw.prod(-1) // (self.spatial_merge_size**2)

        # Calculating offsets on batch dim (based on flattened tensors)
        tokens_per_img_or_vid = (grid_thw.prod(-1) // (self.spatial_merge_size**2)).flatten()
        batch_offsets = torch.empty(tokens_per_img_or_vid.size(), dtype=tokens_per_img_or_vid.dtype)
        batch_offsets[0] = 0
        batch_offsets[1:] = tokens_per_img_or_vid.cumsum(dim=0)[:-1]

        first_slice_offsets = []
        second_slice_offsets = []
        for temporal_size, spatial_size, batch_offset in zip(grid_t, grid_hw_after_conv, batch_offsets):
            # Depending on temporal, we may interleave:
            #   - Images have temporal == 1 --> same offsets (duplicate "frame" image)
            #   - Videos have temporal > 1 --> different offsets (even, odd)
            first_offset_range = range(0, temporal_size, 2)
            second_offset_range = range(1 if temporal_size > 1 else 0, temporal_size, 2)

            for temporal_offset_even, temporal_offset_odd in zip(first_offset_range, second_offset_range):
                first_slice_offsets.append(
                    torch.arange(
                        batch_offset + (temporal_offset_even) * spatial_size,
                        batch_offset + (temporal_offset_even + 1) * spatial_size,
                    )
                )
                second_slice_offsets.append(
                    torch.arange(
                        batch_offset + (temporal_offset_odd) * spatial_size,
                        batch_offset + (temporal_offset_odd + 1) * spatial_size,
                    )
                )

        first_slice_offsets = torch.cat(first_slice_offsets, dim=-1).to(hidden_states.device)
        second_slice_offsets = torch.cat(second_slice_offsets, dim=-1).to(hidden_states.device)

        return torch.concat(
            [
                torch.index_select(hidden_states, dim=0, index=first_slice_offsets),
                torch.index_select(hidden_states, dim=0, index=second_slice_offsets),
            ],
            dim=-1,
        )

    def forward(self, hidden_states, grid_thw):
        # image spatial
        # reshape imitates convolution via linear projection
        hidden_states = hidden_states.reshape([-1, hidden_states.shape[-1] * (self.spatial_merge_size**2)])
        hidden_states = self.spatial_linear(hidden_states)

        # video temporal
        hidden_states = self._temporal_slicing(hidden_states, grid_thw)
        hidden_states = self.temporal_linear(hidden_states)

        # final mlp
        hidden_states = self.mlp(hidden_states)
        hidden_states = self.after_norm(hidden_states)

        return hidden_states


def _inputs(grid):
    grid_thw = torch.tensor(grid, dtype=torch.long)
    num_patches = int(grid_thw.prod(-1).sum())
    return (torch.randn(num_patches, 8), grid_thw)


def make_model():
    return Ernie4_5_VLVariableResolutionResamplerModel().eval()


def example_inputs():
    # one image (t=1) and one 2-frame video
    return _inputs([[1, 4, 4], [2, 4, 6]])


def other_inputs():
    return [_inputs([[1, 6, 4], [4, 4, 4]]), _inputs([[1, 2, 2], [2, 2, 4]])]


def probe_inputs():
    return other_inputs()
