"""EEG sleep-staging feature extractor (multi-scale CNN front end) whose custom
`find_extrema_3d_corrected` flattens the (batch, epochs, 1, samples) signal and takes
`diff = torch.diff(data_flat, dim=1)` to locate local extrema; torch.onnx.export stops with
"Exporting the operator diff to ONNX opset version 11 is not supported" (first of three operator
errors in the write-up). Only the diff line is quoted in the article; the extrema mask built from
the sign of the differences and the small CNN after it are my reconstruction.

Source: https://jishuzhan.net/article/2060301632897888258
"""
import torch
from torch import nn
import torch.nn.functional as F_

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x1": {0: "batch", 1: "epochs"}}
BLIND = "operators-4"


def find_extrema_3d_corrected(data, enhance_factor=10.0):
    B, E, C, F = data.shape
    data_flat = data.reshape(-1, F)
    diff = torch.diff(data_flat, dim=1)
    sign = torch.sign(diff)
    turn = sign[:, 1:] * sign[:, :-1] < 0  # slope changes sign -> local max / min
    extrema = F_.pad(turn.float(), (1, 1))
    enhanced = data_flat * (1.0 + enhance_factor * extrema)
    return enhanced.reshape(B, E, C, F)


class FeatureExtractor(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.conv_small = nn.Conv1d(1, 8, kernel_size=50, stride=6)
        self.conv_large = nn.Conv1d(1, 8, kernel_size=400, stride=50)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Linear(16, n_classes)

    def forward(self, x1):
        B, E, C, F = x1.shape
        x = find_extrema_3d_corrected(x1).reshape(B * E, C, F)
        a = self.pool(F_.relu(self.conv_small(x))).flatten(1)
        b = self.pool(F_.relu(self.conv_large(x))).flatten(1)
        return self.head(torch.cat([a, b], dim=1)).reshape(B, E, -1)


def make_model():
    return FeatureExtractor().eval()


def example_inputs():
    return (torch.randn(1, 20, 1, 3000),)


def other_inputs():
    return [(torch.randn(2, 7, 1, 3000),), (torch.randn(3, 11, 1, 3000),)]


def probe_inputs():
    return other_inputs()
