"""Token Merging for Stable Diffusion (tomesd) merges similar tokens before self-attention with
`dst.scatter_reduce(-2, dst_idx.expand(n, r, c), src, reduce="mean")`; ONNX ScatterElements has no 'mean'
reduction, so the patched UNet block could not be exported until a PR added an "onnx friendly" merge path.
The block below uses tomesd's original merge/unmerge (no_rand=True for a deterministic dst choice).

Source: https://github.com/dbolya/tomesd/pull/43
"""
import math
from typing import Callable, Tuple

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-22"


def do_nothing(x: torch.Tensor, mode: str = None):
    return x


def bipartite_soft_matching_random2d(metric: torch.Tensor,
                                     w: int, h: int, sx: int, sy: int, r: int,
                                     no_rand: bool = False) -> Tuple[Callable, Callable]:
    B, N, _ = metric.shape

    if r <= 0:
        return do_nothing, do_nothing

    with torch.no_grad():
        hsy, wsx = h // sy, w // sx

        # For each sy by sx kernel, randomly assign one token to be dst and the rest src
        if no_rand:
            rand_idx = torch.zeros(hsy, wsx, 1, device=metric.device, dtype=torch.int64)
        else:
            rand_idx = torch.randint(sy * sx, size=(hsy, wsx, 1), device=metric.device)

        idx_buffer_view = torch.zeros(hsy, wsx, sy * sx, device=metric.device, dtype=torch.int64)
        idx_buffer_view.scatter_(dim=2, index=rand_idx, src=-torch.ones_like(rand_idx, dtype=rand_idx.dtype))
        idx_buffer_view = idx_buffer_view.view(hsy, wsx, sy, sx).transpose(1, 2).reshape(hsy * sy, wsx * sx)
        idx_buffer = idx_buffer_view

        # We set dst tokens to be -1 and src to be 0, so an argsort gives us dst|src indices
        rand_idx = idx_buffer.reshape(1, -1, 1).argsort(dim=1)

        num_dst = hsy * wsx
        a_idx = rand_idx[:, num_dst:, :]  # src
        b_idx = rand_idx[:, :num_dst, :]  # dst

        def split(x):
            C = x.shape[-1]
            src = x.gather(dim=1, index=a_idx.expand(B, N - num_dst, C))
            dst = x.gather(dim=1, index=b_idx.expand(B, num_dst, C))
            return src, dst

        # Cosine similarity between A and B
        metric = metric / metric.norm(dim=-1, keepdim=True)
        a, b = split(metric)
        scores = a @ b.transpose(-1, -2)

        # Can't reduce more than the # tokens in src
        r = min(a.shape[1], r)

        # Find the most similar greedily
        node_max, node_idx = scores.max(dim=-1)
        edge_idx = node_max.argsort(dim=-1, descending=True)[..., None]

        unm_idx = edge_idx[..., r:, :]  # Unmerged Tokens
        src_idx = edge_idx[..., :r, :]  # Merged Tokens
        dst_idx = node_idx[..., None].gather(dim=-2, index=src_idx)

    def merge(x: torch.Tensor, mode="mean") -> torch.Tensor:
        src, dst = split(x)
        n, t1, c = src.shape

        unm = src.gather(dim=-2, index=unm_idx.expand(n, t1 - r, c))
        src = src.gather(dim=-2, index=src_idx.expand(n, r, c))
        dst = dst.scatter_reduce(-2, dst_idx.expand(n, r, c), src, reduce=mode)

        return torch.cat([unm, dst], dim=1)

    def unmerge(x: torch.Tensor) -> torch.Tensor:
        unm_len = unm_idx.shape[1]
        unm, dst = x[..., :unm_len, :], x[..., unm_len:, :]
        _, _, c = unm.shape

        src = dst.gather(dim=-2, index=dst_idx.expand(B, r, c))

        out = torch.zeros(B, N, c, device=x.device, dtype=x.dtype)
        out.scatter_(dim=-2, index=b_idx.expand(B, num_dst, c), src=dst)
        out.scatter_(dim=-2, index=a_idx.expand(B, a_idx.shape[1], 1).gather(dim=1, index=unm_idx).expand(B, unm_len, c), src=unm)
        out.scatter_(dim=-2, index=a_idx.expand(B, a_idx.shape[1], 1).gather(dim=1, index=src_idx).expand(B, r, c), src=src)

        return out

    return merge, unmerge


class ToMeBasicTransformerBlock(nn.Module):
    """Self-attention part of a diffusers BasicTransformerBlock patched by tomesd (merge_attn=True)."""

    def __init__(self, dim=32, heads=4, original_size=(16, 16), ratio=0.5, sx=2, sy=2):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn1 = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ff = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))
        self.tome_info = {"size": original_size, "ratio": ratio, "sx": sx, "sy": sy, "use_rand": False}

    def compute_merge(self, x):
        original_h, original_w = self.tome_info["size"]
        original_tokens = original_h * original_w
        downsample = int(math.ceil(math.sqrt(original_tokens // x.shape[1])))
        w = int(math.ceil(original_w / downsample))
        h = int(math.ceil(original_h / downsample))
        r = int(x.shape[1] * self.tome_info["ratio"])
        m, u = bipartite_soft_matching_random2d(x, w, h, self.tome_info["sx"], self.tome_info["sy"], r,
                                                no_rand=not self.tome_info["use_rand"])
        return m, u

    def forward(self, x):
        m_a, u_a = self.compute_merge(x)
        h = m_a(self.norm1(x))
        h, _ = self.attn1(h, h, h, need_weights=False)
        x = u_a(h) + x
        return self.ff(x) + x


def make_model():
    return ToMeBasicTransformerBlock().eval()


def example_inputs():
    return (torch.randn(2, 256, 32),)


def other_inputs():
    return [(torch.randn(3, 256, 32),), (torch.randn(1, 256, 32),)]


def probe_inputs():
    return other_inputs()
