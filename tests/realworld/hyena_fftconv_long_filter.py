"""Hyena-style long-convolution operator (NLP sequence mixer): `fftconv` multiplies
`torch.fft.rfft(u, n=2L)` by the filter's rfft and goes back with
`torch.fft.irfft(..., n=fft_size, norm='forward')`; the report first hit unsupported FX nodes with
torch.onnx.dynamo_export, then, once those were added, an exported model that is "miscompiled"
(onnxruntime output differs from PyTorch).

Source: https://github.com/pytorch/pytorch/issues/113444
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "seqlen"}, "k": {1: "seqlen"}}
BLIND = "operators-4"


def fftconv(u, k, D):
    seqlen = u.shape[-1]
    fft_size = 2 * seqlen

    k_f = torch.fft.rfft(k, n=fft_size) / fft_size
    u_f = torch.fft.rfft(u.to(dtype=k.dtype), n=fft_size)

    if len(u.shape) > 3: k_f = k_f.unsqueeze(1)
    y = torch.fft.irfft(u_f * k_f, n=fft_size, norm='forward')[..., :seqlen]

    out = y + u * D.unsqueeze(-1)
    return out.to(dtype=u.dtype)


class Filter(nn.Module):
    def __init__(self, d_model=16):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(d_model))

    def forward(self, x, k=None, bias=None):
        bias = bias if bias is not None else self.bias
        return fftconv(x, k, bias)


def make_model():
    return Filter()


def example_inputs():
    return (torch.randn(2, 16, 64), torch.randn(16, 64))


def other_inputs():
    return [(torch.randn(3, 16, 100), torch.randn(16, 100)), (torch.randn(1, 16, 37), torch.randn(16, 37))]


def probe_inputs():
    return other_inputs()
