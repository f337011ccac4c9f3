"""Scientific ML (NVIDIA Modulus / PhysicsNeMo): a spectral model uses `torch.fft.rfft` / `irfft`, swapped
for Modulus' ONNX-exportable `modulus.models.layers.fft.rfft` / `irfft`, which during export emit the
contrib ops `com.microsoft::Rfft` / `Irfft`; onnxruntime then fails with "NOT_IMPLEMENTED : Could not
find an implementation for Rfft(1) node" (the contrib RFFT kernels exist only for CUDA).

Source: https://github.com/NVIDIA/physicsnemo/issues/42
"""
import torch
import torch.fft
import torch.onnx
from torch import nn, Tensor
from torch.autograd import Function
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"y": {0: "batch", 2: "length"}}
BLIND = "operators-6"


# ---- modulus/models/layers/fft.py (trimmed to the 1-D, last-dim, norm=None path) ----
def _contrib_rfft(g, input, ndim):
    # See https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md#com.microsoft.Rfft
    return g.op("com.microsoft::Rfft", input, normalized_i=0, onesided_i=1, signal_ndim_i=ndim)


def _contrib_irfft(g, input, ndim):
    return g.op("com.microsoft::Irfft", input, normalized_i=0, onesided_i=1, signal_ndim_i=ndim)


class OnnxRfft(Function):
    @staticmethod
    def forward(ctx, input: Tensor) -> Tensor:
        # We need to mimic the behavior of Contrib RFFT which assumes
        # DFT of last dim and no normalization.
        y = torch.fft.rfft(input, dim=-1, norm="backward")
        return torch.view_as_real(y)

    @staticmethod
    def symbolic(g, input):
        return _contrib_rfft(g, input, ndim=1)


class OnnxIrfft(Function):
    @staticmethod
    def forward(ctx, input: Tensor) -> Tensor:
        return torch.fft.irfft(torch.view_as_complex(input), dim=-1, norm="backward")

    @staticmethod
    def symbolic(g, input):
        return _contrib_irfft(g, input, ndim=1)


def rfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    if not torch.onnx.is_in_onnx_export():
        return torch.fft.rfft(input, n=n, dim=dim, norm=norm)
    return OnnxRfft.apply(input)


def irfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    if not torch.onnx.is_in_onnx_export():
        return torch.fft.irfft(input, n=n, dim=dim, norm=norm)
    return OnnxIrfft.apply(input)
# ------------------------------------------------------------------------------------


class SpectralBlock(nn.Module):
    """1-D spectral layer (FNO-style lift -> rfft/irfft mixing + pointwise path -> projection)."""

    def __init__(self, in_channels=8, width=16):
        super().__init__()
        self.lift = nn.Conv1d(in_channels, width, 1)
        self.w = nn.Conv1d(width, width, 1)
        self.proj = nn.Conv1d(width, in_channels, 1)

    def forward(self, y):
        x = self.lift(y)
        x_ft = rfft(x, dim=-1)
        x = irfft(x_ft, n=x.shape[-1], dim=-1) + self.w(x)
        return self.proj(F.gelu(x))


def make_model():
    return SpectralBlock().eval()


def example_inputs():
    return (torch.randn(1, 8, 96),)


def other_inputs():
    return [(torch.randn(3, 8, 64),), (torch.randn(2, 8, 128),)]


def probe_inputs():
    return other_inputs()
