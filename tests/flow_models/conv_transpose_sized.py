"""ONX533: ENet / U-Net upsampling, `self.up(y, output_size=x.size())`: the output padding derived from
the sizes is a constant in both exports."""
import torch
from torch import nn


class Refine(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor):
        return self.up(self.down(x), output_size=x.size()) + x


def make_model():
    torch.manual_seed(0)
    return Refine().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 3, 16, 20),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(2, 3, 17, 9),), (torch.randn(1, 3, 31, 32),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
