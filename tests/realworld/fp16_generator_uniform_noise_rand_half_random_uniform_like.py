"""A generator converted to float16 draws its uniform input noise in the half dtype; the report
("when converting a model from 32-bit to 16-bit, the attributes of the RandomUniform module do not
change") and its fix (PR #239 adds RandomUniformLike to the fp16 block list) show the fp16 model
cannot carry a float16 RandomUniform(Like) - onnxruntime's CPU provider has no float16 kernel for it.

Source: https://github.com/microsoft/onnxconverter-common/issues/238
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"feat": {0: "batch"}}
BLIND = "operators-57"


class NoiseGenerator(nn.Module):
    def __init__(self, feat_dim=24, noise_dim=8, hidden=32):
        super().__init__()
        self.noise_dim = noise_dim
        self.fc1 = nn.Linear(feat_dim + noise_dim, hidden)
        self.fc2 = nn.Linear(hidden, feat_dim)

    def forward(self, feat):
        noise = torch.rand(feat.shape[0], self.noise_dim, dtype=feat.dtype)
        h = torch.cat([feat, noise * 2 - 1], dim=1)
        h = torch.nn.functional.leaky_relu(self.fc1(h), 0.2)
        return torch.tanh(self.fc2(h))


def make_model():
    return NoiseGenerator().half().eval()


def example_inputs():
    return (torch.randn(4, 24).half(),)


def other_inputs():
    return [(torch.randn(9, 24).half(),), (torch.randn(1, 24).half(),)]


def probe_inputs():
    return other_inputs()
