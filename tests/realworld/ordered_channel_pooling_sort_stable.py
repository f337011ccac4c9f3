"""1-D conv classifier with an ordered-statistics pooling step that sorts the channel responses of each
frame with `torch.sort(a, dim=1, descending=True, stable=True).values`; the report says
torch.onnx.export(..., dynamo=True) fails with "DispatchError: No ONNX function found for
<OpOverload(op='aten.sort', overload='stable')>" because only the plain aten::sort overload is registered.

Source: https://github.com/microsoft/onnxscript/pull/3053
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "frames"}}
BLIND = "operators-8"


class OrderedPoolingClassifier(nn.Module):
    def __init__(self, in_channels=8, channels=16, keep=4, num_classes=5):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(in_channels, channels, 3, padding=1), nn.BatchNorm1d(channels), nn.ReLU(),
            nn.Conv1d(channels, channels, 3, padding=1), nn.ReLU(),
        )
        self.keep = keep
        self.head = nn.Linear(keep, num_classes)

    def forward(self, x):
        a = self.conv(x)                                             # (B, C, T)
        ordered = torch.sort(a, dim=1, descending=True, stable=True).values
        top = ordered[:, : self.keep]                                # k largest channel responses per frame
        pooled = top.mean(dim=2)                                     # (B, keep)
        return self.head(pooled)


def make_model():
    return OrderedPoolingClassifier().eval()


def example_inputs():
    return (torch.randn(5, 8, 12),)


def other_inputs():
    return [(torch.randn(2, 8, 30),), (torch.randn(7, 8, 5),)]


def probe_inputs():
    return other_inputs()
