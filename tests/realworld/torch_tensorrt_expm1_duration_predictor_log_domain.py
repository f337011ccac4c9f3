"""FastSpeech-style duration predictor that regresses log(1 + duration) per phoneme and maps it back to
frame counts with `torch.expm1` before rounding. The Torch-TensorRT report asks for a converter for
`aten.expm1` (the op has no lowering there); the same ATen op is what the ONNX export stops on.

Source: https://github.com/pytorch/TensorRT/issues/2713
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "phonemes"}}
BLIND = "operators-66"


class DurationPredictor(nn.Module):
    def __init__(self, channels=32, kernel_size=3):
        super().__init__()
        self.conv1 = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.norm1 = nn.LayerNorm(channels)
        self.conv2 = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.norm2 = nn.LayerNorm(channels)
        self.proj = nn.Linear(channels, 1)

    def forward(self, x):
        # x: (B, T_phonemes, C)
        h = torch.relu(self.conv1(x.transpose(1, 2))).transpose(1, 2)
        h = self.norm1(h)
        h = torch.relu(self.conv2(h.transpose(1, 2))).transpose(1, 2)
        h = self.norm2(h)
        log_durations = self.proj(h).squeeze(-1)            # predicts log(1 + d)
        durations = torch.clamp(torch.round(torch.expm1(log_durations)), min=0)
        return log_durations, durations


def make_model():
    return DurationPredictor().eval()


def example_inputs():
    return (torch.randn(2, 11, 32),)


def other_inputs():
    return [(torch.randn(3, 17, 32),), (torch.randn(1, 5, 32),)]


def probe_inputs():
    return other_inputs()
