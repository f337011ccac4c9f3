"""Segmentation head that downsamples an integer (int64) instance-id map to feature resolution with
`F.max_pool2d` and uses it to gather per-pixel embeddings. The report lists operators that "should work with
integer tensors but are only defined for floats" (MaxPool among them, worked around for one model): ONNX
MaxPool accepts only float / int8 / uint8 types, so the exported int64 MaxPool is an invalid model for
onnxruntime.

Source: https://github.com/onnx/onnx/issues/2528
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"feats": {0: "batch", 2: "height", 3: "width"}, "ids": {0: "batch", 2: "height2", 3: "width2"}}
BLIND = "operators-11"


class InstanceEmbeddingHead(nn.Module):
    def __init__(self, channels=16, stride=4, max_instances=32):
        super().__init__()
        self.stride = stride
        self.max_instances = max_instances
        self.proj = nn.Conv2d(channels, channels, 1)

    def forward(self, feats, ids):
        # feats: (B, C, H, W) float; ids: (B, 1, H*stride, W*stride) int64 instance ids (0 = background)
        ids_small = F.max_pool2d(ids, kernel_size=self.stride, stride=self.stride)
        emb = self.proj(feats)
        onehot = F.one_hot(ids_small[:, 0], self.max_instances).permute(0, 3, 1, 2).to(emb.dtype)
        area = onehot.sum(dim=(2, 3)).clamp(min=1.0)
        pooled = torch.einsum("bchw,bkhw->bkc", emb, onehot) / area[..., None]
        return pooled


def make_model():
    return InstanceEmbeddingHead()


def example_inputs():
    return (torch.randn(2, 16, 8, 10), torch.randint(0, 32, (2, 1, 32, 40)))


def other_inputs():
    return [(torch.randn(3, 16, 6, 12), torch.randint(0, 32, (3, 1, 24, 48))),
            (torch.randn(1, 16, 9, 5), torch.randint(0, 32, (1, 1, 36, 20)))]


def probe_inputs():
    return other_inputs()
