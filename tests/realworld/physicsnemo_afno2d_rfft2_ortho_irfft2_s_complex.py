"""AFNO spectral mixing layer (FourCastNet-style, NVIDIA PhysicsNeMo `AFNO2DLayer`) written with the plain
`torch.fft` calls that PhysicsNeMo's ONNX wrapper module replaces: `torch.fft.rfft2(x, dim=(1, 2), norm="ortho")`,
`.real` / `.imag`, block-diagonal einsums, `torch.view_as_complex` and `torch.fft.irfft2(x, s=(H, W), dim=(1, 2),
norm="ortho")`. The wrapper's note says torch.fft.rfft* return a complex type "which is not yet supported in ONNX",
so during export it swaps in com.microsoft Rfft/Irfft contrib ops; without it the TorchScript exporter has no
symbolic for `aten::fft_rfft2` / `aten::fft_irfft2`.

Source: https://github.com/NVIDIA/physicsnemo/blob/94b355108cfd10e253d3d41cacdc0c0112b078e4/physicsnemo/nn/module/fft.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-69"


class AFNO2DLayer(nn.Module):
    def __init__(self, hidden_size, num_blocks=8, sparsity_threshold=0.01,
                 hard_thresholding_fraction=1, hidden_size_factor=1):
        super().__init__()
        self.hidden_size = hidden_size
        self.sparsity_threshold = sparsity_threshold
        self.num_blocks = num_blocks
        self.block_size = self.hidden_size // self.num_blocks
        self.hard_thresholding_fraction = hard_thresholding_fraction
        self.hidden_size_factor = hidden_size_factor
        self.scale = 0.02
        self.w1 = nn.Parameter(self.scale * torch.randn(
            2, self.num_blocks, self.block_size, self.block_size * self.hidden_size_factor))
        self.b1 = nn.Parameter(self.scale * torch.randn(2, self.num_blocks, self.block_size * self.hidden_size_factor))
        self.w2 = nn.Parameter(self.scale * torch.randn(
            2, self.num_blocks, self.block_size * self.hidden_size_factor, self.block_size))
        self.b2 = nn.Parameter(self.scale * torch.randn(2, self.num_blocks, self.block_size))

    def forward(self, x):
        bias = x
        dtype = x.dtype
        x = x.float()
        B, H, W, C = x.shape

        x = torch.fft.rfft2(x, dim=(1, 2), norm="ortho")
        x_real, x_imag = x.real, x.imag
        x_real = x_real.reshape(B, H, W // 2 + 1, self.num_blocks, self.block_size)
        x_imag = x_imag.reshape(B, H, W // 2 + 1, self.num_blocks, self.block_size)

        o1_real = torch.zeros([B, H, W // 2 + 1, self.num_blocks, self.block_size * self.hidden_size_factor],
                              device=x.device)
        o1_imag = torch.zeros([B, H, W // 2 + 1, self.num_blocks, self.block_size * self.hidden_size_factor],
                              device=x.device)
        o2 = torch.zeros(x_real.shape + (2,), device=x.device)

        total_modes = H // 2 + 1
        kept_modes = int(total_modes * self.hard_thresholding_fraction)
        sl = slice(total_modes - kept_modes, total_modes + kept_modes)

        o1_real[:, sl, :kept_modes] = F.relu(
            torch.einsum("nyxbi,bio->nyxbo", x_real[:, sl, :kept_modes], self.w1[0])
            - torch.einsum("nyxbi,bio->nyxbo", x_imag[:, sl, :kept_modes], self.w1[1])
            + self.b1[0])
        o1_imag[:, sl, :kept_modes] = F.relu(
            torch.einsum("nyxbi,bio->nyxbo", x_imag[:, sl, :kept_modes], self.w1[0])
            + torch.einsum("nyxbi,bio->nyxbo", x_real[:, sl, :kept_modes], self.w1[1])
            + self.b1[1])
        o2[:, sl, :kept_modes, ..., 0] = (
            torch.einsum("nyxbi,bio->nyxbo", o1_real[:, sl, :kept_modes], self.w2[0])
            - torch.einsum("nyxbi,bio->nyxbo", o1_imag[:, sl, :kept_modes], self.w2[1])
            + self.b2[0])
        o2[:, sl, :kept_modes, ..., 1] = (
            torch.einsum("nyxbi,bio->nyxbo", o1_imag[:, sl, :kept_modes], self.w2[0])
            + torch.einsum("nyxbi,bio->nyxbo", o1_real[:, sl, :kept_modes], self.w2[1])
            + self.b2[1])

        x = F.softshrink(o2, lambd=self.sparsity_threshold)
        x = torch.view_as_complex(x)
        x = x.reshape(B, H, W // 2 + 1, C)
        x = torch.fft.irfft2(x, s=(H, W), dim=(1, 2), norm="ortho")
        x = x.type(dtype)
        return x + bias


def make_model():
    return AFNO2DLayer(hidden_size=32, num_blocks=4).eval()


def example_inputs():
    return (torch.randn(2, 16, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 16, 32, 32),), (torch.randn(1, 16, 32, 32),)]


def probe_inputs():
    return other_inputs()
