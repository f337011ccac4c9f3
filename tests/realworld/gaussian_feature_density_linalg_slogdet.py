"""Gaussian density / anomaly head: each sample's token features give a covariance
`cov = f^T f / N + eps * I`, and the log-likelihood term uses `torch.linalg.slogdet(cov)`.
`aten._linalg_slogdet` is on onnxscript's list of operators missing from torchlib (found by the
torch.onnx tests), so the dynamo exporter cannot translate it; the TorchScript exporter has no
`linalg_slogdet` symbolic either.

Source: https://github.com/microsoft/onnxscript/issues/1644
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"tokens": {0: "batch", 1: "num_tokens"}}
BLIND = "operators-21"


class GaussianDensityHead(nn.Module):
    def __init__(self, in_dim=32, feat_dim=8, eps=1e-3):
        super().__init__()
        self.proj = nn.Linear(in_dim, feat_dim)
        self.eps = eps
        self.feat_dim = feat_dim

    def forward(self, tokens):
        f = self.proj(tokens)                       # (B, N, D)
        f = f - f.mean(dim=1, keepdim=True)
        cov = f.transpose(1, 2) @ f / tokens.shape[1]
        cov = cov + self.eps * torch.eye(self.feat_dim, dtype=f.dtype, device=f.device)
        sign, logabsdet = torch.linalg.slogdet(cov)
        nll = 0.5 * (logabsdet + self.feat_dim * math.log(2 * math.pi))
        return nll, sign


def make_model():
    return GaussianDensityHead().eval()


def example_inputs():
    return (torch.randn(2, 49, 32),)


def other_inputs():
    return [(torch.randn(3, 64, 32),), (torch.randn(1, 36, 32),)]


def probe_inputs():
    return other_inputs()
