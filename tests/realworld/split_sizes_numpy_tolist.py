"""Split a sequence into chunks whose sizes come from a second input tensor:
`x.split(l.cpu().numpy().tolist(), dim=-1)`; the split sizes are frozen into the export (the legacy
trace drops the sizes input altogether), so other sizes fail or split wrongly.

Source: https://github.com/pytorch/pytorch/issues/65682
"""
import torch

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "length"}}
BLIND = "domains-11"


class Split(torch.nn.Module):
    def forward(self, x, l):
        return x.split(l.cpu().numpy().tolist(), dim=-1)


def make_model():
    return Split()


def example_inputs():
    return (torch.tensor([1, 4, 2, 7, 3]), torch.tensor([1, 2, 2]))


def other_inputs():
    return [(torch.tensor([4, 2, 3, 4, 8, 6, 5]), torch.tensor([3, 1, 3])),
            (torch.tensor([9, 1, 5, 2]), torch.tensor([2, 1, 1]))]


def probe_inputs():
    return other_inputs()
