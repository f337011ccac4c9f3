"""GLiNER relex (UniEncoderSpanRelex, relations_layer="gcn") adjacency head: the GCN layer adds
self-loops with `torch.diag_embed(mask.float())` and normalises with
`torch.diag_embed(D_inv_sqrt) @ A @ torch.diag_embed(D_inv_sqrt)`; ctxgraph's export script for
knowledgator/gliner-relex-large-v0.5 has to monkey-patch `torch.diag_embed` ("Patch diag_embed for
ONNX compatibility") before GLiNER's torch.onnx.export, because aten::diag_embed does not export.

Source: https://github.com/661818yijack/ctxgraph4agent/blob/e85833ed4aef5546061b584df32d37519717d80c/scripts/export_relex_onnx.py
"""
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"X": {0: "batch", 1: "num_entities"}, "mask": {0: "batch", 1: "num_entities"}}
BLIND = "operators-27"


def compute_degree(A: torch.Tensor) -> torch.Tensor:
    return A.sum(dim=-1).clamp(min=1e-6)


def _apply_pair_mask(A: torch.Tensor, mask: Optional[torch.Tensor]) -> torch.Tensor:
    if mask is None:
        return A
    m = mask.float()  # (B, E)
    return A * m.unsqueeze(2) * m.unsqueeze(1)  # (B, E, E)


def dot_product_adjacency(X: torch.Tensor, mask: Optional[torch.Tensor] = None, normalize: bool = False) -> torch.Tensor:
    if normalize:
        Xn = F.normalize(X, p=2, dim=-1)
    else:
        Xn = X
    A = torch.bmm(Xn, Xn.transpose(1, 2))  # (B, E, E)
    A = torch.sigmoid(A)
    return _apply_pair_mask(A, mask)


class SimpleGCNLayer(nn.Module):
    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        self.linear = nn.Linear(in_dim, out_dim)

    def forward(self, X: torch.Tensor, A: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        # Keep only valid<->valid edges & add self-loops on valid nodes
        if mask is not None:
            A = _apply_pair_mask(A, mask)
            A = A + torch.diag_embed(mask.float())  # self-loops only where mask == 1
        else:
            A = A + torch.eye(A.size(1), device=A.device).unsqueeze(0)

        D_inv_sqrt = compute_degree(A).pow(-0.5)
        A_norm = torch.diag_embed(D_inv_sqrt) @ A @ torch.diag_embed(D_inv_sqrt)
        out = torch.bmm(A_norm, X)
        return F.relu(self.linear(out))


class GCNDecoder(nn.Module):
    def __init__(self, in_dim: int, hidden_dim: int):
        super().__init__()
        self.gcn = SimpleGCNLayer(in_dim, hidden_dim)
        self.proj = nn.Linear(hidden_dim, hidden_dim)

    def forward(self, X: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        A0 = dot_product_adjacency(X, mask)  # Initial adjacency (already masked)
        H = self.gcn(X, A0, mask)  # Updated node features
        A = torch.sigmoid(torch.bmm(self.proj(H), self.proj(H).transpose(1, 2)))
        return _apply_pair_mask(A, mask)


def make_model():
    return GCNDecoder(32, 32).eval()


def _batch(b, e, valid):
    X = torch.randn(b, e, 32) * 0.2
    mask = torch.zeros(b, e, dtype=torch.long)
    mask[:, :valid] = 1
    return (X, mask)


def example_inputs():
    return _batch(2, 6, 4)


def other_inputs():
    return [_batch(3, 9, 7), _batch(1, 4, 4)]


def probe_inputs():
    return other_inputs()
