"""NeMo TTS `PartialConv1d` (partial padding in FastPitch/RAD-TTS ConvNorm): `forward_with_cache` keeps the padding
mask ratio of the last input as module state, `cache_hit = use_cache and mask_in is None and self.last_size ==
input.shape`, and on a miss stores `self.last_size = tuple(input.shape)`, `self.update_mask`, `self.mask_ratio`. The
RAD-TTS porting PR adds `use_cache = not (torch.jit.is_tracing() or torch.onnx.is_in_onnx_export())` ("borisf:
disabled cache for export"): the shape-keyed cache that eager use runs is what export could not follow (a model
that has already run once carries the mask of that length into the trace). The bias view is taken in forward as in
the RAD-TTS port.

Source: https://github.com/NVIDIA-NeMo/Speech/pull/4538
"""
from typing import Optional

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "time"}}
BLIND = "domains-57"


class PartialConv1d(torch.nn.Conv1d):
    def __init__(self, *args, **kwargs):
        super(PartialConv1d, self).__init__(*args, **kwargs)
        weight_maskUpdater = torch.ones(1, 1, self.kernel_size[0])
        self.register_buffer("weight_maskUpdater", weight_maskUpdater, persistent=False)
        slide_winsize = torch.tensor(self.weight_maskUpdater.shape[1] * self.weight_maskUpdater.shape[2])
        self.register_buffer("slide_winsize", slide_winsize, persistent=False)

        # caching part
        self.last_size = (-1, -1, -1)

        update_mask = torch.ones(1, 1, 1)
        self.register_buffer('update_mask', update_mask, persistent=False)
        mask_ratio = torch.ones(1, 1, 1)
        self.register_buffer('mask_ratio', mask_ratio, persistent=False)
        self.partial: bool = True

    def calculate_mask(self, input: torch.Tensor, mask_in: Optional[torch.Tensor]):
        with torch.no_grad():
            if mask_in is None:
                mask = torch.ones(1, 1, input.shape[2], dtype=input.dtype, device=input.device)
            else:
                mask = mask_in
            update_mask = F.conv1d(
                mask,
                self.weight_maskUpdater,
                bias=None,
                stride=self.stride,
                padding=self.padding,
                dilation=self.dilation,
                groups=1,
            )
            # for mixed precision training, change 1e-8 to 1e-6
            mask_ratio = self.slide_winsize / (update_mask + 1e-6)
            update_mask = torch.clamp(update_mask, 0, 1)
            mask_ratio = torch.mul(mask_ratio.to(update_mask), update_mask)
            return torch.mul(input, mask), mask_ratio, update_mask

    def forward_aux(self, input: torch.Tensor, mask_ratio: torch.Tensor, update_mask: torch.Tensor) -> torch.Tensor:
        assert len(input.shape) == 3

        raw_out = self._conv_forward(input, self.weight, self.bias)

        if self.bias is not None:
            bias_view = self.bias.view(1, self.out_channels, 1)
            output = torch.mul(raw_out - bias_view, mask_ratio) + bias_view
            output = torch.mul(output, update_mask)
        else:
            output = torch.mul(raw_out, mask_ratio)

        return output

    @torch.jit.ignore
    def forward_with_cache(self, input: torch.Tensor, mask_in: Optional[torch.Tensor] = None) -> torch.Tensor:
        # NeMo: use_cache = not (torch.jit.is_tracing() or torch.onnx.is_in_onnx_export()); True in eager use
        use_cache = True
        cache_hit = use_cache and mask_in is None and self.last_size == input.shape
        if cache_hit:
            mask_ratio = self.mask_ratio
            update_mask = self.update_mask
        else:
            input, mask_ratio, update_mask = self.calculate_mask(input, mask_in)
            if use_cache:
                # if a mask is input, or tensor shape changed, update mask ratio
                self.last_size = tuple(input.shape)
                self.update_mask = update_mask
                self.mask_ratio = mask_ratio
        return self.forward_aux(input, mask_ratio, update_mask)

    def forward(self, input: torch.Tensor, mask_in: Optional[torch.Tensor] = None) -> torch.Tensor:
        if self.partial:
            return self.forward_with_cache(input, mask_in)
        else:
            if mask_in is not None:
                input = torch.mul(input, mask_in)
            return self._conv_forward(input, self.weight, self.bias)


class ConvReLUNorm(nn.Module):
    """FastPitch predictor block on a ConvNorm with use_partial_padding=True."""

    def __init__(self, in_channels, out_channels, kernel_size=3):
        super().__init__()
        self.conv = PartialConv1d(in_channels, out_channels, kernel_size=kernel_size, padding=kernel_size // 2)
        self.norm = nn.LayerNorm(out_channels)

    def forward(self, signal):
        out = F.relu(self.conv(signal))
        return self.norm(out.transpose(1, 2)).transpose(1, 2)


class TemporalPredictor(nn.Module):
    def __init__(self, input_size=16, filter_size=32, kernel_size=3, n_layers=2):
        super().__init__()
        self.layers = nn.Sequential(*[
            ConvReLUNorm(input_size if i == 0 else filter_size, filter_size, kernel_size)
            for i in range(n_layers)])
        self.fc = nn.Linear(filter_size, 1)

    def forward(self, x):
        out = self.layers(x)
        return self.fc(out.transpose(1, 2)).squeeze(-1)


def make_model():
    return TemporalPredictor().eval()


def example_inputs():
    return (torch.randn(2, 16, 20),)


def other_inputs():
    return [(torch.randn(3, 16, 33),), (torch.randn(1, 16, 7),)]


def probe_inputs():
    return other_inputs()
