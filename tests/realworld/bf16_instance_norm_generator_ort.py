"""Image-to-image CNN generator (the InstanceNorm residual blocks of style-transfer / Stable Diffusion style
networks) run in bfloat16: the exported graph carries bfloat16 InstanceNormalization, and ONNX Runtime rejects it
("Type 'tensor(bfloat16)' of input parameter of operator (InstanceNormalization) is invalid") because no bf16 kernel
exists for it.

Source: https://github.com/microsoft/onnxruntime/issues/20051
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-21"


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.block = nn.Sequential(
            nn.ReflectionPad2d(1),
            nn.Conv2d(channels, channels, 3),
            nn.InstanceNorm2d(channels, affine=True),
            nn.ReLU(inplace=True),
            nn.ReflectionPad2d(1),
            nn.Conv2d(channels, channels, 3),
            nn.InstanceNorm2d(channels, affine=True),
        )

    def forward(self, x):
        return x + self.block(x)


class Generator(nn.Module):
    def __init__(self, ngf=16, n_blocks=2):
        super().__init__()
        self.head = nn.Sequential(nn.ReflectionPad2d(3), nn.Conv2d(3, ngf, 7),
                                  nn.InstanceNorm2d(ngf, affine=True), nn.ReLU(inplace=True))
        self.blocks = nn.Sequential(*[ResidualBlock(ngf) for _ in range(n_blocks)])
        self.tail = nn.Sequential(nn.ReflectionPad2d(3), nn.Conv2d(ngf, 3, 7), nn.Tanh())

    def forward(self, x):
        return self.tail(self.blocks(self.head(x)))


def make_model():
    return Generator().eval().to(torch.bfloat16)


def example_inputs():
    return (torch.randn(1, 3, 32, 32, dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.randn(2, 3, 40, 24, dtype=torch.bfloat16),), (torch.randn(3, 3, 16, 48, dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
