"""Neural ODE solved with torchode (Dopri5 + IntegralController + AutoDiffAdjoint): the solver's
`while True:` loop takes adaptive steps until `continue_iterating = torch.any(running)` turns false,
and writes the passed evaluation points with `if to_be_evaluated.any(): ... nonzero()`; the user's
torch.onnx.export of the wrapping Network fails.

Source: https://github.com/martenlienen/torchode/issues/12
"""
from dataclasses import dataclass

import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {}
BLIND = "domains-8"

# --- the torchode lines the model runs (Dopri5 tableau, integral controller, AutoDiffAdjoint.solve) ---
_C = [0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0]
_A = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
      [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
      [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
      [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
_B_ERR = [71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40]


@dataclass
class InitialValueProblem:
    y0: torch.Tensor
    t_eval: torch.Tensor


@dataclass
class Solution:
    ts: torch.Tensor
    ys: torch.Tensor


class ODETerm(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def vf(self, t, y):
        return self.f(t, y)


class Dopri5(nn.Module):
    def __init__(self, term):
        super().__init__()
        self.term = term

    def step(self, running, y, t, dt):
        k = []
        for i in range(7):
            yi = y
            for j, a in enumerate(_A[i]):
                yi = yi + (dt * a)[:, None] * k[j]
            k.append(self.term.vf(t + _C[i] * dt, yi))
        y_new = y
        for a, kj in zip(_A[6], k):
            y_new = y_new + (dt * a)[:, None] * kj
        err = sum((dt * b)[:, None] * kj for b, kj in zip(_B_ERR, k))
        return y_new, err


class IntegralController(nn.Module):
    def __init__(self, atol, rtol, term):
        super().__init__()
        self.atol, self.rtol = atol, rtol

    def adapt_step_size(self, t, dt, y, y_new, err):
        scale = self.atol + self.rtol * torch.maximum(y.abs(), y_new.abs())
        ratio = torch.sqrt(torch.mean((err / scale) ** 2, dim=1))
        accept = ratio <= 1.0
        factor = torch.clamp(0.9 * ratio.clamp(min=1e-10) ** (-1 / 5), 0.2, 10.0)
        return accept, dt * factor


class AutoDiffAdjoint(nn.Module):
    def __init__(self, step_method, step_size_controller):
        super().__init__()
        self.step_method = step_method
        self.step_size_controller = step_size_controller

    def solve(self, problem):
        y, t_eval = problem.y0, problem.t_eval
        batch_size = y.shape[0]
        t = t_eval[:, 0].clone()
        t_end = t_eval[:, -1]
        dt = torch.full_like(t, 0.01)
        y_eval = y.new_empty((batch_size, t_eval.shape[1], y.shape[1]))
        y_eval[:, 0] = y
        not_yet_evaluated = torch.ones_like(t_eval, dtype=torch.bool)
        not_yet_evaluated[:, 0] = False
        running = y.new_ones(batch_size, dtype=torch.bool)
        while True:
            y_new, err = self.step_method.step(running, y, t, dt)
            accept, dt_next = self.step_size_controller.adapt_step_size(t, dt, y, y_new, err)
            to_update = accept & running
            t_prev, y_prev = t, y
            t = torch.where(to_update, t + dt, t)
            y = torch.where(to_update[:, None], y_new, y)
            running = t - t_end < 0.0
            continue_iterating = torch.any(running)
            to_be_evaluated = (t[:, None] - t_eval >= 0.0) & not_yet_evaluated
            if to_be_evaluated.any():
                nonzero = to_be_evaluated.nonzero()
                sample_idx, eval_t_idx = nonzero[:, 0], nonzero[:, 1]
                # (linear instead of Dopri5's dense-output interpolation)
                w = ((t_eval[sample_idx, eval_t_idx] - t_prev[sample_idx])
                     / (t[sample_idx] - t_prev[sample_idx]))[:, None]
                y_eval[sample_idx, eval_t_idx] = y_prev[sample_idx] + w * (y[sample_idx] - y_prev[sample_idx])
                not_yet_evaluated = torch.logical_xor(to_be_evaluated, not_yet_evaluated)
            dt = torch.where(running, dt_next, dt)
            dt = torch.clamp(dt, torch.zeros_like(t), t_end - t)
            if continue_iterating:
                continue
            return Solution(ts=t_eval, ys=y_eval)


# --- the user's model (from the report) ---
class Model(nn.Module):
    def __init__(self, n_features, n_hidden):
        super(Model, self).__init__()
        self.layers = nn.Linear(n_features, n_features)

    def forward(self, t, y):
        return self.layers(y)


class Network(nn.Module):
    def __init__(self):
        super(Network, self).__init__()
        self.model = Model(5, n_hidden=32)
        self.t_eval = torch.tile(torch.linspace(0.0, 3.0, 10), (1, 1))
        self.term = ODETerm(self.model)
        self.step_method = Dopri5(term=self.term)
        self.step_size_controller = IntegralController(atol=1e-6, rtol=1e-3, term=self.term)
        self.adjoint = AutoDiffAdjoint(self.step_method, self.step_size_controller)

    def forward(self, x):
        problem = InitialValueProblem(y0=x, t_eval=self.t_eval)
        sol = self.adjoint.solve(problem)
        return sol.ys[:, -1]


def make_model():
    return Network().eval()


def example_inputs():
    return (torch.randn(1, 5),)


def other_inputs():
    return [(torch.randn(1, 5) * 5.0,), (torch.randn(1, 5) * 0.01,)]


def probe_inputs():
    return other_inputs()
