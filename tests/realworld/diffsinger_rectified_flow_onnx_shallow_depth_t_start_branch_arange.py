"""DiffSinger's `RectifiedFlowONNX.forward` (shallow diffusion with rectified flow): the `depth` input gives
`t_start = torch.max(1 - depth, ...)`, the forward branches on `t_start <= 0.` / `t_start >= 1.` and `dt > 0.`, and
the Euler loop runs `for t in torch.arange(t_start, 1., dt)` - values and a step count that come from the `depth`
tensor. The exporter in this commit only traces the WaveNet denoiser and compiles this sampler with
`torch.jit.script`, since a trace cannot follow these value branches and data-sized loop.
(Tiny WaveNet; `noise`, drawn with `torch.randn` inside the original forward, is an input so the case is
deterministic; `steps` keeps its Python default.)

Source: https://github.com/openvpi/DiffSinger/commit/a554cea7820e53f2d1b530c4dbac018cf79c3819
"""
import math
from math import sqrt

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"condition": {1: "frames"}, "x_end": {1: "frames"}, "noise": {3: "frames"}}
BLIND = "domains-74"

HIDDEN_SIZE = 32


class Conv1d(torch.nn.Conv1d):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        nn.init.kaiming_normal_(self.weight)


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        device = x.device
        half_dim = self.dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, device=device) * -emb)
        emb = x[:, None] * emb[None, :]
        emb = torch.cat((emb.sin(), emb.cos()), dim=-1)
        return emb


class ResidualBlock(nn.Module):
    def __init__(self, encoder_hidden, residual_channels, dilation):
        super().__init__()
        self.residual_channels = residual_channels
        self.dilated_conv = nn.Conv1d(residual_channels, 2 * residual_channels, kernel_size=3,
                                      padding=dilation, dilation=dilation)
        self.diffusion_projection = nn.Linear(residual_channels, residual_channels)
        self.conditioner_projection = nn.Conv1d(encoder_hidden, 2 * residual_channels, 1)
        self.output_projection = nn.Conv1d(residual_channels, 2 * residual_channels, 1)

    def forward(self, x, conditioner, diffusion_step):
        diffusion_step = self.diffusion_projection(diffusion_step).unsqueeze(-1)
        conditioner = self.conditioner_projection(conditioner)
        y = x + diffusion_step
        y = self.dilated_conv(y) + conditioner
        gate, filter = torch.split(y, [self.residual_channels, self.residual_channels], dim=1)
        y = torch.sigmoid(gate) * torch.tanh(filter)
        y = self.output_projection(y)
        residual, skip = torch.split(y, [self.residual_channels, self.residual_channels], dim=1)
        return (x + residual) / math.sqrt(2.0), skip


class WaveNet(nn.Module):
    def __init__(self, in_dims, n_feats, *, n_layers=2, n_chans=16, n_dilates=4):
        super().__init__()
        self.in_dims = in_dims
        self.n_feats = n_feats
        self.input_projection = Conv1d(in_dims * n_feats, n_chans, 1)
        self.diffusion_embedding = SinusoidalPosEmb(n_chans)
        self.mlp = nn.Sequential(nn.Linear(n_chans, n_chans * 4), nn.Mish(), nn.Linear(n_chans * 4, n_chans))
        self.residual_layers = nn.ModuleList([
            ResidualBlock(encoder_hidden=HIDDEN_SIZE, residual_channels=n_chans, dilation=2 ** (i % n_dilates))
            for i in range(n_layers)
        ])
        self.skip_projection = Conv1d(n_chans, n_chans, 1)
        self.output_projection = Conv1d(n_chans, in_dims * n_feats, 1)

    def forward(self, spec, diffusion_step, cond):
        if self.n_feats == 1:
            x = spec.squeeze(1)  # [B, M, T]
        else:
            x = spec.flatten(start_dim=1, end_dim=2)  # [B, F x M, T]
        x = self.input_projection(x)  # [B, C, T]
        x = F.relu(x)
        diffusion_step = self.diffusion_embedding(diffusion_step)
        diffusion_step = self.mlp(diffusion_step)
        skip = []
        for layer in self.residual_layers:
            x, skip_connection = layer(x, cond, diffusion_step)
            skip.append(skip_connection)
        x = torch.sum(torch.stack(skip), dim=0) / sqrt(len(self.residual_layers))
        x = self.skip_projection(x)
        x = F.relu(x)
        x = self.output_projection(x)  # [B, M, T]
        if self.n_feats == 1:
            x = x[:, None, :, :]
        else:
            x = x.reshape(-1, self.n_feats, self.in_dims, x.shape[2])
        return x


class RectifiedFlowONNX(nn.Module):
    def __init__(self, out_dims=16, num_feats=1, t_start=0.4, time_scale_factor=1000, spec_min=-5.0, spec_max=0.0):
        super().__init__()
        self.denoise_fn = WaveNet(out_dims, num_feats)
        self.out_dims = out_dims
        self.num_feats = num_feats
        self.t_start = t_start
        self.time_scale_factor = time_scale_factor
        spec_min = torch.FloatTensor([spec_min])[None, None, :out_dims].transpose(-3, -2)
        spec_max = torch.FloatTensor([spec_max])[None, None, :out_dims].transpose(-3, -2)
        self.register_buffer('spec_min', spec_min)
        self.register_buffer('spec_max', spec_max)

    def sample_euler(self, x, t, dt: float, cond):
        x += self.denoise_fn(x, t * self.time_scale_factor, cond) * dt
        return x

    def norm_spec(self, x):
        k = (self.spec_max - self.spec_min) / 2.
        b = (self.spec_max + self.spec_min) / 2.
        return (x - b) / k

    def denorm_spec(self, x):
        k = (self.spec_max - self.spec_min) / 2.
        b = (self.spec_max + self.spec_min) / 2.
        return x * k + b

    def forward(self, condition, x_end, depth, noise, steps: int = 10):
        condition = condition.transpose(1, 2)  # [1, T, H] => [1, H, T]
        device = condition.device
        if x_end is None:
            t_start = 0.
            x = noise
        else:
            t_start = torch.max(1 - depth, torch.tensor(self.t_start, dtype=torch.float32, device=device))
            x_end = self.norm_spec(x_end).transpose(-2, -1)
            if self.num_feats == 1:
                x_end = x_end[:, None, :, :]
            if t_start <= 0.:
                x = noise
            elif t_start >= 1.:
                x = x_end
            else:
                x = t_start * x_end + (1 - t_start) * noise

        dt = (1 - t_start) / max(1, steps)
        if dt > 0.:
            for t in torch.arange(t_start, 1., dt, dtype=torch.float32, device=device)[:, None]:
                x = self.sample_euler(x, t, dt, condition)

        if self.num_feats == 1:
            x = x.squeeze(1).permute(0, 2, 1)  # [B, 1, M, T] => [B, T, M]
        else:
            x = x.permute(0, 1, 3, 2)  # [B, F, M, T] => [B, F, T, M]
        x = self.denorm_spec(x)
        return x


def make_model():
    return RectifiedFlowONNX().eval()


def _inputs(frames, depth):
    return (torch.randn(1, frames, HIDDEN_SIZE), torch.randn(1, frames, 16) - 2.5, torch.tensor(depth),
            torch.randn(1, 1, 16, frames))


def example_inputs():
    return _inputs(20, 0.5)


def other_inputs():
    return [_inputs(31, 0.25), _inputs(9, 0.6), _inputs(14, 0.0)]


def probe_inputs():
    return other_inputs()
