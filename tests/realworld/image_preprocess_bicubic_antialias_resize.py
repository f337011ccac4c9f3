"""An image-classification wrapper resizes its input inside forward with
`F.interpolate(..., mode="bicubic", antialias=True)` (the torchvision-style anti-aliased resize); the
TorchScript exporter has no symbolic for `aten::_upsample_bicubic2d_aa` at any opset ("Exporting the
operator 'aten::_upsample_bicubic2d_aa' to ONNX opset version 16 is not supported").

Source: https://github.com/pytorch/pytorch/issues/119232
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-13"


class ResizeNormalizeClassifier(nn.Module):
    def __init__(self, image_size=64, num_classes=10):
        super().__init__()
        self.image_size = image_size
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.interpolate(x, size=(self.image_size, self.image_size), mode="bicubic",
                          align_corners=False, antialias=True)
        x = (x - self.mean) / self.std
        x = self.features(x).flatten(1)
        return self.fc(x)


def make_model():
    return ResizeNormalizeClassifier().eval()


def example_inputs():
    return (torch.rand(2, 3, 120, 160),)


def other_inputs():
    return [(torch.rand(1, 3, 96, 128),), (torch.rand(3, 3, 200, 150),)]


def probe_inputs():
    return other_inputs()
