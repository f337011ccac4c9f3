"""pytorch-YOLOv4 `Darknet` built from a tiny cfg: every `[maxpool] size=2 stride=2` (and the `size=2 stride=1`
one of yolov3-tiny) becomes `MaxPoolDark`, whose forward picks its replicate padding with a Python branch on
`x.shape[2]` / `x.shape[3]` parity (darknet's `(input + p - k) / s + 1` rule); the "Preparing for ONNX compatible
YOLO layer" commit builds a plain `nn.MaxPool2d` for `stride == pool_size` instead ("here is convenient to convert
onnx"), since the traced branch freezes the padding of the export-time image size.

Source: https://github.com/Tianxiaomo/pytorch-YOLOv4/commit/26bd44786ba68f49f04de873da1babaca7f0bbfd
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-63"


class MaxPoolDark(nn.Module):
    def __init__(self, size=2, stride=1):
        super(MaxPoolDark, self).__init__()
        self.size = size
        self.stride = stride

    def forward(self, x):
        '''
        darknet output_size = (input_size + p - k) / s +1
        p : padding = k - 1
        k : size
        s : stride
        torch output_size = (input_size + 2*p -k) / s +1
        p : padding = k//2
        '''
        p = self.size // 2
        if ((x.shape[2] - 1) // self.stride) != ((x.shape[2] + 2 * p - self.size) // self.stride):
            padding1 = (self.size - 1) // 2
            padding2 = padding1 + 1
        else:
            padding1 = (self.size - 1) // 2
            padding2 = padding1
        if ((x.shape[3] - 1) // self.stride) != ((x.shape[3] + 2 * p - self.size) // self.stride):
            padding3 = (self.size - 1) // 2
            padding4 = padding3 + 1
        else:
            padding3 = (self.size - 1) // 2
            padding4 = padding3
        x = F.max_pool2d(F.pad(x, (padding3, padding4, padding1, padding2), mode='replicate'),
                         self.size, stride=self.stride)
        return x


def conv_bn_leaky(cin, cout, k=3):
    return nn.Sequential(nn.Conv2d(cin, cout, k, 1, k // 2, bias=False), nn.BatchNorm2d(cout),
                         nn.LeakyReLU(0.1, inplace=True))


class TinyDarknet(nn.Module):
    """[convolutional] / [maxpool] stack of a yolov3-tiny style cfg, as `create_network` builds it."""

    def __init__(self):
        super().__init__()
        blocks = [(3, 16, 2, 2), (16, 32, 2, 2), (32, 64, 2, 1)]  # (in, out, pool size, pool stride)
        models = []
        for cin, cout, pool_size, stride in blocks:
            models.append(conv_bn_leaky(cin, cout))
            if stride == 1 and pool_size % 2:
                # You can use Maxpooldark instead, here is convenient to convert onnx.
                model = nn.MaxPool2d(kernel_size=pool_size, stride=stride, padding=pool_size // 2)
            else:
                model = MaxPoolDark(pool_size, stride)
            models.append(model)
        models.append(nn.Conv2d(64, 3 * (5 + 4), 1))
        self.models = nn.ModuleList(models)

    def forward(self, x):
        for m in self.models:
            x = m(x)
        return x


def make_model():
    return TinyDarknet().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 50, 38),), (torch.randn(3, 3, 45, 72),)]


def probe_inputs():
    return other_inputs()
