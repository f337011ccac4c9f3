"""Reactor digital-twin Neural CDE: the observation sequence is turned into a torchcde natural cubic spline
(`natural_cubic_coeffs`: a Python check loop over the time stamps and a tridiagonal solve written as a loop over
the sequence length into NumPy object arrays), then the CDE is integrated with a torchdiffeq fixed-grid solver.
The project's ONNX exporter gives up on the whole model and exports only the vector field `cde_func`: "Control path
interpolation (torchcde) cannot be traced to ONNX", forcing the legacy exporter (dynamo=False) on torch >= 2.6.

Source: https://github.com/ktubhyam/reactor-twin/blob/c3ceddc0314fb5c9dd60eec7eae781f639f63d7e/src/reactor_twin/export/onnx_export.py
"""
import math

import numpy as np
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"controls": {0: "batch", 1: "length"}, "t_span": {0: "length"}}
BLIND = "domains-86"


# --- torchcde/misc.py ---
def tridiagonal_solve(b, A_upper, A_diagonal, A_lower):
    A_upper, _ = torch.broadcast_tensors(A_upper, b[..., :-1])
    A_lower, _ = torch.broadcast_tensors(A_lower, b[..., :-1])
    A_diagonal, b = torch.broadcast_tensors(A_diagonal, b)

    channels = b.size(-1)

    new_b = np.empty(channels, dtype=object)
    new_A_diagonal = np.empty(channels, dtype=object)
    outs = np.empty(channels, dtype=object)

    new_b[0] = b[..., 0]
    new_A_diagonal[0] = A_diagonal[..., 0]
    for i in range(1, channels):
        w = A_lower[..., i - 1] / new_A_diagonal[i - 1]
        new_A_diagonal[i] = A_diagonal[..., i] - w * A_upper[..., i - 1]
        new_b[i] = b[..., i] - w * new_b[i - 1]

    outs[channels - 1] = new_b[channels - 1] / new_A_diagonal[channels - 1]
    for i in range(channels - 2, -1, -1):
        outs[i] = (new_b[i] - A_upper[..., i] * outs[i + 1]) / new_A_diagonal[i]

    return torch.stack(outs.tolist(), dim=-1)


def validate_input_path(x, t):
    prev_t_i = -math.inf
    for t_i in t:
        if t_i <= prev_t_i:
            raise ValueError("t must be monotonically increasing.")
        prev_t_i = t_i
    return t


# --- torchcde/interpolation_cubic.py (no missing values) ---
def _natural_cubic_spline_coeffs_without_missing_values(t, x):
    length = x.size(-1)
    time_diffs = t[1:] - t[:-1]
    time_diffs_reciprocal = time_diffs.reciprocal()
    time_diffs_reciprocal_squared = time_diffs_reciprocal ** 2
    three_path_diffs = 3 * (x[..., 1:] - x[..., :-1])
    six_path_diffs = 2 * three_path_diffs
    path_diffs_scaled = three_path_diffs * time_diffs_reciprocal_squared

    system_diagonal = torch.empty(length, dtype=x.dtype, device=x.device)
    system_diagonal[:-1] = time_diffs_reciprocal
    system_diagonal[-1] = 0
    system_diagonal[1:] += time_diffs_reciprocal
    system_diagonal *= 2
    system_rhs = torch.empty_like(x)
    system_rhs[..., :-1] = path_diffs_scaled
    system_rhs[..., -1] = 0
    system_rhs[..., 1:] += path_diffs_scaled
    knot_derivatives = tridiagonal_solve(system_rhs, time_diffs_reciprocal, system_diagonal,
                                         time_diffs_reciprocal)

    a = x[..., :-1]
    b = knot_derivatives[..., :-1]
    two_c = (six_path_diffs * time_diffs_reciprocal
             - 4 * knot_derivatives[..., :-1]
             - 2 * knot_derivatives[..., 1:]) * time_diffs_reciprocal
    three_d = (-six_path_diffs * time_diffs_reciprocal
               + 3 * (knot_derivatives[..., :-1]
                      + knot_derivatives[..., 1:])) * time_diffs_reciprocal_squared
    return a, b, two_c, three_d


def natural_cubic_coeffs(x, t):
    t = validate_input_path(x, t)
    a, b, two_c, three_d = _natural_cubic_spline_coeffs_without_missing_values(t, x.transpose(-1, -2))
    return torch.cat([a.transpose(-1, -2), b.transpose(-1, -2), two_c.transpose(-1, -2),
                      three_d.transpose(-1, -2)], dim=-1)


class CubicSpline(nn.Module):
    def __init__(self, coeffs, t):
        super().__init__()
        channels = coeffs.size(-1) // 4
        self._t = t
        self._a, self._b = coeffs[..., :channels], coeffs[..., channels:2 * channels]
        self._two_c, self._three_d = coeffs[..., 2 * channels:3 * channels], coeffs[..., 3 * channels:]

    def _interpret_t(self, t):
        maxlen = self._b.size(-2) - 1
        index = torch.bucketize(t.detach(), self._t.detach()).sub(1).clamp(0, maxlen)
        fractional_part = t - self._t[index]
        return fractional_part, index

    def derivative(self, t):
        fractional_part, index = self._interpret_t(t)
        fractional_part = fractional_part.unsqueeze(-1)
        inner = self._two_c[..., index, :] + self._three_d[..., index, :] * fractional_part
        return self._b[..., index, :] + inner * fractional_part


# --- torchdiffeq fixed-grid Euler (torchcde.cdeint(method="euler")) ---
def cdeint_euler(X, func, z0, t):
    def vector_field(t_, z):
        return (func(t_, z) @ X.derivative(t_).unsqueeze(-1)).squeeze(-1)

    solution = torch.empty(len(t), *z0.shape, dtype=z0.dtype, device=z0.device)
    solution[0] = z0
    j = 1
    y0 = z0
    for t0, t1 in zip(t[:-1], t[1:]):
        dt = t1 - t0
        y1 = y0 + dt * vector_field(t0, y0)
        while j < len(t) and t1 >= t[j]:
            solution[j] = y0 + (t[j] - t0) / dt * (y1 - y0)
            j += 1
        y0 = y1
    return solution.transpose(0, 1)


class CDEFunc(nn.Module):
    def __init__(self, state_dim, input_dim, hidden_dim=32):
        super().__init__()
        self.state_dim, self.input_dim = state_dim, input_dim
        self.net = nn.Sequential(nn.Linear(state_dim, hidden_dim), nn.Tanh(),
                                 nn.Linear(hidden_dim, state_dim * input_dim))

    def forward(self, t, z):
        batch_size = z.shape[0]
        output = self.net(z)
        return output.view(batch_size, self.state_dim, self.input_dim)


class NeuralCDE(nn.Module):
    def __init__(self, state_dim=8, input_dim=3, hidden_dim=32):
        super().__init__()
        self.initial_network = nn.Sequential(nn.Linear(input_dim, hidden_dim), nn.ReLU(),
                                             nn.Linear(hidden_dim, state_dim))
        self.cde_func = CDEFunc(state_dim, input_dim, hidden_dim)
        self.readout = nn.Linear(state_dim, input_dim)

    def forward(self, controls, t_span):
        coeffs = natural_cubic_coeffs(controls, t_span)
        X = CubicSpline(coeffs, t_span)
        z_initial = self.initial_network(controls[:, 0, :])
        z_trajectory = cdeint_euler(X, self.cde_func, z_initial, t_span)
        return self.readout(z_trajectory)


def make_model():
    return NeuralCDE().eval()


def _inputs(batch, length):
    t = torch.cumsum(torch.rand(length) * 0.5 + 0.1, 0)
    return (torch.randn(batch, length, 3), t)


def example_inputs():
    return _inputs(2, 10)


def other_inputs():
    return [_inputs(3, 14), _inputs(1, 6)]


def probe_inputs():
    return other_inputs()
