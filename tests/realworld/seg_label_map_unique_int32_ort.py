"""Segmentation post-processing that lists the class ids present in an int32 label map with
torch.unique: the exported ONNX Unique node gets an int32 input, and onnxruntime only registers Unique
for int64/int8/float/string, so the session fails with "NOT_IMPLEMENTED : Could not find an
implementation for Unique(11) node".

Source: https://github.com/microsoft/onnxruntime/issues/16546
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"logits": {0: "height", 1: "width"}}
BLIND = "operators-9"


class PresentClasses(nn.Module):
    def forward(self, logits):
        label_map = logits.argmax(-1).to(torch.int32)
        present = torch.unique(label_map)
        return present


def make_model():
    return PresentClasses().eval()


def example_inputs():
    return (torch.randn(16, 20, 6),)


def other_inputs():
    return [(torch.randn(24, 12, 6),), (torch.randn(9, 31, 6),)]


def probe_inputs():
    return other_inputs()
