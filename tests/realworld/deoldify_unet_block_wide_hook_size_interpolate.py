"""DeOldify colorization generator (fastai DynamicUnet with DeOldify's `UnetBlockWide`): each decoder block
reads the encoder feature stored by a forward hook (`s = self.hook.stored`), pixel-shuffles the decoder
input and, `if ssh != up_out.shape[-2:]`, resizes it with `F.interpolate(up_out, s.shape[-2:])` before the
concat. The exported ONNX model's results are "completely different" from PyTorch; the report suspects the
size-based conditional interpolation.

Source: https://github.com/jantic/DeOldify/issues/166
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-19"


class Hook:
    "Create a hook on `m` with `hook_func`."

    def __init__(self, m):
        self.stored = None
        self.hook = m.register_forward_hook(self.hook_fn)

    def hook_fn(self, module, input, output):
        self.stored = output


class CustomPixelShuffle_ICNR(nn.Module):
    "Upsample by `scale` from `ni` filters to `nf` (default `ni`), using `nn.PixelShuffle`."

    def __init__(self, ni, nf=None, scale=2, leaky=None):
        super().__init__()
        nf = ni if nf is None else nf
        self.conv = nn.Conv2d(ni, nf * (scale ** 2), 1)
        self.shuf = nn.PixelShuffle(scale)
        self.relu = nn.LeakyReLU(leaky) if leaky is not None else nn.ReLU()

    def forward(self, x):
        return self.shuf(self.relu(self.conv(x)))


class UnetBlockWide(nn.Module):
    "A quasi-UNet block, using `PixelShuffle_ICNR upsampling`."

    def __init__(self, up_in_c, x_in_c, n_out, hook, leaky=None):
        super().__init__()
        self.hook = hook
        up_out = x_out = n_out // 2
        self.shuf = CustomPixelShuffle_ICNR(up_in_c, up_out, leaky=leaky)
        self.bn = nn.BatchNorm2d(x_in_c)
        ni = up_out + x_in_c
        self.conv = nn.Sequential(nn.Conv2d(ni, x_out, 3, padding=1), nn.ReLU())
        self.relu = nn.ReLU()

    def forward(self, up_in: Tensor) -> Tensor:
        s = self.hook.stored
        up_out = self.shuf(up_in)
        ssh = s.shape[-2:]
        if ssh != up_out.shape[-2:]:
            up_out = F.interpolate(up_out, s.shape[-2:], mode='nearest')
        cat_x = self.relu(torch.cat([up_out, self.bn(s)], dim=1))
        return self.conv(cat_x)


class DynamicUnetWide(nn.Module):
    def __init__(self, n_classes=3, nf=32):
        super().__init__()
        conv = lambda i, o: nn.Sequential(nn.Conv2d(i, o, 3, stride=2, padding=1), nn.BatchNorm2d(o), nn.ReLU())
        self.enc = nn.ModuleList([conv(3, 8), conv(8, 16), conv(16, 32), conv(32, 64)])
        self.hooks = [Hook(m) for m in self.enc[:-1]]
        self.middle = nn.Sequential(nn.Conv2d(64, 64, 3, padding=1), nn.ReLU())
        self.dec = nn.ModuleList([
            UnetBlockWide(64, 32, nf, self.hooks[2]),
            UnetBlockWide(nf // 2, 16, nf, self.hooks[1]),
            UnetBlockWide(nf // 2, 8, nf, self.hooks[0]),
        ])
        self.final = CustomPixelShuffle_ICNR(nf // 2, n_classes)

    def forward(self, x):
        for layer in self.enc:
            x = layer(x)
        x = self.middle(x)
        for block in self.dec:
            x = block(x)
        return self.final(x)


def make_model():
    return DynamicUnetWide().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(2, 3, 72, 50),), (torch.randn(1, 3, 45, 80),)]


def probe_inputs():
    return other_inputs()
