"""CompressAI JointAutoregressiveHierarchicalPriors (mbt2018) context model: MaskedConv2d masks the
"future" pixels by changing its own parameter inside forward (`self.weight.data *= self.mask`). The commit
replaced this in-place update because `torch.compile` of MaskedConv2d failed with "a leaf Variable that requires
grad is being used in an in-place operation". Here, exporting with dynamo fails on the same line.

Source: https://github.com/InterDigitalInc/CompressAI/commit/2489952189980827abea01e8c20018dd6c0905b9
"""
from typing import Any

import torch
import torch.nn as nn
from torch import Tensor

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-75"


class MaskedConv2d(nn.Conv2d):
    def __init__(self, *args: Any, mask_type: str = "A", **kwargs: Any):
        super().__init__(*args, **kwargs)

        if mask_type not in ("A", "B"):
            raise ValueError(f'Invalid "mask_type" value "{mask_type}"')

        self.register_buffer("mask", torch.ones_like(self.weight.data))
        _, _, h, w = self.mask.size()
        self.mask[:, :, h // 2, w // 2 + (mask_type == "B") :] = 0
        self.mask[:, :, h // 2 + 1 :] = 0

    def forward(self, x: Tensor) -> Tensor:
        # TODO(begaintj): weight assigment is not supported by torchscript
        self.weight.data *= self.mask
        return super().forward(x)


class JointAutoregressiveContext(nn.Module):
    def __init__(self, N=16, M=24):
        super().__init__()
        self.g_a = nn.Sequential(nn.Conv2d(3, N, 5, 2, 2), nn.ReLU(), nn.Conv2d(N, M, 5, 2, 2))
        self.h_s = nn.Conv2d(M, M * 2, 3, 1, 1)
        self.context_prediction = MaskedConv2d(M, 2 * M, kernel_size=5, padding=2, stride=1)
        self.entropy_parameters = nn.Sequential(
            nn.Conv2d(M * 12 // 3, M * 10 // 3, 1), nn.LeakyReLU(inplace=True),
            nn.Conv2d(M * 10 // 3, M * 8 // 3, 1), nn.LeakyReLU(inplace=True),
            nn.Conv2d(M * 8 // 3, M * 6 // 3, 1),
        )

    def forward(self, x):
        y = self.g_a(x)
        params = self.h_s(y)
        y_hat = torch.round(y)  # gaussian_conditional.quantize(y, "dequantize")
        ctx_params = self.context_prediction(y_hat)
        gaussian_params = self.entropy_parameters(torch.cat((params, ctx_params), dim=1))
        scales_hat, means_hat = gaussian_params.chunk(2, 1)
        return y_hat, scales_hat, means_hat


def make_model():
    return JointAutoregressiveContext()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 48, 80),), (torch.randn(1, 3, 96, 32),)]


def probe_inputs():
    return other_inputs()
