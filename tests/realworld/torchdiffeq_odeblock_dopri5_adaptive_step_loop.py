"""Neural ODE block (torchdiffeq's ODE-Net example): `odeint(self.odefunc, x, self.integration_time)` with the
default adaptive dopri5 solver, whose initial step size is picked by comparing norms of the state
(`if d0 < 1e-5 or d1 < 1e-5`) and which keeps stepping `while next_t > self.rk_state.t1`, accepting or rejecting
steps from the error ratio; the report asks whether a module that uses odeint under the hood can be exported
to ONNX at all.

Source: https://github.com/rtqichen/torchdiffeq/issues/235
"""
import collections

import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-34"

# --- trimmed from torchdiffeq/_impl (dopri5.py, rk_common.py, misc.py) ---
A = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
     [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
     [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
     [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
C = [0., 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1., 1.]
B_SOL = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
B_ERR = [35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
         -2187 / 6784 + 12231 / 42400, 11 / 84 - 649 / 6300, -1. / 60.]
_RungeKuttaState = collections.namedtuple('_RungeKuttaState', 'y1, f1, t0, t1, dt, y0')


def _rms_norm(tensor):
    return tensor.abs().pow(2).mean().sqrt()


def _select_initial_step(func, t0, y0, order, rtol, atol, norm, f0):
    scale = atol + torch.abs(y0) * rtol
    d0 = norm(y0 / scale).abs()
    d1 = norm(f0 / scale).abs()
    if d0 < 1e-5 or d1 < 1e-5:
        h0 = torch.tensor(1e-6, dtype=y0.dtype, device=y0.device)
    else:
        h0 = 0.01 * d0 / d1
    y1 = y0 + h0 * f0
    f1 = func(t0 + h0, y1)
    d2 = torch.abs(norm((f1 - f0) / scale) / h0)
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = torch.max(torch.tensor(1e-6, dtype=y0.dtype, device=y0.device), h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1. / float(order + 1))
    return torch.min(100 * h0, h1)


class Dopri5Solver:
    def __init__(self, func, y0, rtol=1e-7, atol=1e-9, safety=0.9, ifactor=10.0, dfactor=0.2, max_num_steps=2 ** 31 - 1):
        self.func, self.y0, self.rtol, self.atol = func, y0, rtol, atol
        self.safety, self.ifactor, self.dfactor, self.max_num_steps = safety, ifactor, dfactor, max_num_steps

    def integrate(self, t):
        solution = [self.y0]
        f0 = self.func(t[0], self.y0)
        first_step = _select_initial_step(self.func, t[0], self.y0, 4, self.rtol, self.atol, _rms_norm, f0)
        self.rk_state = _RungeKuttaState(self.y0, f0, t[0], t[0], first_step, self.y0)
        for i in range(1, len(t)):
            solution.append(self._advance(t[i]))
        return torch.stack(solution)

    def _advance(self, next_t):
        n_steps = 0
        while next_t > self.rk_state.t1:
            assert n_steps < self.max_num_steps, 'max_num_steps exceeded ({}>={})'.format(n_steps, self.max_num_steps)
            self.rk_state = self._adaptive_step(self.rk_state)
            n_steps += 1
        s = self.rk_state
        return s.y0 + (next_t - s.t0) / (s.t1 - s.t0) * (s.y1 - s.y0)

    def _adaptive_step(self, rk_state):
        y0, f0, _, t0, dt, _ = rk_state
        k = [f0]
        for i in range(1, 7):
            yi = y0 + dt * sum(a * kj for a, kj in zip(A[i], k))
            k.append(self.func(t0 + C[i] * dt, yi))
        y1 = y0 + dt * sum(b * kj for b, kj in zip(B_SOL, k))
        y1_error = dt * sum(b * kj for b, kj in zip(B_ERR, k))
        error_tol = self.atol + self.rtol * torch.max(y0.abs(), y1.abs())
        error_ratio = _rms_norm(y1_error / error_tol)
        accept_step = error_ratio <= 1
        dfactor = self.dfactor if error_ratio >= 1 else 1.0
        factor = torch.min(torch.as_tensor(self.ifactor), torch.max(self.safety * error_ratio ** -0.2, torch.as_tensor(dfactor)))
        dt_next = dt * factor
        if accept_step:
            return _RungeKuttaState(y1, k[-1], t0, t0 + dt, dt_next, y0)
        return _RungeKuttaState(rk_state.y1, f0, rk_state.t0, t0, dt_next, rk_state.y0)


def odeint(func, y0, t, rtol=1e-7, atol=1e-9):
    return Dopri5Solver(func, y0, rtol=rtol, atol=atol).integrate(t)
# --- end of torchdiffeq excerpt ---


class ODEfunc(nn.Module):
    def __init__(self, dim):
        super(ODEfunc, self).__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.fc2 = nn.Linear(dim, dim)
        self.nfe = 0

    def forward(self, t, x):
        self.nfe += 1
        return self.fc2(torch.tanh(self.fc1(x)))


class ODEBlock(nn.Module):
    def __init__(self, odefunc, tol=1e-3):
        super(ODEBlock, self).__init__()
        self.odefunc = odefunc
        self.integration_time = torch.tensor([0, 1]).float()
        self.tol = tol

    def forward(self, x):
        self.integration_time = self.integration_time.type_as(x)
        out = odeint(self.odefunc, x, self.integration_time, rtol=self.tol, atol=self.tol)
        return out[1]


def make_model():
    return ODEBlock(ODEfunc(16))


def example_inputs():
    return (torch.randn(4, 16),)


def other_inputs():
    return [(torch.randn(7, 16) * 3,), (torch.randn(1, 16) * 0.1,)]


def probe_inputs():
    return other_inputs()
