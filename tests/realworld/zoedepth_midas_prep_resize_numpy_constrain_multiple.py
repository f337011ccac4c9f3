"""ZoeDepth exported to ONNX: MidasCore's `PrepForMidas` resizes every input with `Resize.get_size`, which keeps
the aspect ratio and rounds the new size to a multiple of 32 in NumPy
(`(np.round(x / self.__multiple_of) * self.__multiple_of).astype(int)`), then `F.interpolate(x, (height, width))`;
the export warns and does not work until those "tensor and np convertor" functions are changed.
(MiDaS backbone and the metric bins head reduced to a few convs; torchvision Normalize written inline; the
metric depth returned as a tensor.)

Source: https://github.com/isl-org/ZoeDepth/issues/25
"""
import numpy as np
import torch
import torch.nn as nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-25"


class Resize(object):
    def __init__(self, width, height, keep_aspect_ratio=False, ensure_multiple_of=1, resize_method="lower_bound"):
        self.__width = width
        self.__height = height
        self.__keep_aspect_ratio = keep_aspect_ratio
        self.__multiple_of = ensure_multiple_of
        self.__resize_method = resize_method

    def constrain_to_multiple_of(self, x, min_val=0, max_val=None):
        y = (np.round(x / self.__multiple_of) * self.__multiple_of).astype(int)
        if max_val is not None and y > max_val:
            y = (np.floor(x / self.__multiple_of) * self.__multiple_of).astype(int)
        if y < min_val:
            y = (np.ceil(x / self.__multiple_of) * self.__multiple_of).astype(int)
        return y

    def get_size(self, width, height):
        scale_height = self.__height / height
        scale_width = self.__width / width
        if self.__keep_aspect_ratio:
            if self.__resize_method == "minimal":
                # scale as least as possbile
                if abs(1 - scale_width) < abs(1 - scale_height):
                    scale_height = scale_width
                else:
                    scale_width = scale_height
        new_height = self.constrain_to_multiple_of(scale_height * height)
        new_width = self.constrain_to_multiple_of(scale_width * width)
        return (new_width, new_height)

    def __call__(self, x):
        width, height = self.get_size(*x.shape[-2:][::-1])
        height = int(height)
        width = int(width)
        return nn.functional.interpolate(x, (height, width), mode='bilinear', align_corners=True)


class PrepForMidas(object):
    def __init__(self, resize_mode="minimal", keep_aspect_ratio=True, img_size=384, do_resize=True):
        if isinstance(img_size, int):
            img_size = (img_size, img_size)
        net_h, net_w = img_size
        self.mean = torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1)
        self.std = torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1)
        self.resizer = Resize(net_w, net_h, keep_aspect_ratio=keep_aspect_ratio, ensure_multiple_of=32,
                              resize_method=resize_mode) if do_resize else nn.Identity()

    def __call__(self, x):
        return (self.resizer(x) - self.mean) / self.std


class ZoeDepthLite(nn.Module):
    def __init__(self, img_size=(96, 128), min_depth=1e-3, max_depth=10.0):
        super().__init__()
        self.prep = PrepForMidas(keep_aspect_ratio=True, img_size=img_size)
        self.core = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                                  nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True))
        self.bins = nn.Conv2d(16, 8, 1)
        self.register_buffer("centers", torch.linspace(min_depth, max_depth, 8).view(1, 8, 1, 1))

    def forward(self, x):
        with torch.no_grad():
            x = self.prep(x)
        feat = self.core(x)
        probs = self.bins(feat).softmax(dim=1)
        return torch.sum(probs * self.centers, dim=1, keepdim=True)


def make_model():
    return ZoeDepthLite().eval()


def example_inputs():
    return (torch.rand(1, 3, 120, 160),)


def other_inputs():
    return [(torch.rand(1, 3, 200, 150),), (torch.rand(1, 3, 90, 300),)]


def probe_inputs():
    return other_inputs()
