"""A float16 parameter (25, 1, 28, 2) multiplies one input, the mean over dim 0 of a second input is concatenated
with it on dim 3, and argmax(2) is returned; the report finds the exported model's argmax output from onnxruntime
mismatching PyTorch (and changing when equivalent transposes are inserted).

Source: https://github.com/microsoft/onnxruntime/issues/18233
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x0": {1: "k"}, "x1": {0: "m", 2: "k"}}
BLIND = "operators-16"


class Model0(torch.nn.Module):
    def __init__(self):
        super().__init__()
        p0 = torch.nn.Parameter(torch.empty([25, 1, 28, 2], dtype=torch.float16), requires_grad=False)
        torch.nn.init.uniform_(p0, 0.0, 8.0)        # the report leaves torch.empty uninitialized
        self.v2_0 = p0

    def forward(self, x0, x1):
        _args = (x0, x1)
        v2_0 = self.v2_0
        getitem = _args[0]
        getitem_1 = _args[1]
        mul = torch.mul(v2_0, getitem)
        mean = getitem_1.mean(0)
        cat = torch.cat((mean, mul), dim = 3)
        argmax = cat.argmax(2)
        return (argmax)


def make_model():
    return Model0()


def _h(*shape):
    return (torch.rand(*shape) * 8).to(torch.float16)


def example_inputs():
    return (_h(25, 3, 28, 2), _h(4, 25, 3, 28, 2))


def other_inputs():
    return [(_h(25, 5, 28, 2), _h(2, 25, 5, 28, 2)), (_h(25, 2, 28, 2), _h(6, 25, 2, 28, 2))]


def probe_inputs():
    return other_inputs()
