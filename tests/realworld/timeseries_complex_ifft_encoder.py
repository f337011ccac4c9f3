"""Time-series encoder that packs (real, imag) pairs of the input channels into a complex tensor with
`torch.complex(...)`, applies `torch.fft.ifft` and splits the result back into real and imaginary parts;
exporting it fails on the `aten::complex` operator.

Source: https://blog.youkuaiyun.com/pipi0714/article/details/4667224
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x_enc": {0: "batch", 1: "seq_len"}}
BLIND = "operators-10"


class FreqEncoder(nn.Module):
    def __init__(self, enc_in=8, d_model=16):
        super().__init__()
        self.proj = nn.Linear(enc_in, d_model)

    def forward(self, x_enc):
        b, l, _ = x_enc.shape
        # x_enc_r = rearrange(x_enc, 'b l (k o) -> b l k o', o=2)
        x_enc_r = x_enc.reshape(b, l, -1, 2)
        x_enc_complex = torch.complex(x_enc_r[:, :, :, 0], x_enc_r[:, :, :, 1])
        x_time = torch.fft.ifft(x_enc_complex, dim=1)
        # back to (real, imag) pairs: rearrange(..., 'b l k o -> b l (k o)')
        x_out = torch.stack([x_time.real, x_time.imag], dim=-1).reshape(b, l, -1)
        return self.proj(x_out)


def make_model():
    return FreqEncoder()


def example_inputs():
    return (torch.randn(2, 96, 8),)


def other_inputs():
    return [(torch.randn(3, 48, 8),), (torch.randn(1, 130, 8),)]


def probe_inputs():
    return other_inputs()
