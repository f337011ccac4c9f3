"""A detection head returning its per-level results as lists beside lists left empty when an
optional branch is off, and a label string (AdelaiDet's FCOS head, a classifier's decoded label):
the legacy exporter assigns output shapes past the graph's outputs ("ArrayRef: invalid index"),
since an empty list or a string has no graph value. Flattened at the boundary, the ONNX model
returns the tensors, compared with eager's in order."""
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.levels = nn.ModuleList([nn.Conv2d(3, 4, 3, padding=1) for _ in range(2)])

    def forward(self, image, towers=None):
        logits, extra = [], []
        for level, conv in enumerate(self.levels):
            feature = conv(image[..., ::level + 1, ::level + 1])
            logits.append(feature)
            if towers is not None:
                extra.append(towers(feature))
        return logits, extra, "boxes"


def make_model():
    torch.manual_seed(0)
    return Head().eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(1, 3, 16, 20),)


def probe_inputs():
    torch.manual_seed(2)
    return [(torch.randn(2, 3, 12, 18),)]
