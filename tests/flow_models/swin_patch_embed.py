"""ONX601 with a configuration divisor and sizes passed through a cycle of names: Swin's patch
embedding pads the image to a multiple of `self.patch_size[i]` (a pair made from the parameter, as
timm does) under `if W % self.patch_size[1] != 0:`, and its patch merging pads odd sizes under
`if pad_input:`, with H and W handed over as `H, W = Wh, Ww` and rebound after the call. Exported
with a dynamic image size, each branch taken at export time is kept. The pads run always, by
`(k - W % k) % k` (safe for any non-zero k: `W % k != 0` then holds exactly where the
original pads, by the same amount) and by `W % 2` (safe)."""
import torch
import torch.nn.functional as F
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=4, embed_dim=8):
        super().__init__()
        patch_size = (patch_size, patch_size)
        self.patch_size = patch_size
        self.proj = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        _, _, H, W = x.size()
        if W % self.patch_size[1] != 0:
            x = F.pad(x, (0, self.patch_size[1] - W % self.patch_size[1]))
        if H % self.patch_size[0] != 0:
            x = F.pad(x, (0, 0, 0, self.patch_size[0] - H % self.patch_size[0]))
        return self.proj(x)


class PatchMerging(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x, H, W):
        B, L, C = x.shape
        x = x.view(B, H, W, C)
        pad_input = (H % 2 == 1) or (W % 2 == 1)
        if pad_input:
            x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
        x = torch.cat([x[:, 0::2, 0::2, :], x[:, 1::2, 0::2, :], x[:, 0::2, 1::2, :], x[:, 1::2, 1::2, :]], -1)
        return self.reduction(x.view(B, -1, 4 * C))


class SwinStem(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embed = PatchEmbed()
        self.downsample = PatchMerging()

    def forward(self, x):
        x = self.patch_embed(x)
        Wh, Ww = x.size(2), x.size(3)
        x = x.flatten(2).transpose(1, 2)
        H, W = Wh, Ww
        x_down = self.downsample(x, H, W)
        Wh, Ww = (H + 1) // 2, (W + 1) // 2
        return x_down.view(-1, Wh, Ww, 16)


def make_model():
    torch.manual_seed(0)
    return SwinStem()


def example_inputs():
    return (torch.randn(1, 3, 32, 32),)


def probe_inputs():
    return [(torch.randn(2, 3, 30, 42),), (torch.randn(1, 3, 20, 28),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
