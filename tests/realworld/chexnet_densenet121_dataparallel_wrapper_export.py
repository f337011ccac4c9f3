"""CheXNet-style DenseNet-121 classifier trained with `model = nn.DataParallel(model)` and exported as is:
`torch.onnx.export(model, dummy_input, "test.onnx")` on the DataParallel wrapper fails (the report hit
"untraced buffer"; today's legacy exporter refuses the wrapper outright and asks for `model.module`).

Source: https://github.com/pytorch/pytorch/issues/5315
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "exporter-defaults"
FAMILY = "operators"
DYNAMIC = {"inputs": {0: "batch"}}
BLIND = "domains-85"


class _DenseLayer(nn.Sequential):
    def __init__(self, num_input_features, growth_rate, bn_size):
        super().__init__()
        self.add_module("norm1", nn.BatchNorm2d(num_input_features))
        self.add_module("relu1", nn.ReLU(inplace=True))
        self.add_module("conv1", nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False))
        self.add_module("norm2", nn.BatchNorm2d(bn_size * growth_rate))
        self.add_module("relu2", nn.ReLU(inplace=True))
        self.add_module("conv2", nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False))

    def forward(self, x):
        new_features = super().forward(x)
        return torch.cat([x, new_features], 1)


class DenseNet(nn.Module):
    """densenet121 trimmed to one dense block and a transition (torchvision layout)."""

    def __init__(self, growth_rate=8, num_init_features=16, bn_size=4, num_layers=3, num_classes=14):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False),
            nn.BatchNorm2d(num_init_features),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
        )
        num_features = num_init_features
        for i in range(num_layers):
            self.features.add_module("denselayer%d" % (i + 1), _DenseLayer(num_features, growth_rate, bn_size))
            num_features += growth_rate
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)

    def forward(self, x):
        features = self.features(x)
        out = F.relu(features, inplace=True)
        out = F.adaptive_avg_pool2d(out, (1, 1)).view(features.size(0), -1)
        out = self.classifier(out)
        return out


def make_model():
    model = DenseNet()
    model = nn.DataParallel(model)   # as in the training script; the wrapper is what gets exported
    return model.eval()


def example_inputs():
    return (torch.randn(10, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
