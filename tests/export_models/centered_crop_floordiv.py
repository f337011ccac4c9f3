"""ComfyUI's SD3 MMDiT crops its position table around the center: `top = (max_size - h) // 2` with
`h` the patch count of a dynamic height, to `top + h`. The exported program computes that end as
`h + 8 + (-h) // 2`, and torch.onnx translates the floor division of sizes as ONNX Div, which
truncates: for an odd count the crop ends one row late (the example's count is even)."""
import torch
from torch import nn


class CenteredTable(nn.Module):
    def __init__(self, max_size=16, dim=8):
        super().__init__()
        self.max_size = max_size
        self.register_buffer("table", torch.randn(1, max_size, max_size, dim))

    def forward(self, x):
        h, w = x.shape[-2:]
        top = (self.max_size - h) // 2
        left = (self.max_size - w) // 2
        crop = self.table[:, top:top + h, left:left + w, :]
        return x.permute(0, 2, 3, 1) + crop


def make_model():
    torch.manual_seed(0)
    return CenteredTable()


def example_inputs():
    return (torch.randn(2, 8, 6, 10),)


def probe_inputs():
    return [(torch.randn(1, 8, 7, 9),), (torch.randn(3, 8, 13, 4),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
