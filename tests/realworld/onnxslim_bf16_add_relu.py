"""A small mixed-precision block run entirely in bfloat16 (`relu(torch.add(a, a))` on a bf16 input)
exported with torch.onnx.export: the maintainer notes onnxruntime does not support bfloat16 natively, so
the exported Add/Relu on bf16 tensors cannot run on the CPU execution provider.

Source: https://github.com/inisis/OnnxSlim/issues/27
"""
import torch
import torch.nn as nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"a": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-12"


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()
        self.relu = nn.ReLU()

    def forward(self, a):
        return self.relu(torch.add(a, a))


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn((1, 3, 10, 10), dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.randn((2, 3, 7, 12), dtype=torch.bfloat16),),
            (torch.randn((3, 3, 16, 9), dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
