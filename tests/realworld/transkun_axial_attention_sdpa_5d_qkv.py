"""Transkun (piano transcription) runs axial attention over [N, T, F, D] features: its
MultiHeadAttentionKernel splits heads with unflatten/transpose, so F.scaled_dot_product_attention gets
5-D q/k/v ([N, T, H, F, d] and [N, F, H, T, d]). A Transkun ONNX export script says "the ONNX exporter's
SDPA only supports 4-D" and patches SDPA to reshape 5-D inputs to 4-D for the duration of the export.

Source: https://github.com/manh9011/TranskunWeb/blob/a498e26eb358a9ddaeadc53cf4b9283a48127553/public/models/transkun/export_transkun.py
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "frames"}}
BLIND = "operators-39"


class RMSNorm(nn.Module):
    def __init__(self, eps = 1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        var = x.pow(2).mean(dim = -1, keepdim=True)
        return x* torch.rsqrt(var+ self.eps)


class ResBlock(nn.Module):
    def __init__(self, module, size, prenorm = True, dropoutProb =0.0):
        super().__init__()
        self.module = module
        self.norm = RMSNorm()

        # LayerScale
        self.scale = nn.Parameter(torch.ones(size)*1e-2)
        self.dropout = nn.Dropout(dropoutProb)

    def forward(self, x, *args):
        return x + self.dropout(self.module(self.norm(x), *args))*self.scale


class MultiHeadAttentionKernel(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout = 0., k_dim = None, v_dim = None, kernel = None, hiddenFactor = 1):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.kernel = kernel
        hiddenSize = math.ceil(hiddenFactor*embed_dim)
        self.head_dim = int(math.ceil(hiddenSize/num_heads))
        hiddenSize = self.head_dim*num_heads
        if k_dim is None:
            k_dim = embed_dim
        if v_dim is None:
            v_dim = embed_dim
        self.q_proj_weight = nn.Parameter(torch.empty(( embed_dim, hiddenSize)))
        self.k_proj_weight = nn.Parameter(torch.empty(( k_dim, hiddenSize)))
        self.v_proj_weight = nn.Parameter(torch.empty(( v_dim, hiddenSize)))
        self.out_proj = nn.Linear(hiddenSize, embed_dim)
        nn.init.xavier_uniform_(self.k_proj_weight)
        nn.init.xavier_uniform_(self.q_proj_weight)
        nn.init.xavier_uniform_(self.v_proj_weight)

    def forward(self, query, key = None, value = None):
        if key == None:
            key = query
        if value == None:
            value = key

        q = query@self.q_proj_weight
        k = key@self.k_proj_weight
        v = value@self.v_proj_weight

        # split into heads
        q = q.unflatten(-1, (self.num_heads, self.head_dim))
        q = q.transpose(-2,-3)
        k = k.unflatten(-1, (self.num_heads, self.head_dim))
        k = k.transpose(-2,-3)
        v = v.unflatten(-1, (self.num_heads, self.head_dim))
        v = v.transpose(-2,-3)

        fetched = F.scaled_dot_product_attention(q,k,v)

        fetched = fetched.transpose(-2,-3).flatten(-2,-1)
        result = self.out_proj(fetched)
        return result


class BasicBlock(nn.Module):
    """Axial block of the Transkun backbone with enabled = ["F", "T"]."""

    def __init__(self, inputSize, num_heads, hiddenFactor = 2, hiddenFactorAttn = 1, dropoutProb = 0.0):
        super().__init__()
        fnnHiddenSize = int(math.ceil(inputSize*hiddenFactor))

        def fnn():
            return ResBlock(nn.Sequential(nn.Linear(inputSize, fnnHiddenSize), nn.GELU(), nn.Dropout(dropoutProb),
                                          nn.Linear(fnnHiddenSize, inputSize)), size = inputSize, dropoutProb = dropoutProb)

        self.mhaBlockF = ResBlock(MultiHeadAttentionKernel(inputSize, num_heads=num_heads, hiddenFactor = hiddenFactorAttn),
                                  size = inputSize, dropoutProb = dropoutProb)
        self.fnnBlockF = fnn()
        self.mhaBlockT = ResBlock(MultiHeadAttentionKernel(inputSize, num_heads=num_heads, hiddenFactor = hiddenFactorAttn),
                                  size = inputSize, dropoutProb = dropoutProb)
        self.fnnBlockT = fnn()

    def forward(self, x, mem = None):
        # x: [N, T, F, D]
        if mem is None:
            mem = x
        h = x
        h = self.mhaBlockF(h, mem)
        h = self.fnnBlockF(h)

        # change to [N, F, T, D]
        h = h.transpose(-3, -2)
        mem = mem.transpose(-3, -2)

        h = self.mhaBlockT(h, mem)
        h = self.fnnBlockT(h)

        # change back to the orignal shape
        h = h.transpose(-3, -2)
        return h


class TranskunAxialBackbone(nn.Module):
    def __init__(self, size=32, num_heads=4, n_layers=2):
        super().__init__()
        self.blocks = nn.ModuleList([BasicBlock(size, num_heads) for _ in range(n_layers)])

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x


def make_model():
    return TranskunAxialBackbone().eval()


def example_inputs():
    return (torch.randn(1, 16, 12, 32),)


def other_inputs():
    return [(torch.randn(2, 24, 12, 32),), (torch.randn(1, 9, 12, 32),)]


def probe_inputs():
    return other_inputs()
