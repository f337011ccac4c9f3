"""A module keeps a `torch.sparse_coo_tensor` built in `__init__` and returns `self.s.to_dense()` from
forward; `torch.onnx.export` fails on the sparse tensor (the thread's minimal example of "ONNX export
support for sparse tensors": it works only if the forward stops using the sparse tensor).

Source: https://github.com/pytorch/pytorch/issues/35294
"""
import torch
import torch.onnx
import torch.sparse
from torch.nn import Module

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {1: "height", 2: "width"}}
BLIND = "operators-29"


class SparseModel(Module):

    def __init__(self):
        super(SparseModel, self).__init__()
        i = [[0, ],
             [0, ]]
        v = [42, ]
        self.s = torch.sparse_coo_tensor(i, v, (1, 1))

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return self.s.to_dense()  # works if we change the output to "return input" (no usage of sparse tensors)


def make_model():
    model = SparseModel()
    model.eval()
    return model


def example_inputs():
    return (torch.randn(1, 60, 60, 1, requires_grad=False),)


def other_inputs():
    return [(torch.randn(1, 48, 72, 1),), (torch.randn(1, 33, 20, 1),)]


def probe_inputs():
    return other_inputs()
