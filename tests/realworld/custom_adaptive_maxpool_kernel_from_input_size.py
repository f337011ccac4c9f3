"""Global max pooling written as `nn.functional.max_pool2d(input=x, kernel_size=(size1, size2))`
with the kernel taken from `x.size()` (the reporter's `custom_AdaptiveMaxPool2d`, a stand-in for
AdaptiveMaxPool2d), inside a small conv classifier. ONNX MaxPool needs a constant kernel_shape,
so the kernel computed from the input's spatial size does not export for a variable image size.

Source: https://github.com/pytorch/pytorch/issues/35743
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-41"


class custom_AdaptiveMaxPool2d(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        inp_size = x.size()
        size1=inp_size[2]
        size2=inp_size[3]
        return nn.functional.max_pool2d(input=x,
                  kernel_size= (size1, size2))


class Network(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
        )
        self.pool = custom_AdaptiveMaxPool2d()
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


def make_model():
    return Network().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 48, 40),), (torch.randn(1, 3, 24, 56),)]


def probe_inputs():
    return other_inputs()
