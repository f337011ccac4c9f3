"""Auto-exposure feature head that histograms image luminance with `torch.histc(luma, bins=16)`, leaving `min`/`max`
at their defaults (0, 0), i.e. the bins span the data's own min..max. torchlib's new `aten::histc` converter only
handles a fixed range: it raises "aten_histc with min == max (0.0) is not supported in this export path", so the
dynamo export fails; the TorchScript exporter has no `aten::histc` symbolic.

Source: https://github.com/microsoft/onnxscript/pull/2796
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "operators-44"


class ExposureHistogramHead(nn.Module):
    def __init__(self, bins=16):
        super().__init__()
        self.bins = bins
        self.register_buffer("rgb_weights", torch.tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1))
        self.fc = nn.Linear(bins, 3)

    def forward(self, img):
        luma = (img * self.rgb_weights).sum(dim=1)
        hist = torch.histc(luma, bins=self.bins)
        hist = hist / luma.numel()
        return self.fc(hist)


def make_model():
    return ExposureHistogramHead().eval()


def example_inputs():
    return (torch.rand(1, 3, 48, 64),)


def other_inputs():
    return [(torch.rand(1, 3, 72, 40) * 0.5,), (torch.rand(1, 3, 33, 91) ** 2,)]


def probe_inputs():
    return other_inputs()
