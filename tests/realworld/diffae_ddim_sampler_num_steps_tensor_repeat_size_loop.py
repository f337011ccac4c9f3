"""Diffusion-autoencoder (DiffAE) latent DDIM sampler exported with the number of inference steps `T` as a tensor
input: `forward(T)` builds the respaced schedule with `torch.linspace(0, T_orig, torch.ones(1).repeat(T).size(0) + 1)`
and `sample()` loops `for t in torch.arange(0, n_iter).flip(0).view(-1, 1)` with `n_iter = torch.ones(1).repeat(T).size(0)`.
The author's export commit (which also swaps `torch.cumprod` for an exp-cumsum-log) notes that this loop "will use
static iteration count => cannot trace", marks `sample` as untraceable and exports per-step models instead: the step
count taken from a tensor value is baked into the graph.

Source: https://github.com/harskish/diffae/commit/6acd1a7dc23041f018e7878b77500678aa54ed62
"""
from typing import Callable, NamedTuple
import math

import numpy as np
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x0_lat": {0: "batch"}}
BLIND = "domains-40"


def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class LatentNetReturn(NamedTuple):
    pred: torch.Tensor = None


class MLPSkipNet(nn.Module):
    def __init__(self, num_channels=32, num_time_emb_channels=16):
        super().__init__()
        self.num_time_emb_channels = num_time_emb_channels
        self.time_embed = nn.Sequential(nn.Linear(num_time_emb_channels, num_channels), nn.SiLU(),
                                        nn.Linear(num_channels, num_channels))
        self.layers = nn.ModuleList([nn.Linear(num_channels, num_channels) for _ in range(2)])

    def forward(self, x, t):
        t = timestep_embedding(t, self.num_time_emb_channels)
        cond = self.time_embed(t)
        h = x
        for layer in self.layers:
            h = torch.nn.functional.silu(layer(h) + cond)
        return LatentNetReturn(h)


# Numerically unstable, but probably OK for small tensors
def onnx_compatible_cumprod(t: torch.Tensor, dim: int=0):
    x = t                        # [1, 2]
    x = torch.log(x)             # [log(1), log(2)]
    x = torch.cumsum(x, dim=dim) # [log(1), log(1)+log(2)] = [log(1), log(1*2)]
    x = torch.exp(x)             # [e^log(1), e^log(1*2)] = [1, 1*2]
    return x


# Traceable sampler
class _DDIMSamplerTorch(torch.nn.Module):
    def __init__(self, T_orig=1000, dtype=torch.float32, is_lat=True):
        super().__init__()
        scale = 1000 / T_orig
        betas = np.linspace(scale * 0.0001, scale * 0.02, T_orig, dtype=np.float64)
        alphas = 1.0 - betas
        self.alphas_cumprod = torch.tensor(np.cumprod(alphas, axis=0), dtype=dtype)  # constant
        self.T_orig = T_orig  # constant
        self.is_lat = is_lat

    # Sample for T iteration
    def sample(self, T: torch.Tensor, x0: torch.Tensor, eval_model: Callable):
        params = self.forward(T)  # tuple

        x = x0

        # The below loop over the ternsor will use static iteration count
        # => cannot trace
        n_iter = torch.ones(1).repeat(T).size(0)
        for t in torch.arange(0, n_iter, device=x0.device).flip(0).view(-1, 1):
            x = self.sample_incr(t, x, eval_model, *params)

        return x

    # Sample incrementally (single iteration)
    def sample_incr(self, t, x, eval_model: Callable, timestep_map, alphas_cumprod, alphas_cumprod_prev,
                    sqrt_recip_alphas_cumprod, sqrt_recipm1_alphas_cumprod):
        eta = 0.0

        def _predict_eps_from_xstart(x_t, t, pred_xstart):
            num = _extract_into_tensor(sqrt_recip_alphas_cumprod, t, x_t.shape) * x_t - pred_xstart
            denom = _extract_into_tensor(sqrt_recipm1_alphas_cumprod, t, x_t.shape)
            return num / denom

        def _predict_xstart_from_eps(x_t, t, eps):
            assert x_t.shape == eps.shape
            a1 = _extract_into_tensor(sqrt_recip_alphas_cumprod, t, x_t.shape)
            a2 = _extract_into_tensor(sqrt_recipm1_alphas_cumprod, t, x_t.shape)
            return (a1 * x_t - a2 * eps)

        def _extract_into_tensor(arr, timesteps, broadcast_shape):
            res = arr.float().to(device=timesteps.device)[timesteps]
            while len(res.shape) < len(broadcast_shape):
                res = res[..., None]
            return res.expand(broadcast_shape)

        map_tensor = timestep_map.to(t.device)
        model_forward = eval_model(x, map_tensor[t])
        model_output = model_forward.pred

        pred_xstart = _predict_xstart_from_eps(x_t=x, t=t, eps=model_output)
        if not self.is_lat:
            pred_xstart = pred_xstart.clamp(-1, 1)

        eps = _predict_eps_from_xstart(x, t, pred_xstart)
        alpha_bar = _extract_into_tensor(alphas_cumprod, t, x.shape)
        alpha_bar_prev = _extract_into_tensor(alphas_cumprod_prev, t, x.shape)
        sigma = (eta * torch.sqrt((1 - alpha_bar_prev) / (1 - alpha_bar)) * torch.sqrt(1 - alpha_bar / alpha_bar_prev))

        # Equation 12.
        mean_pred = (pred_xstart * torch.sqrt(alpha_bar_prev) + torch.sqrt(1 - alpha_bar_prev - sigma**2) * eps)
        return mean_pred

    # Get params given number of inference steps T
    def forward(self, T: torch.Tensor):
        dtype = self.alphas_cumprod.dtype
        const_one = torch.tensor([1.0], dtype=dtype)

        timestep_map = torch.linspace(0, self.T_orig, torch.ones(1).repeat(T).size(0) + 1, dtype=torch.int64)[:-1]
        alphas_cumprod = self.alphas_cumprod[timestep_map]
        padded = torch.cat((const_one, alphas_cumprod), dim=0)
        betas = 1 - padded[1:] / padded[:-1]

        alphas = 1.0 - betas
        alphas_cumprod = onnx_compatible_cumprod(alphas, dim=0) # ONNX has no cumprod...
        alphas_cumprod_prev = torch.cat((const_one, alphas_cumprod[:-1]))
        sqrt_recip_alphas_cumprod = torch.sqrt(1.0 / alphas_cumprod)
        sqrt_recipm1_alphas_cumprod = torch.sqrt(1.0 / alphas_cumprod - 1)

        # jit.trace requires a constant container (tuple instead of list, NamedTuple instead of dict)
        return (timestep_map, alphas_cumprod, alphas_cumprod_prev, sqrt_recip_alphas_cumprod,
                sqrt_recipm1_alphas_cumprod)


class DiffAELatentSampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.lat_sampl = _DDIMSamplerTorch(is_lat=True)
        self.lat_net = MLPSkipNet()

    def forward(self, T_lat: torch.Tensor, x0_lat: torch.Tensor):
        return self.lat_sampl.sample(T_lat, x0_lat, lambda x, t: self.lat_net(x, t))


def make_model():
    return DiffAELatentSampler().eval()


def example_inputs():
    return (torch.tensor([10]), torch.randn(2, 32))


def other_inputs():
    return [(torch.tensor([4]), torch.randn(3, 32)), (torch.tensor([7]), torch.randn(1, 32))]


def probe_inputs():
    return other_inputs()
