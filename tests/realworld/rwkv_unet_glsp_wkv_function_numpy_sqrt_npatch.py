"""RWKV-UNet encoder block (GLSP): a Vision-RWKV spatial mix whose bidirectional WKV runs through a
`torch.autograd.Function` (`WKV.apply(B, T, C, w, u, k, v)` filling an empty `y` buffer, here with a CPU
stand-in for the `wkv_cuda.forward` kernel), after which the block rebuilds the feature map with
`h, w = int(np.sqrt(n_patch)), int(np.sqrt(n_patch))`; the report says `torch.onnx.export` of RWKV-UNet
fails ("invalid unordered_map<K,T> key").

Source: https://github.com/juntaoJianggavin/RWKV-UNet/issues/21
"""
import numpy as np
import torch
import torch.nn as nn

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "size", 3: "size"}}
BLIND = "domains-80"

T_MAX = 1024


def _wkv_forward_cpu(B, T, C, w, u, k, v, y):
    # stand-in for wkv_cuda.forward: bidirectional WKV, exp(-(|t-i|-1)*w + k_i) weights, bonus u at i == t
    idx = torch.arange(T, device=k.device)
    dist = (idx[:, None] - idx[None, :]).abs().unsqueeze(-1).to(k.dtype)     # (T, T, 1)
    logw = torch.where(dist == 0, u.expand(T, T, C), -(dist - 1) * w)        # (T, T, C)
    a = logw.unsqueeze(0) + k.unsqueeze(1)                                   # (B, T, T, C)
    a = a - a.amax(dim=2, keepdim=True)
    e = a.exp()
    y.copy_((e * v.unsqueeze(1)).sum(2) / e.sum(2))


class WKV(torch.autograd.Function):
    @staticmethod
    def forward(ctx, B, T, C, w, u, k, v):
        ctx.B = B
        ctx.T = T
        ctx.C = C
        assert T <= T_MAX
        assert B * C % min(C, 1024) == 0

        ctx.save_for_backward(w, u, k, v)
        w = w.float().contiguous()
        u = u.float().contiguous()
        k = k.float().contiguous()
        v = v.float().contiguous()
        y = torch.empty((B, T, C), device=k.device, memory_format=torch.contiguous_format)
        _wkv_forward_cpu(B, T, C, w, u, k, v, y)
        return y


def RUN_CUDA(B, T, C, w, u, k, v):
    return WKV.apply(B, T, C, w, u, k, v)


class VRWKV_SpatialMix(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.spatial_decay = nn.Parameter(torch.randn(n_embd) * 0.5)
        self.spatial_first = nn.Parameter(torch.randn(n_embd) * 0.5)
        self.key = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(n_embd, n_embd, bias=False)
        self.receptance = nn.Linear(n_embd, n_embd, bias=False)
        self.key_norm = nn.LayerNorm(n_embd)
        self.output = nn.Linear(n_embd, n_embd, bias=False)

    def forward(self, x, patch_resolution=None):
        B, T, C = x.size()
        sr, k, v = torch.sigmoid(self.receptance(x)), self.key(x), self.value(x)
        x = RUN_CUDA(B, T, C, self.spatial_decay / T, self.spatial_first / T, k, v)
        x = self.key_norm(x)
        x = sr * x
        x = self.output(x)
        return x


class GLSP(nn.Module):
    def __init__(self, dim_in=16, dim_mid=32):
        super().__init__()
        self.norm = nn.BatchNorm2d(dim_in)
        self.conv = nn.Conv2d(dim_in, dim_mid, 1)
        self.ln1 = nn.LayerNorm(dim_mid)
        self.att = VRWKV_SpatialMix(dim_mid)
        self.conv_local = nn.Sequential(nn.Conv2d(dim_mid, dim_mid, 3, padding=1, groups=dim_mid),
                                        nn.BatchNorm2d(dim_mid), nn.SiLU())
        self.proj = nn.Conv2d(dim_mid, dim_in, 1)

    def forward(self, x):
        shortcut = x
        x = self.norm(x)
        x = self.conv(x)
        B, hidden, H, W = x.size()
        patch_resolution = (H,  W)
        x = x.view(B, hidden, -1)  # (B, hidden, H*W) = (B, C, N)
        x = x.permute(0, 2, 1)
        x = x + self.ln1(self.att(x, patch_resolution))
        B, n_patch, hidden = x.size()  # reshape from (B, n_patch, hidden) to (B, h, w, hidde
        h, w = int(np.sqrt(n_patch)), int(np.sqrt(n_patch))
        x = x.permute(0, 2, 1)
        x = x.contiguous().view(B, hidden, h, w)
        x = x + self.conv_local(x)
        x = self.proj(x)
        return shortcut + x


def make_model():
    return GLSP().eval()


def example_inputs():
    return (torch.randn(2, 16, 14, 14),)


def other_inputs():
    return [(torch.randn(3, 16, 8, 8),), (torch.randn(1, 16, 20, 20),)]


def probe_inputs():
    return other_inputs()
