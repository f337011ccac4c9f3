"""diffusers' ONNX export of the safety checker: the class defines `forward_onnx` and no forward, and
the export script sets `checker.forward = checker.forward_onnx` on the instance. The recorder must
take the module for the user's (its class's forward is torch's unimplemented one)."""
import torch
from torch import nn


def black_out(images, flagged):
    images[flagged] = 0.0
    return images


class Checker(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 1)

    def forward_onnx(self, x, images):
        flagged = self.proj(x)[:, 0] > 0
        return black_out(images, flagged), flagged


def make_model():
    checker = Checker()
    checker.forward = checker.forward_onnx
    return checker


def example_inputs():
    return (torch.randn(3, 4), torch.rand(3, 5, 5))
