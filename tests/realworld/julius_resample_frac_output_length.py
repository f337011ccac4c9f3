"""julius `ResampleFrac` (sinc resampling as a strided conv1d): the output length is computed in Python,
`float_output_length = self.new_sr * length / self.old_sr`, `int(...)`, and the conv output is cut with
`y[..., :output_length]`; the report says the exported ONNX model only works for the input length used at
export because that length is treated as a constant.

Source: https://github.com/adefossez/julius/pull/17
"""
import math
from typing import Optional

import torch
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "domains-4"


def sinc(t):
    return torch.where(t == 0, torch.tensor(1., device=t.device, dtype=t.dtype), torch.sin(t) / t)


class ResampleFrac(torch.nn.Module):
    def __init__(self, old_sr: int, new_sr: int, zeros: int = 24, rolloff: float = 0.945):
        super().__init__()
        gcd = math.gcd(old_sr, new_sr)
        self.old_sr = old_sr // gcd
        self.new_sr = new_sr // gcd
        self.zeros = zeros
        self.rolloff = rolloff
        self._init_kernels()

    def _init_kernels(self):
        kernels = []
        sr = min(self.new_sr, self.old_sr)
        sr *= self.rolloff
        self._width = math.ceil(self.zeros * self.old_sr / sr)
        idx = torch.arange(-self._width, self._width + self.old_sr).float()
        for i in range(self.new_sr):
            t = (-i/self.new_sr + idx/self.old_sr) * sr
            t = t.clamp_(-self.zeros, self.zeros)
            t *= math.pi
            window = torch.cos(t/self.zeros/2)**2
            kernel = sinc(t) * window
            kernel.div_(kernel.sum())
            kernels.append(kernel)
        self.register_buffer("kernel", torch.stack(kernels).view(self.new_sr, 1, -1))

    def forward(self, x: torch.Tensor, output_length: Optional[int] = None, full: bool = False):
        if self.old_sr == self.new_sr:
            return x
        shape = x.shape
        length = x.shape[-1]
        x = x.reshape(-1, length)
        x = F.pad(x[:, None], (self._width, self._width + self.old_sr), mode='replicate')
        ys = F.conv1d(x, self.kernel, stride=self.old_sr)  # type: ignore
        y = ys.transpose(1, 2).reshape(list(shape[:-1]) + [-1])

        float_output_length = self.new_sr * length / self.old_sr
        max_output_length = int(math.ceil(float_output_length))
        default_output_length = int(float_output_length)
        if output_length is None:
            output_length = max_output_length if full else default_output_length
        elif output_length < 0 or output_length > max_output_length:
            raise ValueError(f"output_length must be between 0 and {max_output_length}")
        else:
            if full:
                raise ValueError("You cannot pass both full=True and output_length")
        return y[..., :output_length]


def make_model():
    return ResampleFrac(48000, 32000, zeros=8)


def example_inputs():
    return (torch.randn(2, 300),)


def other_inputs():
    return [(torch.randn(3, 451),), (torch.randn(1, 157),)]


def probe_inputs():
    return other_inputs()
