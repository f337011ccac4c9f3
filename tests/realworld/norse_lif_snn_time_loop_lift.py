"""Norse spiking network: `Lift` applies a Linear layer and `LIF` integrates a leaky
integrate-and-fire neuron with a Python `for ts in range(T)` loop over the time axis
(`T = input_tensor.shape[0]`); the report asks that these time loops be exported as ONNX loops
instead of being unrolled for the example sequence length.

Source: https://github.com/norse/norse/issues/200
"""
from typing import Any, Callable, NamedTuple, Optional

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "time", 1: "batch"}}
BLIND = "domains-31"


class LIFParameters(NamedTuple):
    tau_syn_inv: torch.Tensor = torch.as_tensor(1.0 / 5e-3)
    tau_mem_inv: torch.Tensor = torch.as_tensor(1.0 / 1e-2)
    v_leak: torch.Tensor = torch.as_tensor(0.0)
    v_th: torch.Tensor = torch.as_tensor(1.0)
    v_reset: torch.Tensor = torch.as_tensor(0.0)


class LIFFeedForwardState(NamedTuple):
    v: torch.Tensor
    i: torch.Tensor


def heaviside(data):
    return torch.gt(data, torch.as_tensor(0.0)).to(data.dtype)


def lif_feed_forward_step(input_tensor, state, p: LIFParameters = LIFParameters(), dt: float = 0.001):
    # compute voltage updates
    dv = dt * p.tau_mem_inv * ((p.v_leak - state.v) + state.i)
    v_decayed = state.v + dv
    # compute current updates
    di = -dt * p.tau_syn_inv * state.i
    i_decayed = state.i + di
    # compute new spikes
    z_new = heaviside(v_decayed - p.v_th)
    # compute reset
    v_new = (1 - z_new) * v_decayed + z_new * p.v_reset
    # compute current jumps
    i_new = i_decayed + input_tensor
    return z_new, LIFFeedForwardState(v=v_new, i=i_new)


class Lift(nn.Module):
    def __init__(self, module: nn.Module):
        super(Lift, self).__init__()
        self.lifted_module = module

    def forward(self, x):
        T = x.shape[0]
        outputs = []
        for ts in range(T):
            out = self.lifted_module(x[ts])
            outputs += [out]
        return torch.stack(outputs)


class SNN(nn.Module):
    def __init__(self, activation: Callable, state_fallback: Callable, p: Any, dt: float = 0.001):
        super().__init__()
        self.activation = activation
        self.state_fallback = state_fallback
        self.p = p
        self.dt = dt

    def forward(self, input_tensor: torch.Tensor, state: Optional[Any] = None):
        state = state if state is not None else self.state_fallback(input_tensor)
        T = input_tensor.shape[0]
        outputs = []
        for ts in range(T):
            out, state = self.activation(input_tensor[ts], state, self.p, self.dt)
            outputs.append(out)
        return torch.stack(outputs), state


class LIF(SNN):
    def __init__(self, p: LIFParameters = LIFParameters(), **kwargs):
        super().__init__(activation=lif_feed_forward_step, state_fallback=self.initial_state, p=p, **kwargs)

    def initial_state(self, input_tensor: torch.Tensor) -> LIFFeedForwardState:
        return LIFFeedForwardState(
            v=torch.full(input_tensor.shape[1:], self.p.v_leak.detach(),  # first dim is time
                         device=input_tensor.device, dtype=input_tensor.dtype),
            i=torch.zeros(*input_tensor.shape[1:], device=input_tensor.device, dtype=input_tensor.dtype),
        )


class SpikingClassifier(nn.Module):
    def __init__(self, in_features=16, hidden=32):
        super().__init__()
        self.lift = Lift(nn.Linear(in_features, hidden))
        self.lif = LIF()

    def forward(self, x):  # x: (time, batch, features)
        spikes, state = self.lif(self.lift(x) * 20.0)
        return spikes, state.v


def make_model():
    return SpikingClassifier().eval()


def example_inputs():
    return (torch.rand(12, 2, 16),)


def other_inputs():
    return [(torch.rand(20, 3, 16),), (torch.rand(7, 1, 16),)]


def probe_inputs():
    return other_inputs()
