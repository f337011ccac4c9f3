"""Chatterbox / CosyVoice S3Gen flow-matching decoder (`CausalConditionalCFM`): the Euler ODE solve preallocates the
classifier-free-guidance pair buffers with `torch.zeros([2, 80, x.size(2)])` and fills them every step with broadcast
assigns (`x_in[:] = x`, `mask_in[:] = mask`, `mu_in[0] = mu`, ...). The report's bake scan found the export recorded
these assigns as Reshape/Expand with the trace-time mel length baked in (`[80, T]`, `[2, 80, T]`), so the conditional
decoder ONNX only ran at the trace-time number of speech tokens (shape mismatch on any other length).
(Estimator reduced to a small conv net with the same six inputs; 10 Euler steps, cosine t-schedule as upstream.)

Source: https://github.com/christopherthompson81/vernacula/pull/49
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"mu": {2: "frames"}, "mask": {2: "frames"}, "cond": {2: "frames"}}
BLIND = "domains-30"


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, scale=1000):
        if x.ndim < 1:
            x = x.unsqueeze(0)
        half_dim = self.dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, device=x.device).float() * -emb)
        emb = scale * x.unsqueeze(1) * emb.unsqueeze(0)
        return torch.cat((emb.sin(), emb.cos()), dim=-1)


class Estimator(nn.Module):
    """Stand-in for the U-Net `ConditionalDecoder`: same call signature, masked convs + time embedding."""

    def __init__(self, in_channels=320, channels=64, out_channels=80):
        super().__init__()
        self.time_embeddings = SinusoidalPosEmb(in_channels)
        self.time_mlp = nn.Sequential(nn.Linear(in_channels, channels), nn.SiLU(), nn.Linear(channels, channels))
        self.conv_in = nn.Conv1d(in_channels, channels, 3, padding=1)
        self.conv_mid = nn.Conv1d(channels, channels, 3, padding=1)
        self.conv_out = nn.Conv1d(channels, out_channels, 1)

    def forward(self, x, mask, mu, t, spks=None, cond=None):
        t = self.time_mlp(self.time_embeddings(t).to(t.dtype))
        x = torch.cat([x, mu], dim=1)
        if spks is not None:
            x = torch.cat([x, spks.unsqueeze(-1).expand(-1, -1, x.shape[-1])], dim=1)
        if cond is not None:
            x = torch.cat([x, cond], dim=1)
        h = F.mish(self.conv_in(x * mask)) + t.unsqueeze(-1)
        h = F.mish(self.conv_mid(h * mask))
        return self.conv_out(h * mask) * mask


class CausalConditionalCFM(nn.Module):
    def __init__(self, n_timesteps=10, inference_cfg_rate=0.7):
        super().__init__()
        self.n_timesteps = n_timesteps
        self.t_scheduler = "cosine"
        self.inference_cfg_rate = inference_cfg_rate
        self.temperature = 1.0
        self.estimator = Estimator()
        self.rand_noise = torch.randn([1, 80, 50 * 300])

    def forward_estimator(self, x, mask, mu, t, spks, cond):
        return self.estimator(x, mask, mu, t, spks, cond)

    def solve_euler(self, x, t_span, mu, mask, spks, cond):
        t, _, dt = t_span[0], t_span[-1], t_span[1] - t_span[0]
        t = t.unsqueeze(dim=0)
        sol = []
        # Do not use concat, it may cause memory format changed and trt infer with wrong results!
        x_in = torch.zeros([2, 80, x.size(2)], device=x.device, dtype=x.dtype)
        mask_in = torch.zeros([2, 1, x.size(2)], device=x.device, dtype=x.dtype)
        mu_in = torch.zeros([2, 80, x.size(2)], device=x.device, dtype=x.dtype)
        t_in = torch.zeros([2], device=x.device, dtype=x.dtype)
        spks_in = torch.zeros([2, 80], device=x.device, dtype=x.dtype)
        cond_in = torch.zeros([2, 80, x.size(2)], device=x.device, dtype=x.dtype)
        for step in range(1, len(t_span)):
            # Classifier-Free Guidance inference introduced in VoiceBox
            x_in[:] = x
            mask_in[:] = mask
            mu_in[0] = mu
            t_in[:] = t.unsqueeze(0)
            spks_in[0] = spks
            cond_in[0] = cond
            dphi_dt = self.forward_estimator(x_in, mask_in, mu_in, t_in, spks_in, cond_in)
            dphi_dt, cfg_dphi_dt = torch.split(dphi_dt, [x.size(0), x.size(0)], dim=0)
            dphi_dt = (1.0 + self.inference_cfg_rate) * dphi_dt - self.inference_cfg_rate * cfg_dphi_dt
            x = x + dt * dphi_dt
            t = t + dt
            sol.append(x)
            if step < len(t_span) - 1:
                dt = t_span[step + 1] - t
        return sol[-1].float()

    def forward(self, mu, mask, spks, cond):
        temperature = self.temperature
        z = self.rand_noise[:, :, : mu.size(2)].to(mu.device).to(mu.dtype) * temperature
        t_span = torch.linspace(0, 1, self.n_timesteps + 1, device=mu.device, dtype=mu.dtype)
        if self.t_scheduler == "cosine":
            t_span = 1 - torch.cos(t_span * 0.5 * torch.pi)
        return self.solve_euler(z, t_span=t_span, mu=mu, mask=mask, spks=spks, cond=cond)


def make_model():
    return CausalConditionalCFM().eval()


def _inputs(frames):
    cond = torch.zeros(1, 80, frames)
    cond[:, :, : frames // 3] = torch.randn(1, 80, frames // 3)  # prompt mel in the first third
    return (torch.randn(1, 80, frames), torch.ones(1, 1, frames), torch.randn(1, 80), cond)


def example_inputs():
    return _inputs(50)


def other_inputs():
    return [_inputs(37), _inputs(64)]


def probe_inputs():
    return other_inputs()
