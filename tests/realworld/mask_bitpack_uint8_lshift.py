"""Binary segmentation masks packed eight-per-byte with uint8 shifts (`bits[:, i] << (7 - i)` OR-ed
together), the PyTorch-exporter use the report names: ONNX BitShift takes only unsigned types, PyTorch's
only unsigned type is uint8, and onnxruntime had no uint8 BitShift kernel, so `x << n` on uint8 tensors
could not be exported/run without a workaround subgraph.

Source: https://github.com/microsoft/onnxruntime/issues/2207
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"logits": {0: "batch", 2: "height"}}
BLIND = "operators-11"


class MaskBitPacker(nn.Module):
    """Thresholds per-pixel logits and packs the resulting 0/1 mask into bytes along the width."""

    def __init__(self, threshold: float = 0.0):
        super().__init__()
        self.threshold = threshold

    def forward(self, logits):
        # logits: (batch, 1, H, W) with W divisible by 8
        b, _, h, w = logits.shape
        bits = (logits > self.threshold).to(torch.uint8)
        bits = bits.view(b, h, w // 8, 8)
        packed = bits[..., 0] << 7
        for i in range(1, 8):
            packed = packed | (bits[..., i] << (7 - i))
        return packed


def make_model():
    return MaskBitPacker()


def example_inputs():
    return (torch.randn(2, 1, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 1, 24, 32),), (torch.randn(1, 1, 9, 32),)]


def probe_inputs():
    return other_inputs()
