"""fastai (v1) DynamicUnet segmentation model exported with dynamic height/width: each UnetBlock reads
the encoder feature from a forward hook (`s = self.hook.stored`) and only resizes the upsampled map
`if ssh != up_out.shape[-2:]`; exported from a 512x512 input, onnxruntime fails in a Concat node
("Non concat axis dimensions must match") as soon as width and height differ.

Source: https://github.com/onnx/onnx/issues/5134
"""
import torch
from torch import nn, Tensor
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-13"


class Hook():
    "Create a hook on `m` with `hook_func`."
    def __init__(self, m: nn.Module, hook_func, is_forward: bool = True, detach: bool = True):
        self.hook_func, self.detach, self.stored = hook_func, detach, None
        f = m.register_forward_hook if is_forward else m.register_backward_hook
        self.hook = f(self.hook_fn)

    def hook_fn(self, module: nn.Module, input, output):
        "Applies `hook_func` to `module`, `input`, `output`."
        if self.detach:
            input = (o.detach() for o in input) if isinstance(input, (tuple, list)) else input.detach()
            output = (o.detach() for o in output) if isinstance(output, (tuple, list)) else output.detach()
        self.stored = self.hook_func(module, input, output)


def _hook_inner(m, i, o): return o if isinstance(o, Tensor) else list(o)


def conv_layer(ni: int, nf: int, ks: int = 3, stride: int = 1):
    return nn.Sequential(nn.Conv2d(ni, nf, ks, stride=stride, padding=ks // 2, bias=False),
                         nn.ReLU(inplace=True), nn.BatchNorm2d(nf))


class PixelShuffle_ICNR(nn.Module):
    "Upsample by `scale` from `ni` filters to `nf` (default `ni`), using `nn.PixelShuffle`."
    def __init__(self, ni: int, nf: int = None, scale: int = 2):
        super().__init__()
        nf = ni if nf is None else nf
        self.conv = conv_layer(ni, nf * (scale ** 2), ks=1)
        self.shuf = nn.PixelShuffle(scale)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu(self.shuf(self.conv(x)))


class UnetBlock(nn.Module):
    "A quasi-UNet block, using `PixelShuffle_ICNR upsampling`."
    def __init__(self, up_in_c: int, x_in_c: int, hook: Hook, final_div: bool = True):
        super().__init__()
        self.hook = hook
        self.shuf = PixelShuffle_ICNR(up_in_c, up_in_c // 2)
        self.bn = nn.BatchNorm2d(x_in_c)
        ni = up_in_c // 2 + x_in_c
        nf = ni if final_div else ni // 2
        self.conv1 = conv_layer(ni, nf)
        self.conv2 = conv_layer(nf, nf)
        self.relu = nn.ReLU()

    def forward(self, up_in: Tensor) -> Tensor:
        s = self.hook.stored
        up_out = self.shuf(up_in)
        ssh = s.shape[-2:]
        if ssh != up_out.shape[-2:]:
            up_out = F.interpolate(up_out, s.shape[-2:], mode='nearest')
        cat_x = self.relu(torch.cat([up_out, self.bn(s)], dim=1))
        return self.conv2(self.conv1(cat_x))


class DynamicUnet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.encoder = nn.Sequential(conv_layer(3, 8, stride=2), conv_layer(8, 16, stride=2),
                                     conv_layer(16, 32, stride=2), conv_layer(32, 32, stride=2))
        self.sfs = [Hook(self.encoder[i], _hook_inner, detach=False) for i in (2, 1, 0)]
        self.middle_conv = conv_layer(32, 32)
        self.blocks = nn.ModuleList([UnetBlock(32, 32, self.sfs[0]), UnetBlock(48, 16, self.sfs[1]),
                                     UnetBlock(40, 8, self.sfs[2], final_div=False)])
        self.final_shuf = PixelShuffle_ICNR(14)
        self.head = nn.Conv2d(14, n_classes, 1)

    def forward(self, x):
        out = self.middle_conv(self.encoder(x))
        for block in self.blocks:
            out = block(out)
        return self.head(self.final_shuf(out))


def make_model():
    return DynamicUnet().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 64, 90),), (torch.randn(1, 3, 50, 72),)]


def probe_inputs():
    return other_inputs()
