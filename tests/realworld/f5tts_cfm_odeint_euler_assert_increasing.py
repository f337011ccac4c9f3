"""F5-TTS flow-matching sampler: `CFM.sample` integrates the mel velocity field with torchdiffeq's
`odeint(fn, y0, t, method="euler")` over `t = torch.linspace(0, 1, steps + 1)` (with sway sampling); torchdiffeq
checks the time grid on tensor values (`if len(t) > 1 and t[0] > t[1]`, `assert (t[1:] > t[:-1]).all()`,
`assert time_grid[0] == t[0] and time_grid[-1] == t[-1]`, `while j < len(t) and t1 >= t[j]`) and torch.export
fails on these data-dependent checks ("Ran into these errors while trying to export F5-TTS").

Source: https://github.com/rtqichen/torchdiffeq/pull/269
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"cond": {0: "batch", 1: "frames"}, "noise": {0: "batch", 1: "frames"}}
BLIND = "domains-13"


# --- torchdiffeq/_impl (misc.py, solvers.py, fixed_grid.py, odeint.py), trimmed to the euler path ---
def _assert_increasing(name, t):
    assert (t[1:] > t[:-1]).all(), '{} must be strictly increasing or decreasing'.format(name)


def _check_inputs(func, y0, t):
    t_is_reversed = False
    if len(t) > 1 and t[0] > t[1]:
        t_is_reversed = True
    if t_is_reversed:
        t = -t
        _base_func = func
        func = lambda t, y: -_base_func(-t, y)
    _assert_increasing('t', t)
    return func, y0, t, t_is_reversed


class Euler:
    order = 1

    def __init__(self, func, y0):
        self.func = func
        self.y0 = y0
        self.grid_constructor = lambda f, y0, t: t

    def _step_func(self, func, t0, dt, t1, y0):
        f0 = func(t0, y0)
        return dt * f0, f0

    def _linear_interp(self, t0, t1, y0, y1, t):
        if t == t0:
            return y0
        if t == t1:
            return y1
        slope = (t - t0) / (t1 - t0)
        return y0 + slope * (y1 - y0)

    def integrate(self, t):
        time_grid = self.grid_constructor(self.func, self.y0, t)
        assert time_grid[0] == t[0] and time_grid[-1] == t[-1]

        solution = torch.empty(len(t), *self.y0.shape, dtype=self.y0.dtype, device=self.y0.device)
        solution[0] = self.y0

        j = 1
        y0 = self.y0
        for t0, t1 in zip(time_grid[:-1], time_grid[1:]):
            dt = t1 - t0
            dy, f0 = self._step_func(self.func, t0, dt, t1, y0)
            y1 = y0 + dy

            while j < len(t) and t1 >= t[j]:
                solution[j] = self._linear_interp(t0, t1, y0, y1, t[j])
                j += 1
            y0 = y1

        return solution


def odeint(func, y0, t, method="euler"):
    func, y0, t, t_is_reversed = _check_inputs(func, y0, t)
    solver = Euler(func=func, y0=y0)
    return solver.integrate(t)


# --- F5-TTS f5_tts/model/cfm.py, trimmed ---
class VelocityNet(nn.Module):
    def __init__(self, mel_dim=16, dim=32):
        super().__init__()
        self.time_mlp = nn.Sequential(nn.Linear(1, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.proj_in = nn.Linear(mel_dim * 2, dim)
        self.conv = nn.Conv1d(dim, dim, 3, padding=1)
        self.proj_out = nn.Linear(dim, mel_dim)

    def forward(self, x, cond, time):
        h = self.proj_in(torch.cat((x, cond), dim=-1)) + self.time_mlp(time.reshape(1, 1)).unsqueeze(1)
        h = self.conv(h.transpose(1, 2)).transpose(1, 2)
        return self.proj_out(torch.nn.functional.silu(h))


class CFM(nn.Module):
    def __init__(self, mel_dim=16, steps=4, cfg_strength=2.0, sway_sampling_coef=-1.0):
        super().__init__()
        self.transformer = VelocityNet(mel_dim)
        self.steps = steps
        self.cfg_strength = cfg_strength
        self.sway_sampling_coef = sway_sampling_coef
        self.odeint_kwargs = dict(method="euler")

    def forward(self, cond, noise):
        step_cond = cond

        def fn(t, x):
            pred = self.transformer(x=x, cond=step_cond, time=t)
            if self.cfg_strength < 1e-5:
                return pred
            null_pred = self.transformer(x=x, cond=torch.zeros_like(step_cond), time=t)
            return pred + (pred - null_pred) * self.cfg_strength

        y0 = noise
        t_start = 0
        t = torch.linspace(t_start, 1, self.steps + 1, device=cond.device, dtype=step_cond.dtype)
        if self.sway_sampling_coef is not None:
            t = t + self.sway_sampling_coef * (torch.cos(torch.pi / 2 * t) - 1 + t)

        trajectory = odeint(fn, y0, t, **self.odeint_kwargs)
        sampled = trajectory[-1]
        return sampled


def make_model():
    return CFM().eval()


def example_inputs():
    return (torch.randn(2, 24, 16), torch.randn(2, 24, 16))


def other_inputs():
    return [(torch.randn(3, 40, 16), torch.randn(3, 40, 16)), (torch.randn(1, 9, 16), torch.randn(1, 9, 16))]


def probe_inputs():
    return other_inputs()
