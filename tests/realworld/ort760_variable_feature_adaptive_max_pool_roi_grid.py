"""A head that pools a variable-size feature map to a fixed 7x7 grid with nn.AdaptiveMaxPool2d (the
whole-image RoI-pooling case): "Adaptive pooling is necessary when the feature size could vary but the output
size is fixed"; the exporter only handled output_size=[1, 1] (GlobalMaxPool), and the reporter asks whether the
roi_pooling path could cover it (a single RoI over the entire image).

Source: https://github.com/microsoft/onnxruntime/issues/760
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-62"


class PooledHead(nn.Module):
    def __init__(self, in_ch=3, ch=16, out_size=(7, 7), num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_ch, ch, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(ch, ch, 3, stride=2, padding=1),
            nn.ReLU(inplace=True),
        )
        self.pool = nn.AdaptiveMaxPool2d(out_size)
        self.fc = nn.Linear(ch * out_size[0] * out_size[1], num_classes)

    def forward(self, x):
        f = self.features(x)
        p = self.pool(f)
        return self.fc(p.flatten(1))


def make_model():
    return PooledHead().eval()


def example_inputs():
    return (torch.randn(2, 3, 40, 52),)


def other_inputs():
    return [(torch.randn(3, 3, 36, 64),), (torch.randn(1, 3, 58, 30),)]


def probe_inputs():
    return other_inputs()
