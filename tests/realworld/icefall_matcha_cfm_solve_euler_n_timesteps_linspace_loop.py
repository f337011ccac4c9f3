"""Matcha-TTS flow-matching decoder as in icefall's `matcha` recipe: `BASECFM.forward` builds
`t_span = torch.linspace(0, 1, n_timesteps + 1)` and `solve_euler` runs `for step in range(1, len(t_span))` with
`dt = t_span[step + 1] - t`. icefall's `export_onnx.py` cannot give the ODE step count to the graph: it bakes
`num_steps` into a wrapper and writes one ONNX file per step count (`model-steps-2.onnx` ... `model-steps-6.onnx`,
`num_ode_steps` in the metadata). Here the step count is the tensor input the forward takes.
(Tiny conv estimator in place of the U-Net decoder; the `torch.randn_like(mu) * temperature` noise is an input `z`
so the case is deterministic.)

Source: https://github.com/k2-fsa/icefall/pull/1773
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"mu": {0: "batch", 2: "frames"}, "mask": {0: "batch", 2: "frames"}, "z": {0: "batch", 2: "frames"}}
BLIND = "domains-74"


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        assert self.dim % 2 == 0, "SinusoidalPosEmb requires dim to be even"

    def forward(self, x, scale=1000):
        if x.ndim < 1:
            x = x.unsqueeze(0)
        device = x.device
        half_dim = self.dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, device=device).float() * -emb)
        emb = scale * x.unsqueeze(1) * emb.unsqueeze(0)
        emb = torch.cat((emb.sin(), emb.cos()), dim=-1)
        return emb


class Decoder(nn.Module):
    def __init__(self, in_channels, out_channels, channels=32):
        super().__init__()
        self.time_embeddings = SinusoidalPosEmb(in_channels)
        self.time_mlp = nn.Sequential(nn.Linear(in_channels, channels * 4), nn.SiLU(),
                                      nn.Linear(channels * 4, channels * 4))
        self.block1 = nn.Conv1d(in_channels, channels, 3, padding=1)
        self.mlp = nn.Linear(channels * 4, channels)
        self.block2 = nn.Conv1d(channels, channels, 3, padding=1)
        self.final_proj = nn.Conv1d(channels, out_channels, 1)

    def forward(self, x, mask, mu, t, spks=None, cond=None):
        t = self.time_embeddings(t)
        t = self.time_mlp(t)
        x = torch.cat([x, mu], dim=1)
        h = F.mish(self.block1(x * mask)) + self.mlp(F.mish(t)).unsqueeze(-1)
        h = F.mish(self.block2(h * mask))
        output = self.final_proj(h * mask)
        return output * mask


class BASECFM(nn.Module):
    def __init__(self, n_feats, n_spks=1, spk_emb_dim=128):
        super().__init__()
        self.n_feats = n_feats
        self.n_spks = n_spks
        self.spk_emb_dim = spk_emb_dim
        self.sigma_min = 1e-4
        self.estimator = None

    @torch.inference_mode()
    def forward(self, mu, mask, z, n_timesteps, spks=None, cond=None):
        t_span = torch.linspace(0, 1, n_timesteps + 1, device=mu.device)
        return self.solve_euler(
            z, t_span=t_span, mu=mu, mask=mask, spks=spks, cond=cond
        )

    def solve_euler(self, x, t_span, mu, mask, spks, cond):
        t, _, dt = t_span[0], t_span[-1], t_span[1] - t_span[0]

        # I am storing this because I can later plot it by putting a debugger here and saving it to a file
        # Or in future might add like a return_all_steps flag
        sol = []

        for step in range(1, len(t_span)):
            dphi_dt = self.estimator(x, mask, mu, t, spks, cond)

            x = x + dt * dphi_dt
            t = t + dt
            sol.append(x)
            if step < len(t_span) - 1:
                dt = t_span[step + 1] - t

        return sol[-1]


class CFM(BASECFM):
    def __init__(self, in_channels=2 * 20, out_channel=20, n_spks=1, spk_emb_dim=64):
        super().__init__(n_feats=in_channels, n_spks=n_spks, spk_emb_dim=spk_emb_dim)
        in_channels = in_channels + (spk_emb_dim if n_spks > 1 else 0)
        self.estimator = Decoder(in_channels=in_channels, out_channels=out_channel)


def make_model():
    return CFM().eval()


def _inputs(batch, frames, steps):
    mu = torch.randn(batch, 20, frames)
    mask = torch.ones(batch, 1, frames)
    return (mu, mask, torch.randn(batch, 20, frames), torch.tensor(steps))


def example_inputs():
    return _inputs(1, 24, 5)


def other_inputs():
    return [_inputs(2, 37, 2), _inputs(1, 11, 6)]


def probe_inputs():
    return other_inputs()
