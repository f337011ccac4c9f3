"""A clip-level video classifier gets all frames stacked as (num_videos * T, C, H, W) plus the video
count as a tensor, and regroups frame features with `reshape(num_videos.item(), -1, D)`. The
torch.onnx (TorchScript) docs warn that `y.item()` in `x.reshape(y.item(), -1)` is replaced by a
constant during tracing, so the exported graph only works for the traced count.

Source: https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"frames": {0: "frames"}}
BLIND = "domains-44"


class ClipClassifier(nn.Module):
    def __init__(self, feat_dim=32, num_classes=5):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, feat_dim, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.head = nn.Linear(feat_dim, num_classes)

    def forward(self, frames, num_videos):
        feats = self.backbone(frames)                       # (num_videos * T, D)
        feats = feats.reshape(num_videos.item(), -1, feats.shape[-1])
        return self.head(feats.mean(dim=1))                 # (num_videos, num_classes)


def make_model():
    return ClipClassifier()


def example_inputs():
    return (torch.randn(2 * 4, 3, 32, 32), torch.tensor(2))


def other_inputs():
    return [(torch.randn(3 * 4, 3, 32, 32), torch.tensor(3)),
            (torch.randn(1 * 4, 3, 32, 32), torch.tensor(1))]


def probe_inputs():
    return other_inputs()
