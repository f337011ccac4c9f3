"""ONX608 on MobileViT's resize to the patch multiple: `if orig_h % self.patch_h != 0 or orig_w %
self.patch_w != 0:` around `x = F.interpolate(x, size=(new_h, new_w), ...)` with each new size
rounded up to the multiple, then patches by reshapes. With the sizes dynamic, torch.export keeps the
export-time branch and the legacy exporter records it: an odd size is not resized, and the patch
reshape fails. Resized always (unsafe: the identity resize where the sizes are multiples, up to a
neighbour's inf or NaN)."""
import torch
import torch.nn.functional as F
from torch import nn


class MobileViTBlock(nn.Module):
    def __init__(self, patch=2):
        super().__init__()
        self.patch_h = self.patch_w = patch
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor):
        batch_size, in_channels, orig_h, orig_w = x.shape
        if orig_h % self.patch_h != 0 or orig_w % self.patch_w != 0:
            new_h = (orig_h + self.patch_h - 1) // self.patch_h * self.patch_h
            new_w = (orig_w + self.patch_w - 1) // self.patch_w * self.patch_w
            x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=True)
        y = self.conv(x)
        b, c, h, w = y.shape
        patches = y.reshape(b, c, h // self.patch_h, self.patch_h, w // self.patch_w, self.patch_w)
        return patches.mean(dim=(3, 5))


def make_model():
    torch.manual_seed(0)
    return MobileViTBlock()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 3, 8, 12),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(1, 3, 9, 7),), (torch.randn(3, 3, 10, 6),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
