"""A model trained with bfloat16 mixed precision keeps a non-learnable fp32 scalar nn.Parameter and
multiplies the bfloat16 input by it. The report: torch.onnx.export of the model (with bf16 input, inside
an autocast context) fails because the fp32 scalar is cast to complex128 ("ScalarType ComplexDouble is
an unexpected tensor scalar type").

Source: https://github.com/pytorch/pytorch/issues/158658
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-15"


class TestModelWithScalarParam(nn.Module):
    def __init__(self):
        super(TestModelWithScalarParam, self).__init__()
        self.p = nn.Parameter(torch.tensor(1.0), requires_grad=False)

    def forward(self, x):
        return x * self.p


def make_model():
    model = TestModelWithScalarParam()
    model.eval()
    return model


def example_inputs():
    dtype = torch.bfloat16
    return (torch.randn(2, 2).to(dtype),)


def other_inputs():
    dtype = torch.bfloat16
    return [(torch.randn(5, 2).to(dtype),), (torch.randn(1, 2).to(dtype),)]


def probe_inputs():
    return other_inputs()
