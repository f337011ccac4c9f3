"""Module adding rows of B into A at `index` with `A.index_put((index,), B, accumulate=True)`. When the
index holds repeated values (e.g. [0, 4, 2, 2, 4]) the exported ONNX model only adds the last update per
index in onnxruntime, while PyTorch accumulates all of them (expected rows 2 and 4 to be 3, got 2).

Source: https://github.com/pytorch/pytorch/issues/61034
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"index": {0: "num_updates"}, "B": {0: "num_updates"}}
BLIND = "operators-10"


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()

    def forward(self, index, A, B):
        A = A.index_put((index,), B, accumulate=True)
        return A


def make_model():
    return Net()


def example_inputs():
    A = torch.ones(5, 3)
    B = torch.tensor([[1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1]], dtype=torch.float)
    index = torch.tensor([0, 4, 2, 2, 4])
    return (index, A, B)


def other_inputs():
    return [(torch.tensor([1, 1, 1, 3, 0, 3, 4]), torch.randn(5, 3), torch.randn(7, 3)),
            (torch.tensor([2, 2, 2]), torch.randn(5, 3), torch.randn(3, 3))]


def probe_inputs():
    return other_inputs()
