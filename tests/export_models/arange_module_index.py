"""A stacked-hourglass loop written `for i in torch.arange(self.nstack)`: each `i` is a 0-d tensor
indexing ModuleLists and compared with `self.nstack - 1`. torch.export reads it as an unbacked
value ("Could not extract specialized integer from data-dependent expression u0"); with
size_tensors_kept the items of an arange of ints are those ints while exporting, and the export
matches PyTorch on other sizes; the source is not edited."""
import torch
from torch import nn


class Stacked(nn.Module):
    def __init__(self, nstack=3):
        super().__init__()
        self.nstack = nstack
        self.blocks = nn.ModuleList(nn.Conv2d(4, 4, 3, padding=1) for _ in range(nstack))
        self.merges = nn.ModuleList(nn.Conv2d(4, 4, 1) for _ in range(nstack - 1))

    def forward(self, x):
        outputs = []
        for i in torch.arange(self.nstack):
            y = torch.relu(self.blocks[i](x))
            outputs.append(y)
            if i < self.nstack - 1:
                x = x + self.merges[i](y)
        return torch.stack(outputs, 1)


def make_model():
    torch.manual_seed(0)
    return Stacked()


def example_inputs():
    return (torch.randn(2, 4, 8, 10),)


def probe_inputs():
    return [(torch.randn(3, 4, 6, 12),)]
