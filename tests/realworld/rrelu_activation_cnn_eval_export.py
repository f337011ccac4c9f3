"""Small conv classifier using `nn.RReLU()` (randomized leaky ReLU) as its activation, exported in eval mode.
The PR "Add torch.nn.RReLU support in symbolic" ("Now we support exporting torch.nn.RReLU in onnx") adds the
missing export of RReLU; on torch 2.13 the dynamo exporter again has no ONNX function for the
`rrelu_with_noise` op that nn.RReLU lowers to, even in eval mode where it is a fixed leaky ReLU.

Source: https://github.com/pytorch/pytorch/pull/14781
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-33"


class RReLUNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, padding=1),
            nn.BatchNorm2d(16),
            nn.RReLU(),
            nn.Conv2d(16, 32, kernel_size=3, stride=2, padding=1),
            nn.BatchNorm2d(32),
            nn.RReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x).flatten(1)
        return self.fc(x)


def make_model():
    return RReLUNet().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(4, 3, 40, 24),), (torch.randn(1, 3, 17, 33),)]


def probe_inputs():
    return other_inputs()
