"""RoMa dense feature matcher: the coarse Gaussian-process match decoder (GP) solves the kernel system in
eval mode with `torch.linalg.cholesky` + `torch.cholesky_solve`; the report says neither has an ONNX
operator, so the coarse forward pass cannot be exported as written.

Source: https://github.com/Parskatt/RoMa/issues/151
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "h1", 3: "w1"}, "y": {0: "batch", 2: "h2", 3: "w2"}}
BLIND = "operators-15"


class CosKernel(nn.Module):  # similar to softmax kernel
    def __init__(self, T, learn_temperature=False):
        super().__init__()
        self.learn_temperature = learn_temperature
        self.T = T

    def __call__(self, x, y, eps=1e-6):
        c = torch.einsum("bnd,bmd->bnm", x, y) / (
            x.norm(dim=-1)[..., None] * y.norm(dim=-1)[:, None] + eps
        )
        T = torch.tensor(self.T, device=c.device)
        K = ((c - 1.0) / T).exp()
        return K


class GP(nn.Module):
    def __init__(self, kernel, T=1, learn_temperature=False, gp_dim=64, basis="fourier", sigma_noise=0.1):
        super().__init__()
        self.K = kernel(T=T, learn_temperature=learn_temperature)
        self.sigma_noise = sigma_noise
        self.pos_conv = torch.nn.Conv2d(2, gp_dim, 1, 1)
        self.basis = basis
        self.dim = gp_dim

    def reshape(self, x):
        # einops: rearrange(x, "b d h w -> b (h w) d")
        b, d, h, w = x.shape
        return x.permute(0, 2, 3, 1).reshape(b, h * w, d)

    def project_to_basis(self, x):
        if self.basis == "fourier":
            return torch.cos(8 * math.pi * self.pos_conv(x))
        return self.pos_conv(x)

    def get_pos_enc(self, y):
        b, c, h, w = y.shape
        coarse_coords = torch.meshgrid(
            (
                torch.linspace(-1 + 1 / h, 1 - 1 / h, h, device=y.device),
                torch.linspace(-1 + 1 / w, 1 - 1 / w, w, device=y.device),
            ),
            indexing="ij",
        )
        coarse_coords = torch.stack((coarse_coords[1], coarse_coords[0]), dim=-1)[None].expand(b, h, w, 2)
        coarse_coords = coarse_coords.permute(0, 3, 1, 2)  # "b h w d -> b d h w"
        return self.project_to_basis(coarse_coords)

    def forward(self, x, y):
        b, c, h1, w1 = x.shape
        b, c, h2, w2 = y.shape
        f = self.get_pos_enc(y)
        b, d, h2, w2 = f.shape
        x, y, f = self.reshape(x.float()), self.reshape(y.float()), self.reshape(f)
        K_yy = self.K(y, y)
        K_xy = self.K(x, y)
        sigma_noise = self.sigma_noise * torch.eye(h2 * w2, device=x.device)[None, :, :]
        if self.training:
            K_yy_inv = torch.linalg.inv(K_yy + sigma_noise)
            mu_x = K_xy.matmul(K_yy_inv.matmul(f))
        else:
            # faster inference, possibly also useful for training
            L_t = torch.linalg.cholesky(K_yy + sigma_noise)
            pos_emb = torch.cholesky_solve(f.reshape(b, h2 * w2, d), L_t, upper=False)
            mu_x = K_xy @ pos_emb
        mu_x = mu_x.reshape(b, h1, w1, d).permute(0, 3, 1, 2)  # "b (h w) d -> b d h w"
        return mu_x


def make_model():
    return GP(CosKernel, T=0.2, gp_dim=64, basis="fourier", sigma_noise=0.1).eval()


def example_inputs():
    return (torch.randn(1, 32, 6, 8), torch.randn(1, 32, 6, 8))


def other_inputs():
    return [
        (torch.randn(2, 32, 5, 7), torch.randn(2, 32, 4, 9)),
        (torch.randn(1, 32, 8, 6), torch.randn(1, 32, 7, 5)),
    ]


def probe_inputs():
    return other_inputs()
