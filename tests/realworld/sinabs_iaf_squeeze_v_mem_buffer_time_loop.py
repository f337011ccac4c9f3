"""Sinabs spiking CNN (Conv2d -> AvgPool2d -> IAFSqueeze, converted from a ReLU ANN) exported with a dynamic
time axis (`dynamic_axes={"tchw_input": [0]}`): `IAF.forward` lazily (re)creates its `v_mem` buffer with
`register_buffer` when `state_has_shape` fails, loops `for step in range(time_steps)` over the time axis,
fires through the `MultiSpike` surrogate-gradient autograd.Function and writes the membrane back to
`self.v_mem`, so the state survives between calls; after the stateful-layer refactor the ONNX tests
(export, then compare with onnxruntime) were switched off ("deactivate ONNX tests for now").

Source: https://github.com/synsense/sinabs/commit/759009a9a79f989050db714ce7fc2fccd54ffc31
"""
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import torch
import torch.nn as nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "time"}}
BLIND = "domains-75"


# --- sinabs/activation (spike_generation.py, reset_mechanism.py, surrogate_gradient_fn.py, activation.py) ---
class BackwardClass:
    @staticmethod
    def backward(ctx, grad_output: torch.tensor):
        (v_mem,) = ctx.saved_tensors
        grad = ctx.surrogate_grad_fn(v_mem, ctx.threshold)
        grad_input = grad_output * grad
        return grad_input, None, None


class MultiSpike(torch.autograd.Function, BackwardClass):
    @staticmethod
    def forward(ctx, state: Dict[str, torch.Tensor], threshold: float, surrogate_grad_fn: Callable):
        ctx.save_for_backward(state['v_mem'].clone())
        ctx.threshold = threshold
        ctx.surrogate_grad_fn = surrogate_grad_fn
        spikes = (state['v_mem'] > 0) * torch.div(state['v_mem'], threshold, rounding_mode="trunc").float()
        return spikes


@dataclass
class MembraneSubtract:
    subtract_value: Optional[float] = None

    def __call__(self, spikes, state, threshold):
        if self.subtract_value:
            state['v_mem'] = state['v_mem'] - spikes * self.subtract_value
        else:
            state['v_mem'] = state['v_mem'] - spikes * threshold
        return state


@dataclass
class Heaviside:
    window: float = 1.

    def __call__(self, v_mem, threshold):
        return ((v_mem >= (threshold - self.window)).float()) / threshold


@dataclass
class ActivationFunction:
    spike_threshold: float = 1.
    spike_fn: Callable = MultiSpike
    reset_fn: Callable = field(default_factory=MembraneSubtract)
    surrogate_grad_fn: Callable = field(default_factory=Heaviside)

    def __call__(self, state: Dict[str, torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
        spikes = self.spike_fn.apply(state, self.spike_threshold, self.surrogate_grad_fn)
        state = self.reset_fn(spikes, state, self.spike_threshold)
        return spikes, state


# --- sinabs/layers (stateful_layer.py, iaf.py) ---
class StatefulLayer(torch.nn.Module):
    def __init__(self, state_names: List[str]):
        super().__init__()
        for state_name in state_names:
            self.register_buffer(state_name, torch.nn.parameter.UninitializedBuffer())

    def is_state_initialised(self) -> bool:
        for buff in self.buffers():
            if isinstance(buff, torch.nn.parameter.UninitializedBuffer):
                return False
        return True

    def state_has_shape(self, shape) -> bool:
        for buff in self.buffers():
            if buff.shape != shape:
                return False
        return True

    def init_state_with_shape(self, shape, randomize: bool = False) -> None:
        for name, buffer in self.named_buffers():
            state = torch.rand(shape, device=buffer.device) if randomize else torch.zeros(shape, device=buffer.device)
            self.register_buffer(name, state, persistent=True)


class IAF(StatefulLayer):
    def __init__(self, activation_fn: Callable = ActivationFunction(), threshold_low: Optional[float] = None,
                 shape: Optional[torch.Size] = None):
        super().__init__(state_names=['v_mem'])
        self.activation_fn = activation_fn
        self.threshold_low = threshold_low
        if shape: self.init_state_with_shape(shape)

    def forward(self, input_data: torch.Tensor):
        batch_size, time_steps, *trailing_dim = input_data.shape

        # Ensure the neuron state are initialized
        if not self.is_state_initialised() or not self.state_has_shape((batch_size, *trailing_dim)):
            self.init_state_with_shape((batch_size, *trailing_dim))

        output_spikes = []
        for step in range(time_steps):
            self.v_mem = self.v_mem + input_data[:, step]
            if self.threshold_low:
                self.v_mem = torch.nn.functional.relu(self.v_mem - self.threshold_low) + self.threshold_low
            # generate spikes and adjust v_mem
            spikes, state = self.activation_fn(dict(self.named_buffers()))
            self.v_mem = state['v_mem']
            output_spikes.append(spikes)
        return torch.stack(output_spikes, 1)


class IAFSqueeze(IAF):
    def __init__(self, batch_size=None, num_timesteps=None, **kwargs):
        super().__init__(**kwargs)
        if not batch_size:
            batch_size = -1
        if not num_timesteps:
            num_timesteps = -1
        self.batch_size = batch_size
        self.num_timesteps = num_timesteps

    def forward(self, input_data: torch.Tensor) -> torch.Tensor:
        inflated_input = input_data.reshape(self.batch_size, self.num_timesteps, *input_data.shape[1:])
        inflated_output = super().forward(inflated_input)
        return inflated_output.flatten(start_dim=0, end_dim=1)


class SpikingModel(nn.Module):
    """What `from_model(ann, batch_size=1).spiking_model` builds for the test's ANN (ReLU -> IAFSqueeze)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Conv2d(2, 8, kernel_size=2),
            nn.AvgPool2d(2, stride=2),
            IAFSqueeze(batch_size=1),
            nn.Conv2d(8, 10, kernel_size=3),
            nn.AvgPool2d(3),
            IAFSqueeze(batch_size=1),
        )

    def forward(self, x):  # x: (time, channels, height, width), one sample
        return self.layers(x)


def make_model():
    model = SpikingModel().eval()
    model(torch.zeros(50, 2, 32, 32))  # first pass to create all state variables (as in the test)
    return model


def example_inputs():
    return ((torch.rand(50, 2, 32, 32) > 0.5).float(),)


def other_inputs():
    return [((torch.rand(30, 2, 32, 32) > 0.5).float(),), ((torch.rand(12, 2, 32, 32) > 0.5).float(),)]


def probe_inputs():
    return other_inputs()
