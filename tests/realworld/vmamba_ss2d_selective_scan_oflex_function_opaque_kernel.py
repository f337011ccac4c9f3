"""VMamba SS2D block (classification/models/vmamba.py, March 2024): `cross_selective_scan` runs the four-way
`CrossScan.apply`, then `SelectiveScanOflex.apply`, a `torch.autograd.Function` whose forward calls the compiled
`selective_scan_cuda_oflex.fwd` kernel, then `CrossMerge.apply`. In the report the export first failed on CPU inputs
(the kernel checks `is_cuda`), then "succeeded" on CUDA, but the exported model's inference was wrong: the kernel
is opaque to the exporter. Here `selective_scan_cuda_oflex` is a CPU stand-in that, like the compiled extension,
computes outside torch (NumPy).

Source: https://github.com/MzeroMiko/VMamba/issues/65
"""
import types

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "height", 2: "width"}}
BLIND = "domains-80"


def _selective_scan_fwd_cpu(u, delta, A, B, C, D, delta_bias, delta_softplus, nrows, oflex):
    # stand-in for the compiled kernel: (b, k*d, l) inputs, B/C as (b, k, n, l); returns (out, last_state)
    u, dt = u.detach().cpu().numpy(), delta.detach().cpu().numpy()
    A, Bm, Cm = A.detach().cpu().numpy(), B.detach().cpu().numpy(), C.detach().cpu().numpy()
    D, bias = D.detach().cpu().numpy(), delta_bias.detach().cpu().numpy()
    dt = dt + bias[None, :, None]
    if delta_softplus:
        dt = np.log1p(np.exp(dt))
    b, kd, l = u.shape
    k = Bm.shape[1]
    Bm = np.repeat(Bm, kd // k, axis=1)
    Cm = np.repeat(Cm, kd // k, axis=1)
    x = np.zeros((b, kd, A.shape[1]), dtype=np.float32)
    ys = np.empty((b, kd, l), dtype=np.float32)
    for t in range(l):
        x = np.exp(dt[:, :, t, None] * A[None]) * x + dt[:, :, t, None] * Bm[:, :, :, t] * u[:, :, t, None]
        ys[:, :, t] = (x * Cm[:, :, :, t]).sum(-1) + D[None, :] * u[:, :, t]
    return torch.from_numpy(ys), torch.from_numpy(x)


selective_scan_cuda_oflex = types.SimpleNamespace(fwd=_selective_scan_fwd_cpu)


class SelectiveScanOflex(torch.autograd.Function):
    # comment all checks if inside cross_selective_scan
    @staticmethod
    def forward(ctx, u, delta, A, B, C, D=None, delta_bias=None, delta_softplus=False, nrows=1, backnrows=1, oflex=True):
        ctx.delta_softplus = delta_softplus
        out, x, *rest = selective_scan_cuda_oflex.fwd(u, delta, A, B, C, D, delta_bias, delta_softplus, 1, oflex)
        ctx.save_for_backward(u, delta, A, B, C, D, delta_bias, x)
        return out


class CrossScan(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor):
        B, C, H, W = x.shape
        ctx.shape = (B, C, H, W)
        xs = x.new_empty((B, 4, C, H * W))
        xs[:, 0] = x.flatten(2, 3)
        xs[:, 1] = x.transpose(dim0=2, dim1=3).flatten(2, 3)
        xs[:, 2:4] = torch.flip(xs[:, 0:2], dims=[-1])
        return xs


class CrossMerge(torch.autograd.Function):
    @staticmethod
    def forward(ctx, ys: torch.Tensor):
        B, K, D, H, W = ys.shape
        ctx.shape = (H, W)
        ys = ys.view(B, K, D, -1)
        ys = ys[:, 0:2] + ys[:, 2:4].flip(dims=[-1]).view(B, 2, D, -1)
        y = ys[:, 0] + ys[:, 1].view(B, -1, W, H).transpose(dim0=2, dim1=3).contiguous().view(B, D, -1)
        return y


def cross_selective_scan(x, x_proj_weight, dt_projs_weight, dt_projs_bias, A_logs, Ds, out_norm,
                         delta_softplus=True, nrows=-1, backnrows=-1, ssoflex=True, SelectiveScan=None):
    B, D, H, W = x.shape
    D, N = A_logs.shape
    K, D, R = dt_projs_weight.shape
    L = H * W

    def selective_scan(u, delta, A, B, C, D=None, delta_bias=None, delta_softplus=True):
        return SelectiveScan.apply(u, delta, A, B, C, D, delta_bias, delta_softplus, nrows, backnrows, ssoflex)

    xs = CrossScan.apply(x)

    x_dbl = torch.einsum("b k d l, k c d -> b k c l", xs, x_proj_weight)
    dts, Bs, Cs = torch.split(x_dbl, [R, N, N], dim=2)
    dts = torch.einsum("b k r l, k d r -> b k d l", dts, dt_projs_weight)
    xs = xs.view(B, -1, L)
    dts = dts.contiguous().view(B, -1, L)
    As = -torch.exp(A_logs.to(torch.float))  # (k * c, d_state)
    Bs = Bs.contiguous()
    Cs = Cs.contiguous()
    Ds = Ds.to(torch.float)  # (K * c)
    delta_bias = dt_projs_bias.view(-1).to(torch.float)

    ys: torch.Tensor = selective_scan(
        xs, dts, As, Bs, Cs, Ds, delta_bias, delta_softplus
    ).view(B, K, -1, H, W)

    y: torch.Tensor = CrossMerge.apply(ys)

    y = y.transpose(dim0=1, dim1=2).contiguous()  # (B, L, C)
    y = out_norm(y).view(B, H, W, -1)
    return y.to(x.dtype)


class SS2D(nn.Module):
    def __init__(self, d_model=16, d_state=4, ssm_ratio=2.0, dt_rank=2, d_conv=3):
        super().__init__()
        d_inner = int(ssm_ratio * d_model)
        K = 4
        self.in_proj = nn.Linear(d_model, d_inner * 2, bias=False)
        self.conv2d = nn.Conv2d(d_inner, d_inner, d_conv, padding=(d_conv - 1) // 2, groups=d_inner)
        self.act = nn.SiLU()
        self.x_proj_weight = nn.Parameter(torch.randn(K, dt_rank + d_state * 2, d_inner) * 0.1)
        self.dt_projs_weight = nn.Parameter(torch.randn(K, d_inner, dt_rank) * 0.1)
        self.dt_projs_bias = nn.Parameter(torch.randn(K, d_inner) * 0.1)
        self.A_logs = nn.Parameter(torch.log(torch.arange(1, d_state + 1, dtype=torch.float32)).repeat(K * d_inner, 1))
        self.Ds = nn.Parameter(torch.ones(K * d_inner))
        self.out_norm = nn.LayerNorm(d_inner)
        self.out_proj = nn.Linear(d_inner, d_model, bias=False)

    def forward(self, x: torch.Tensor):
        x = self.in_proj(x)
        x, z = x.chunk(2, dim=-1)  # (b, h, w, d)
        z = self.act(z)
        x = x.permute(0, 3, 1, 2).contiguous()
        x = self.act(self.conv2d(x))  # (b, d, h, w)
        y = cross_selective_scan(x, self.x_proj_weight, self.dt_projs_weight, self.dt_projs_bias,
                                 self.A_logs, self.Ds, self.out_norm, SelectiveScan=SelectiveScanOflex)
        y = y * z
        return self.out_proj(y)


def make_model():
    return SS2D().eval()


def example_inputs():
    return (torch.randn(2, 6, 6, 16),)


def other_inputs():
    return [(torch.randn(3, 5, 7, 16),), (torch.randn(1, 8, 4, 16),)]


def probe_inputs():
    return other_inputs()
