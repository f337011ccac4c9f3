"""A model returns a 60-bin histogram of a float16 activation tensor with
torch.histc(x, 60, -10, 10), exported with a dynamic batch dim. The report (cited by onnxscript's
torchlib e2e test `test_aten_histc_float16`, skipped "see" this issue) is that histc on float16
input exports with dynamo=True, but the ONNX model's bin counts do not match PyTorch's.

Source: https://github.com/pytorch/pytorch/issues/174668
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-17"


class Model(nn.Module):
    def forward(self, x):
        return torch.histc(x, 60, -10, 10)


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.rand((10, 10, 10), dtype=torch.float16),)


def other_inputs():
    return [
        (torch.rand((3, 10, 10), dtype=torch.float16),),
        (torch.rand((7, 10, 10), dtype=torch.float16),),
    ]


def probe_inputs():
    return other_inputs()
