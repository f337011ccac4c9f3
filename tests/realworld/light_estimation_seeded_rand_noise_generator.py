"""Light-estimation image model that adds seeded uniform noise to its input inside forward:
`noise = torch.rand(img.shape, generator=generator, dtype=img.dtype, device=img.device)`; the reporter wants
the export to keep the seed, and export_model.py fails with a traceback in torch.onnx.export (the `generator=`
argument of torch.rand has no ONNX export).

Source: https://github.com/pytorch/pytorch/issues/156811
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-33"


class LightEstimator(nn.Module):
    def __init__(self, seed=1234, noise_level=0.02):
        super().__init__()
        self.seed = seed
        self.noise_level = noise_level
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(32, 9)  # e.g. 2nd-order SH lighting coefficients

    def forward(self, img):
        generator = torch.Generator(device=img.device)
        generator.manual_seed(self.seed)
        noise = torch.rand(img.shape, generator=generator, dtype=img.dtype, device=img.device)
        img = img + self.noise_level * (noise - 0.5)
        feat = self.encoder(img).flatten(1)
        return self.head(feat)


def make_model():
    return LightEstimator().eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(3, 3, 48, 80),), (torch.rand(1, 3, 96, 32),)]


def probe_inputs():
    return other_inputs()
