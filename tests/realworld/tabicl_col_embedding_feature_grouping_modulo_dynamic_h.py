"""TabICL (soda-inria) column embedding: with `feature_group="same"` the columns are grouped by circular
permutation, `X[:, :, (idxs + 2**i) % H]` with `B, T, H = X.shape`; the anofox-tabfm export tool reports
that with the feature axis H dynamic, `torch.onnx.export(dynamo=True)` fails at ONNX translation because
onnxscript's `aten_remainder_scalar` calls `int()` on the symbolic divisor H (their patch rewrites it as
`torch.remainder(idxs + 2**i, H_tensor)`).

Source: https://github.com/DataZooDE/anofox-tabfm/blob/96437a68d30b3b0739d374e78abd26d86450a126/tools/export_tabicl/src/export_tabicl/tabicl_patches.py
"""
from typing import Literal, Union

import torch
from torch import nn, Tensor
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"X": {1: "rows", 2: "features"}}
BLIND = "domains-50"


class SkippableLinear(nn.Linear):
    def __init__(self, in_features: int, out_features: int, bias: bool = True, skip_value: float = -100.0):
        super().__init__(in_features, out_features, bias)
        self.skip_value = skip_value

    def forward(self, src: Tensor) -> Tensor:
        out = F.linear(src, self.weight, self.bias)
        return out


class ColEmbedding(nn.Module):
    def __init__(self, embed_dim: int = 16, feature_group: Union[bool, Literal["same", "valid"]] = "same",
                 feature_group_size: int = 3):
        super().__init__()
        self.feature_group = feature_group
        self.feature_group_size = feature_group_size
        self.in_linear = SkippableLinear(feature_group_size if feature_group else 1, embed_dim)
        self.out_w = SkippableLinear(embed_dim, embed_dim)
        self.ln_w = nn.LayerNorm(embed_dim)

    def feature_grouping(self, X: Tensor) -> Tensor:
        if not self.feature_group:
            return X.unsqueeze(-1)  # (B, T, H, 1)

        B, T, H = X.shape
        size = self.feature_group_size

        # Determine grouping mode
        mode = "same" if self.feature_group is True else self.feature_group

        if mode == "same":
            # Group through circular permutation
            idxs = torch.arange(H, dtype=torch.long, device=X.device)
            X = torch.stack([X[:, :, (idxs + 2**i) % H] for i in range(size)], dim=-1)
        else:
            # Group through padding and reshaping
            x_pad_cols = (size - H % size) % size
            if x_pad_cols > 0:
                X = F.pad(X, (0, x_pad_cols), value=0)
            X = X.reshape(B, T, -1, size)

        return X  # (B, T, G, size)

    def forward(self, X: Tensor) -> Tensor:
        features = self.feature_grouping(X).transpose(1, 2)  # (B, G, T, size)
        src = self.in_linear(features)  # (B, G, T, E)
        weights = self.ln_w(self.out_w(src.mean(dim=-2, keepdim=True)))
        return src * weights


def make_model():
    return ColEmbedding()


def example_inputs():
    return (torch.randn(1, 10, 7),)


def other_inputs():
    return [(torch.randn(1, 14, 5),), (torch.randn(1, 6, 11),)]


def probe_inputs():
    return other_inputs()
