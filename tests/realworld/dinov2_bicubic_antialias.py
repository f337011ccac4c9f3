"""DINOv2 export: `torch.nn.functional.interpolate(x, size=(height * 2, width * 2), mode="bicubic",
align_corners=False, antialias=True)` exports, but the ONNX Resize output differs from eager by a large
margin (antialiased bicubic is not op.Resize compatible).

Source: https://github.com/pytorch/pytorch/issues/157220
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-1"


class Inerpolate(torch.nn.Module):
    def forward(self, x):
        _, _, height, width, = x.shape
        return torch.nn.functional.interpolate(
                x,
                size=(height * 2, width * 2),
                mode="bicubic",
                align_corners=False,
                antialias=True,
            )


def make_model():
    return Inerpolate()


def example_inputs():
    return (torch.rand(1, 3, 24, 24),)


def other_inputs():
    return [(torch.rand(2, 3, 16, 20),), (torch.rand(1, 3, 31, 12),)]


def probe_inputs():
    return other_inputs()
