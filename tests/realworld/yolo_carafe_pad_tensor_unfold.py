"""YOLO11 segmentation neck with a CARAFE upsampler (content-aware reassembly): the kernel map is
pixel-shuffled and split with `Tensor.unfold`, and the features are zero-padded with `F.pad` then
windowed with `in_tensor.unfold(2, Kup, step=1).unfold(3, Kup, step=1)`; torch.onnx.export fails with
"Unsupported: ONNX export of operator Unfold, input size not accessible" on the unfold after the Pad.

Source: https://github.com/pytorch/pytorch/issues/158194
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"


class Conv(nn.Module):
    """Standard convolution (ultralytics): Conv2d + BatchNorm2d + SiLU."""

    def __init__(self, c1, c2, k=1, s=1, act=True):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU() if act else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class CARAFE(nn.Module):
    def __init__(self, inC, outC, Kencoder=3, delta=2, Kup=5, Cm=64):
        super(CARAFE, self).__init__()
        self.Kencoder = Kencoder
        self.delta = delta
        self.Kup = Kup
        self.down = nn.Conv2d(in_channels=inC, out_channels=Cm, kernel_size=1)
        self.encoder = nn.Conv2d(64, self.delta ** 2 * self.Kup ** 2,
                                 self.Kencoder, 1, self.Kencoder // 2)
        self.out = nn.Conv2d(inC, outC, 1)

    def forward(self, in_tensor):
        N, C, H, W = in_tensor.size()

        # N,C,H,W -> N,C,delta*H,delta*W
        # kernel prediction module
        kernel_tensor = self.down(in_tensor)  # (N, Cm, H, W)
        kernel_tensor = self.encoder(kernel_tensor)  # (N, delta^2 * Kup^2, H, W)
        kernel_tensor = F.pixel_shuffle(kernel_tensor, self.delta)  # (N, Kup^2, delta*H, delta*W)
        kernel_tensor = F.softmax(kernel_tensor, dim=1)  # (N, Kup^2, delta*H, delta*W)
        kernel_tensor = kernel_tensor.unfold(2, self.delta, step=self.delta)  # (N, Kup^2, H, W*delta, delta)
        kernel_tensor = kernel_tensor.unfold(3, self.delta, step=self.delta)  # (N, Kup^2, H, W, delta, delta)
        kernel_tensor = kernel_tensor.reshape(N, self.Kup ** 2, H, W, self.delta ** 2)  # (N, Kup^2, H, W, delta^2)
        kernel_tensor = kernel_tensor.permute(0, 2, 3, 1, 4)  # (N, H, W, Kup^2, delta^2)

        # content-aware reassembly module
        # tensor.unfold: dim, size, step
        in_tensor = F.pad(in_tensor, pad=(self.Kup // 2, self.Kup // 2,
                                          self.Kup // 2, self.Kup // 2),
                          mode='constant', value=0)  # (N, C, H+Kup//2+Kup//2, W+Kup//2+Kup//2)
        in_tensor = in_tensor.unfold(2, self.Kup, step=1)  # (N, C, H, W+Kup//2+Kup//2, Kup)
        in_tensor = in_tensor.unfold(3, self.Kup, step=1)  # (N, C, H, W, Kup, Kup)
        in_tensor = in_tensor.reshape(N, C, H, W, -1)  # (N, C, H, W, Kup^2)
        in_tensor = in_tensor.permute(0, 2, 3, 1, 4)  # (N, H, W, C, Kup^2)

        out_tensor = torch.matmul(in_tensor, kernel_tensor)  # (N, H, W, C, delta^2)
        out_tensor = out_tensor.reshape(N, H, W, -1)
        out_tensor = out_tensor.permute(0, 3, 1, 2)
        out_tensor = F.pixel_shuffle(out_tensor, self.delta)
        out_tensor = self.out(out_tensor)
        return out_tensor


class SegNeckUp(nn.Module):
    """P5 -> CARAFE x2 upsample -> concat with P4 -> C2f-like fuse (trimmed YOLO11-seg neck)."""

    def __init__(self, c5=64, c4=32):
        super().__init__()
        self.p4 = Conv(3, c4, 3, 2)
        self.p5 = Conv(c4, c5, 3, 2)
        self.up = CARAFE(c5, c5)
        self.fuse = Conv(c5 + c4, c4, 3)

    def forward(self, x):
        p4 = self.p4(x)
        p5 = self.p5(p4)
        return self.fuse(torch.cat([self.up(p5), p4], 1))


def make_model():
    return SegNeckUp().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(2, 3, 64, 32),), (torch.randn(3, 3, 40, 56),)]


def probe_inputs():
    return other_inputs()
