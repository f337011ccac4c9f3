"""Two tensors of different sizes are summed into a zero tensor padded to the larger size, computed with the
builtin `max(x.shape[0], y.shape[0])`; torch.export with dynamic dims picks one branch of `max` from the example
shapes, so the exported program returns the wrong output shape for inputs where the other tensor is larger.

Source: https://github.com/pytorch/pytorch/issues/150851
"""
import torch

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "x_rows", 1: "x_cols"}, "y": {0: "y_rows", 1: "y_cols"}}
BLIND = "domains-27"


class Model(torch.nn.Module):
    def forward(self, x, y):
        s1 = max(x.shape[0], y.shape[0])
        s2 = max(x.shape[1], y.shape[1])
        z = torch.zeros((s1, s2), dtype=x.dtype)
        z[:x.shape[0], :x.shape[1]] = x
        z[:y.shape[0], :y.shape[1]] += y
        return z


def make_model():
    return Model()


def example_inputs():
    return (torch.randn(2, 3), torch.randn(3, 2) * 10)


def other_inputs():
    return [(torch.randn(2, 2), torch.randn(3, 3) * 10),
            (torch.randn(5, 4), torch.randn(3, 6) * 10)]


def probe_inputs():
    return other_inputs()
