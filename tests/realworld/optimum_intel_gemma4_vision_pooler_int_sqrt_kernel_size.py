"""Gemma 4 vision tower (transformers `Gemma4VisionPooler`): `_avg_pool_by_positions` derives the pooling kernel from
the patch count with `k = int((input_seq_len // length) ** 0.5)`, checks `if k_squared * length != input_seq_len`
and the forward branches on `if hidden_states.shape[1] != output_length`; exporting the vision embeddings for
OpenVINO in the optimum-intel Gemma 4 support PR prints TracerWarnings on exactly these lines (the kernel size,
which depends on the number of patches, is frozen into the trace).

Source: https://github.com/huggingface/optimum-intel/pull/1675
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {
    "pixel_values": {0: "batch", 1: "num_patches"},
    "pixel_position_ids": {0: "batch", 1: "num_patches"},
    "padding_positions": {0: "batch", 1: "num_patches"},
}
BLIND = "domains-55"


class Gemma4VisionPooler(nn.Module):
    """Scaling and optional spatial pooling for vision encodings"""

    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.root_hidden_size = self.hidden_size**0.5

    def _avg_pool_by_positions(self, hidden_states, pixel_position_ids, length: int):
        input_seq_len = hidden_states.shape[1]
        k = int((input_seq_len // length) ** 0.5)
        k_squared = k**2
        if k_squared * length != input_seq_len:
            raise ValueError(
                f"Cannot pool {hidden_states.shape} to {length}: {k=}^2 times {length=} must be {input_seq_len}."
            )

        # Clamp padding positions (which are -1) to 0 so they don't break one_hot.
        clamped_positions = pixel_position_ids.clamp(min=0)
        max_x = clamped_positions[..., 0].max(dim=-1, keepdim=True)[0] + 1
        kernel_idxs = torch.div(clamped_positions, k, rounding_mode="floor")
        kernel_idxs = kernel_idxs[..., 0] + (max_x // k) * kernel_idxs[..., 1]
        weights = F.one_hot(kernel_idxs.long(), length).float() / k_squared
        output = weights.transpose(1, 2) @ hidden_states.float()
        mask = torch.logical_not((weights == 0).all(dim=1))
        return output.to(hidden_states.dtype), mask

    def forward(self, hidden_states, pixel_position_ids, padding_positions, output_length=None):
        if output_length > hidden_states.shape[1]:
            raise ValueError(
                f"Cannot output more soft tokens (requested {output_length}) than there are patches"
                f" ({hidden_states.shape[1]}). Change the value of `num_soft_tokens` when processing."
            )

        hidden_states = hidden_states.masked_fill(padding_positions.unsqueeze(-1), 0.0)

        if hidden_states.shape[1] != output_length:
            hidden_states, padding_positions = self._avg_pool_by_positions(
                hidden_states, pixel_position_ids, output_length
            )

        hidden_states *= self.root_hidden_size
        return hidden_states, padding_positions


class Gemma4VisionEmbeddings(nn.Module):
    """Patch projection (stand-in for the vision encoder) followed by the pooler, as exported for OpenVINO."""

    def __init__(self, patch_dim=12, hidden_size=32, default_output_length=4):
        super().__init__()
        self.input_proj = nn.Linear(patch_dim, hidden_size, bias=False)
        self.encoder = nn.Sequential(nn.LayerNorm(hidden_size), nn.Linear(hidden_size, hidden_size), nn.GELU())
        self.pooler = Gemma4VisionPooler(hidden_size)
        self.default_output_length = default_output_length

    def forward(self, pixel_values, pixel_position_ids, padding_positions):
        hidden_states = self.encoder(self.input_proj(2 * (pixel_values - 0.5)))
        return self.pooler(hidden_states, pixel_position_ids, padding_positions, self.default_output_length)


def _inputs(batch, side):
    # a side x side patch grid (row-major (x, y) positions), pooled to a 2 x 2 grid of soft tokens
    ys, xs = torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij")
    pos = torch.stack([xs.reshape(-1), ys.reshape(-1)], dim=-1).unsqueeze(0).repeat(batch, 1, 1)
    n = side * side
    return (torch.rand(batch, n, 12), pos, torch.zeros(batch, n, dtype=torch.bool))


def make_model():
    return Gemma4VisionEmbeddings().eval()


def example_inputs():
    return _inputs(2, 4)      # 16 patches -> k = 2


def other_inputs():
    return [_inputs(3, 6), _inputs(1, 8)]   # 36 patches -> k = 3, 64 patches -> k = 4


def probe_inputs():
    return other_inputs()
