"""Chronos-2 forecaster: `_prepare_patched_context` scales the context, then `Patch` left-pads it with NaN
when `length % patch_size != 0` and cuts it into patches with `x.unfold(...)`, then builds a time
encoding from the number of patches. The Chronos-2 ONNX export PR keeps the context length fixed and only
the batch dynamic because "legacy ONNX export cannot lower the patching path when the patched sequence
dimension is symbolic" (a dynamic context length does not export).

Source: https://github.com/amazon-science/chronos-forecasting/pull/508
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"context": {0: "batch_size", 1: "context_length"}}
BLIND = "domains-14"


class Patch(nn.Module):
    def __init__(self, patch_size: int, patch_stride: int) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.patch_stride = patch_stride

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[-1]

        if length % self.patch_size != 0:
            padding_size = (
                *x.shape[:-1],
                self.patch_size - (length % self.patch_size),
            )
            padding = torch.full(size=padding_size, fill_value=torch.nan, dtype=x.dtype, device=x.device)
            x = torch.concat((padding, x), dim=-1)

        x = x.unfold(dimension=-1, size=self.patch_size, step=self.patch_stride)
        return x


class ResidualBlock(nn.Module):
    def __init__(self, in_dim: int, h_dim: int, out_dim: int) -> None:
        super().__init__()
        self.hidden_layer = nn.Linear(in_dim, h_dim)
        self.act = nn.ReLU()
        self.output_layer = nn.Linear(h_dim, out_dim)
        self.residual_layer = nn.Linear(in_dim, out_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output_layer(self.act(self.hidden_layer(x))) + self.residual_layer(x)


class Chronos2Context(nn.Module):
    def __init__(self, input_patch_size=16, d_model=32, context_length=8192):
        super().__init__()
        self.input_patch_size = input_patch_size
        self.time_encoding_scale = context_length
        self.patch = Patch(patch_size=input_patch_size, patch_stride=input_patch_size)
        self.input_patch_embedding = ResidualBlock(input_patch_size * 3, 64, d_model)

    def forward(self, context: torch.Tensor):
        context_mask = torch.isnan(context).logical_not().to(context.dtype)
        batch_size, context_length = context.shape

        # scaling (mean/std over observed values)
        loc = (torch.nan_to_num(context) * context_mask).sum(-1, keepdim=True) / context_mask.sum(-1, keepdim=True)
        scale = (((torch.nan_to_num(context) - loc) * context_mask) ** 2).sum(-1, keepdim=True).div(
            context_mask.sum(-1, keepdim=True)).sqrt().clamp_min(1e-5)
        context = (context - loc) / scale

        # patching
        patched_context = self.patch(context)
        patched_mask = torch.nan_to_num(self.patch(context_mask), nan=0.0)
        patched_context = torch.where(patched_mask > 0.0, patched_context, 0.0)

        # attention_mask = 1 if at least one item in the patch is observed
        attention_mask = patched_mask.sum(dim=-1) > 0  # (batch_size, num_patches)
        num_context_patches = attention_mask.shape[-1]

        final_context_length = num_context_patches * self.input_patch_size
        context_time_enc = torch.arange(start=-final_context_length, end=0, device=context.device, dtype=torch.float32)
        context_time_enc = (
            context_time_enc.reshape(num_context_patches, self.input_patch_size)
            .expand(batch_size, num_context_patches, self.input_patch_size)
            .div(self.time_encoding_scale)
        )

        patched_context = torch.cat([context_time_enc, patched_context, patched_mask], dim=-1)
        hidden = self.input_patch_embedding(patched_context)
        return hidden, attention_mask


def make_model():
    return Chronos2Context().eval()


def _context(b, t):
    x = 10.0 + torch.randn(b, t).cumsum(-1) / 4.0
    x[:, :3] = float("nan")  # missing values at the start of the context
    return x


def example_inputs():
    return (_context(2, 100),)


def other_inputs():
    return [(_context(3, 64),), (_context(1, 203),)]


def probe_inputs():
    return other_inputs()
