"""A network that performs an SVD "at some point" in its forward: per-sample feature maps are
reshaped into matrices, `torch.svd` is taken, and the singular values (plus the leading singular
vectors) feed the classifier head. Exporting it failed with "Exporting the operator svd to ONNX
opset version 9 is not supported"; ONNX has no SVD operator.

Source: https://github.com/pytorch/pytorch/issues/63861
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "time"}}
BLIND = "operators-9"


class SVDNet(nn.Module):
    def __init__(self, in_ch=8, hidden=16, k=4, n_classes=5):
        super().__init__()
        self.k = k
        self.encoder = nn.Sequential(nn.Conv1d(in_ch, hidden, 5, padding=2), nn.ReLU(),
                                     nn.Conv1d(hidden, hidden, 5, padding=2))
        self.head = nn.Linear(k + k * hidden, n_classes)

    def forward(self, x):
        # x: (batch, channels, time) multichannel signal
        h = self.encoder(x)                              # (B, hidden, T)
        h = h - h.mean(dim=-1, keepdim=True)
        U, S, V = torch.svd(h)                           # U: (B, hidden, hidden), S: (B, hidden)
        s = S[:, :self.k] / (S.sum(dim=-1, keepdim=True) + 1e-6)
        u = U[:, :, :self.k].abs().flatten(1)           # sign-invariant leading directions
        return self.head(torch.cat([s, u], dim=1))


def make_model():
    return SVDNet().eval()


def example_inputs():
    return (torch.randn(2, 8, 64),)


def other_inputs():
    return [(torch.randn(3, 8, 100),), (torch.randn(1, 8, 40),)]


def probe_inputs():
    return other_inputs()
