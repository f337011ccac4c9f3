"""A keypoint head that picks local maxima of its score heatmap and returns their coordinates with
`torch.argwhere`. The TorchScript exporter has no symbolic for it ("Exporting the operator
'aten::argwhere' to ONNX ... is not supported"); the reporter, told ONNX has no argwhere, replaced it
with NonZero + transpose.

Source: https://github.com/onnx/onnx/issues/4368
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feats": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-35"


class HeatmapPeaks(nn.Module):
    def __init__(self, channels=8, threshold=0.6):
        super().__init__()
        self.score = nn.Conv2d(channels, 1, 3, padding=1)
        self.threshold = threshold

    def forward(self, feats):
        scores = torch.sigmoid(self.score(feats))
        local_max = F.max_pool2d(scores, kernel_size=3, stride=1, padding=1)
        keep = (scores == local_max) & (scores > self.threshold)
        coords = torch.argwhere(keep)  # (num_peaks, 4): batch, channel, y, x
        peak_scores = scores[coords[:, 0], coords[:, 1], coords[:, 2], coords[:, 3]]
        return coords, peak_scores


def make_model():
    return HeatmapPeaks().eval()


def example_inputs():
    return (torch.randn(2, 8, 24, 32),)


def other_inputs():
    return [(torch.randn(3, 8, 20, 28),), (torch.randn(1, 8, 32, 16),)]


def probe_inputs():
    return other_inputs()
