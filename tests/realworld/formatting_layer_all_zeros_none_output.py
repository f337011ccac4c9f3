"""Input-formatting layer that checks whether the input is all zeros (`torch.nonzero(input_tensor).numel() == 0`)
and returns None in that case, else the formatted input; the legacy trace warns "Converting a tensor to a Python
boolean might cause the trace to be incorrect" and freezes the branch taken by the dummy input.

Source: https://php.xlycwl.com/faq/1432092.html
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_tensor": {0: "batch", 1: "features"}}
BLIND = "domains-20"


class FormattingLayerProblem(nn.Module):
    def forward(self, input_tensor):
        # check whether the input is all zeros
        is_all_zeros = (torch.nonzero(input_tensor).numel() == 0)
        if is_all_zeros:
            formatted_input = None
        else:
            formatted_input = input_tensor * 2
        return formatted_input


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.formatting = FormattingLayerProblem()

    def forward(self, input_tensor):
        return self.formatting(input_tensor)


def make_model():
    return Model()


def example_inputs():
    return (torch.randn(2, 3),)


def other_inputs():
    return [(torch.randn(4, 5),), (torch.randn(1, 7),)]


def probe_inputs():
    return other_inputs()
