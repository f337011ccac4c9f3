"""Speech front end that builds its analysis window in forward with `torch.hamming_window(400)` and
multiplies the 25 ms frames by it before the log energy. The report's dynamo export had no translation
for `aten.hamming_window` ("Unsupported FX nodes: {'call_function': ['aten.hamming_window.default']}");
on torch 2.13 it exports but the exported window does not match eager's.

Source: https://github.com/pytorch/pytorch/issues/120316
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "frames"}}
BLIND = "operators-2"


class Test(torch.nn.Module):
    def __init__(self):
        super(Test, self).__init__()

    def forward(self, x: torch.Tensor):
        # x: (batch, frames, 400) pre-emphasised 25 ms frames
        x = x - x.mean(dim=-1, keepdim=True)
        window = torch.hamming_window(400)
        x = x * window
        energy = x.pow(2).sum(-1)
        return torch.log(energy + 1e-6)


def make_model():
    return Test()


def example_inputs():
    return (torch.randn(2, 98, 400),)


def other_inputs():
    return [(torch.randn(3, 48, 400),), (torch.randn(1, 75, 400),)]


def probe_inputs():
    return other_inputs()
