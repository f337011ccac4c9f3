"""Latent-sequence smoothing with a Savitzky-Golay filter before a mesh decoder; the filter
coefficients come from `torch.linalg.pinv` of the Vandermonde matrix, and export fails with
"the operator linalg_pinv to ONNX opset version 13 is not supported".

Source: https://github.com/pytorch/pytorch/issues/85371
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"z": {0: "batch", 1: "frames"}}
BLIND = "operators-1"


def savgol_coeffs(window_length, polyorder, dtype, device):
    halflen = window_length // 2
    pos = torch.arange(-halflen, halflen + 1, dtype=dtype, device=device)
    order = torch.arange(polyorder + 1, dtype=dtype, device=device).unsqueeze(1)
    A = pos ** order
    y = torch.zeros(polyorder + 1, dtype=dtype, device=device)
    y[0] = 1.0
    return torch.linalg.pinv(A) @ y


class SmoothDecoder(nn.Module):
    def __init__(self, latent=16, verts=30, window_length=7, polyorder=2):
        super().__init__()
        self.window_length = window_length
        self.polyorder = polyorder
        self.decoder = nn.Sequential(nn.Linear(latent, 64), nn.ReLU(), nn.Linear(64, verts * 3))

    def forward(self, z):
        coeffs = savgol_coeffs(self.window_length, self.polyorder, z.dtype, z.device)
        halflen = self.window_length // 2
        x = z.transpose(1, 2)
        C = x.shape[1]
        x = F.pad(x, (halflen, halflen), mode='replicate')
        kernel = coeffs.flip(0).view(1, 1, -1).repeat(C, 1, 1)
        x = F.conv1d(x, kernel, groups=C)
        return self.decoder(x.transpose(1, 2))


def make_model():
    return SmoothDecoder()


def example_inputs():
    return (torch.randn(2, 20, 16),)


def other_inputs():
    return [(torch.randn(3, 33, 16),), (torch.randn(1, 9, 16),)]


def probe_inputs():
    return other_inputs()
