"""A model with a data-dependent `while torch.sum(x) < 10` loop that also counts its iterations, exported to
ONNX to run with ONNX Runtime's TensorRT execution provider. The loop is the model's whole point: the number of
iterations depends on the input values (the report scripts it to get an ONNX `Loop`); traced, the body is
unrolled for the example's iteration count, and torch.export cannot branch on the tensor condition.

Source: https://github.com/onnx/onnx-tensorrt/issues/891
"""
import torch
import torch.nn as nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "n_input_elements"}}
BLIND = "domains-36"


class MyModel(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_loops = torch.tensor(0, dtype=torch.int32)

        while torch.sum(x) < 10:
            x = x + 1
            n_loops = n_loops + 1

        return x, n_loops


def make_model():
    return MyModel().eval()


def example_inputs():
    return (torch.tensor([2.2, 3.3]),)


def other_inputs():
    return [(torch.tensor([0.1, 0.2, 0.3]),), (torch.tensor([9.5]),), (torch.tensor([1.0, 0.5, 2.0, 0.25]),)]


def probe_inputs():
    return other_inputs()
