"""A small net whose forward is `x = torch.inverse(x)` on a (4, 1, 28, 28) MNIST-sized batch; the report says
torch.onnx.export (opset 11) fails with "ONNX export failed on ATen operator inverse because
torch.onnx.symbolic_opset11.inverse does not exist".

Source: https://github.com/pytorch/pytorch/issues/31914
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-15"


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()

    def forward(self, x):

        x = torch.inverse(x)
        return x


def make_model():
    return Net().eval()


def _batch(n):
    # well-conditioned 28x28 matrices so eager and exported results can be compared
    return torch.randn(n, 1, 28, 28) + 8.0 * torch.eye(28)


def example_inputs():
    return (_batch(4),)


def other_inputs():
    return [(_batch(3),), (_batch(7),)]


def probe_inputs():
    return other_inputs()
