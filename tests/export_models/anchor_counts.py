"""super-gradients' PP-YOLOE head (commit c3d8323): anchors rebuilt from the feature maps' sizes,
and the count of each level, `len(anchors[-1])`, returned beside the tensors. The legacy trace
warns of the `len()` (a size it records, which sizes the stride tensor) and fails on the Python
ints among the outputs; dynamo specializes the sizes at that line. ONX204's `.shape[0]` alone turns both into silently wrong
exports (the counts of other sizes are Python numbers no ONNX output carries), so the first fix
loop drops it; flat_outputs (the tensors only, at the export boundary) then makes the fix hold:
the loop under the repair tries it again."""
import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}


def anchors_for(feats, strides):
    anchors, counts, stride_tensor = [], [], []
    for feat, stride in zip(feats, strides):
        _, _, h, w = feat.shape
        ys, xs = torch.meshgrid(torch.arange(h) * stride, torch.arange(w) * stride, indexing="ij")
        anchors.append(torch.stack([xs, ys], -1).reshape(-1, 2).float())
        counts.append(len(anchors[-1]))
        stride_tensor.append(torch.full([counts[-1], 1], stride, dtype=torch.float32))
    return torch.cat(anchors), counts, torch.cat(stride_tensor)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.c8 = nn.Conv2d(3, 4, 3, 8, 1)
        self.c16 = nn.Conv2d(4, 4, 3, 2, 1)

    def forward(self, x):
        p8 = self.c8(x)
        p16 = self.c16(p8)
        anchors, counts, strides = anchors_for((p16, p8), (16, 8))
        scores = torch.cat([p16.flatten(2), p8.flatten(2)], dim=-1).transpose(1, 2)
        return scores * strides, anchors, counts


def make_model():
    torch.manual_seed(0)
    return Head().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def probe_inputs():
    return [(torch.randn(3, 3, 48, 80),), (torch.randn(1, 3, 96, 32),)]
