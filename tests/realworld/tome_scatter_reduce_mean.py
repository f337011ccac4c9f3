"""ToMe-style token merging in a ViT block: bipartite matching, then
`dst = dst.scatter_reduce(-2, dst_idx.expand(n, r, c), src, reduce="mean")`; "Exporting the operator
'aten::scatter_reduce' to ONNX opset version 15 is not supported" (ONNX has no mean reduction).

Source: https://github.com/pytorch/pytorch/issues/101535
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-1"


def bipartite_soft_matching(metric, r):
    with torch.no_grad():
        metric = metric / metric.norm(dim=-1, keepdim=True)
        a, b = metric[..., ::2, :], metric[..., 1::2, :]
        scores = a @ b.transpose(-1, -2)
        node_max, node_idx = scores.max(dim=-1)
        edge_idx = node_max.argsort(dim=-1, descending=True)[..., None]
        unm_idx = edge_idx[..., r:, :]  # Unmerged Tokens
        src_idx = edge_idx[..., :r, :]  # Merged Tokens
        dst_idx = node_idx[..., None].gather(dim=-2, index=src_idx)

    def merge(x):
        src, dst = x[..., ::2, :], x[..., 1::2, :]
        n, t1, c = src.shape
        unm = src.gather(dim=-2, index=unm_idx.expand(n, t1 - r, c))
        src = src.gather(dim=-2, index=src_idx.expand(n, r, c))
        dst = dst.scatter_reduce(-2, dst_idx.expand(n, r, c), src, reduce="mean")
        return torch.cat([unm, dst], dim=1)

    return merge


class ToMeBlock(nn.Module):
    def __init__(self, dim=32, r=4):
        super().__init__()
        self.r = r
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        merge = bipartite_soft_matching(x, self.r)
        x = merge(x)
        return x + self.mlp(self.norm2(x))


def make_model():
    return ToMeBlock()


def example_inputs():
    return (torch.randn(2, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 16, 32),), (torch.randn(1, 16, 32),)]


def probe_inputs():
    return other_inputs()
