"""A model drives `torch.ops.higher_order.while_loop` whose cond_fn compares the counter with a
registered buffer (`self.dec`) and whose body_fn applies a closed-over `self.linear`; the report
says ONNX export (dynamo) fails while running the decompositions of the exported program.

Source: https://github.com/pytorch/pytorch/issues/174013
"""
import torch

CLASS = "operator"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-33"


class SimpleWithLinear(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(2, 2)
        self.dec = torch.nn.Buffer(torch.tensor(1))

    def forward(self, iter, x):
        def cond_fn(it, x):
            return it - self.dec > 0

        def body_fn(it, x):
            return it - 1, self.linear(x)

        return torch.ops.higher_order.while_loop(
            cond_fn, body_fn, [iter, x], []
        )


def make_model():
    return SimpleWithLinear()


def example_inputs():
    return (torch.tensor(3), torch.tensor([[1.0, 2.0], [3.0, 4.0]]))


def other_inputs():
    return [(torch.tensor(5), torch.randn(3, 2)), (torch.tensor(2), torch.randn(1, 2))]


def probe_inputs():
    return other_inputs()
