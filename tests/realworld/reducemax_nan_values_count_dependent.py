"""A model that is a single max-reduction (ReduceMax, keepdims) over a 1-D float input of dynamic
length; the report says onnxruntime's ReduceMax output with NaN values depends on how many NaNs the
input holds: [nan, nan, x] gives NaN, but [nan, nan, nan, 42.0] gives 42.0 (NaN ignored), where
PyTorch (and NumPy) always return NaN.

Source: https://github.com/microsoft/onnxruntime/issues/10514
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"X": {0: "n"}}
BLIND = "operators-14"

nan = float("nan")


class ReduceMaxModel(nn.Module):
    def forward(self, X):
        Y = torch.amax(X, dim=0, keepdim=True)
        return Y


def make_model():
    return ReduceMaxModel().eval()


def example_inputs():
    return (torch.tensor([nan, nan, 1.904731]),)


def other_inputs():
    return [
        (torch.tensor([nan, nan, nan, 42.0]),),
        (torch.tensor([nan, nan, nan, nan, 42.0]),),
        (torch.tensor([3.0, nan, nan, nan, 0.5, 7.0]),),
    ]


def probe_inputs():
    return other_inputs()
