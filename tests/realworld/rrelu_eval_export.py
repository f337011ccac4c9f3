"""`torch.nn.RReLU().eval()` exported with a dynamic length: the report's exported graph sampled random slopes
(RandomUniformLike + PRelu) instead of the fixed eval-mode slope `(lower + upper) / 2`, so onnxruntime's outputs
differed from torch's and between runs (the RReLU op has no faithful eval-mode translation).

Source: https://github.com/pytorch/pytorch/issues/82031
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "T"}}
BLIND = "operators-2"


def make_model():
    return torch.nn.RReLU().eval()


def example_inputs():
    return (torch.linspace(-100, 20, 201, dtype=torch.float32),)


def other_inputs():
    return [(torch.linspace(-50, 50, 77, dtype=torch.float32),), (torch.randn(500) * 10,)]


def probe_inputs():
    return other_inputs()
