"""ONX614 on MONAI's UpCat (BasicUNet, `is_pad=True`): after a 2x max-pool of an odd edge the
upsampled map is one short, and `if x_e.shape[-i - 1] != x_0.shape[-i - 1]: sp[i * 2 + 1] = 1`
builds the pad list one item per spatial dim. torch.export keeps the example's branch (the
exported model fails in onnxruntime's Concat for an edge of the other parity); the item becomes
`_onnx_size_select(...)`, the same `if` in eager and sym_ite under torch.export. The legacy
exporter still records the branch taken (the test on traced sizes)."""
import torch
import torch.nn.functional as F
from torch import nn


class UpCat(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.MaxPool2d(2)
        self.up = nn.ConvTranspose2d(4, 4, kernel_size=2, stride=2)
        self.conv = nn.Conv2d(8, 2, 3, padding=1)

    def forward(self, x_e: torch.Tensor):
        x_0 = self.up(self.down(x_e))
        dimensions = len(x_e.shape) - 2
        sp = [0] * (dimensions * 2)
        for i in range(dimensions):
            if x_e.shape[-i - 1] != x_0.shape[-i - 1]:
                sp[i * 2 + 1] = 1
        x_0 = F.pad(x_0, sp, "replicate")
        return self.conv(torch.cat([x_e, x_0], dim=1))


def make_model():
    torch.manual_seed(0)
    return UpCat()


def example_inputs():
    return (torch.randn(1, 4, 16, 12),)


def probe_inputs():
    return [(torch.randn(2, 4, 15, 13),), (torch.randn(1, 4, 9, 10),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
