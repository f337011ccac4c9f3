"""A detector's level-attention block fuses per-column descriptors of two pyramid levels: the coarse level's
1-D descriptor sequence is upsampled with `F.interpolate(..., mode='nearest-exact')` on a 3-D (N, C, L)
tensor. Converting the model for ncnn with pnnx fails on the built-in op `aten::_upsample_nearest_exact1d`
("Unknown builtin op ... may not be currently supported"); the legacy ONNX exporter has no symbolic for
`aten::_upsample_nearest_exact1d` either.

Source: https://github.com/Tencent/ncnn/issues/3967
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-53"


class LevelAttention(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.fuse = nn.Conv1d(2 * channels, channels, kernel_size=3, padding=1)
        self.score = nn.Conv1d(channels, 1, kernel_size=1)

    def forward(self, fine, coarse):
        d_fine = fine.mean(dim=2)      # (N, C, W)
        d_coarse = coarse.mean(dim=2)  # (N, C, W / 2)
        d_coarse = F.interpolate(d_coarse, size=d_fine.shape[-1], mode='nearest-exact')
        att = torch.sigmoid(self.score(F.relu(self.fuse(torch.cat([d_fine, d_coarse], dim=1)))))
        return fine * att.unsqueeze(2)


class TinyLevelAttentionDetector(nn.Module):
    def __init__(self, channels=16, num_outputs=6):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1), nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(channels, channels, 3, stride=2, padding=1), nn.ReLU())
        self.level_att = LevelAttention(channels)
        self.head = nn.Conv2d(channels, num_outputs, 1)

    def forward(self, x):
        p3 = self.stem(x)
        p4 = self.down(p3)
        return self.head(self.level_att(p3, p4))


def make_model():
    return TinyLevelAttentionDetector().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 36),), (torch.randn(1, 3, 24, 63),)]


def probe_inputs():
    return other_inputs()
