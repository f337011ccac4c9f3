"""Stable-Diffusion UNet up block run in bfloat16: Upsample2D doubles the latent with
F.interpolate(mode="nearest") on a bf16 tensor. The report: nearest upsampling has no bfloat16 kernel, so
diffusion UNets cannot run in bf16 without manual casting. On torch 2.13 eager works, but the exported graph
carries a bfloat16 Resize that ONNX Runtime's CPU provider has no kernel for.

Source: https://github.com/pytorch/pytorch/issues/86679
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-14"


class Upsample2D(nn.Module):
    def __init__(self, channels, use_conv=False, out_channels=None):
        super().__init__()
        self.channels = channels
        self.out_channels = out_channels or channels
        self.use_conv = use_conv

    def forward(self, hidden_states, output_size=None):
        assert hidden_states.shape[1] == self.channels
        # if `output_size` is passed we force the interpolation output size and do not make use of `scale_factor=2`
        if output_size is None:
            hidden_states = F.interpolate(hidden_states, scale_factor=2.0, mode="nearest")
        else:
            hidden_states = F.interpolate(hidden_states, size=output_size, mode="nearest")
        return hidden_states


class UpBlock(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.upsamplers = nn.ModuleList([Upsample2D(channels)])

    def forward(self, hidden_states):
        for upsampler in self.upsamplers:
            hidden_states = upsampler(hidden_states)
        return hidden_states


def make_model():
    return UpBlock().eval().to(torch.bfloat16)


def example_inputs():
    return (torch.randn(1, 4, 32, 32).to(device="cpu", dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.randn(2, 4, 24, 40, dtype=torch.bfloat16),), (torch.randn(3, 4, 16, 8, dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
