"""SpikingJelly SNN with `IFNode(step_mode='m', detach_reset=True, backend='torch', v_threshold=0.1)`: in eval mode
the multi-step forward turns the float membrane memory into a tensor (`v_float_to_tensor`), then calls the
`@torch.jit.script` static method `jit_eval_multi_step_forward_hard_reset(x_seq, self.v, ...)`, which loops over
the time steps, and stores the last membrane back into the `MemoryModule` memory `self.v` (kept between calls
until `reset_net`); dynamo fails at that call ("Set TORCH_LOGS=+dynamo ...").

Source: https://github.com/fangwei123456/spikingjelly/issues/587
"""
import copy
from typing import Optional

import torch
import torch.nn as nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x_seq": {0: "time"}}
BLIND = "domains-75"


# --- spikingjelly/activation_based/base.py (0.0.0.0.14) ---
class StepModule:
    def supported_step_mode(self):
        return ('s', 'm')

    @property
    def step_mode(self):
        return self._step_mode

    @step_mode.setter
    def step_mode(self, value: str):
        if value not in self.supported_step_mode():
            raise ValueError(f'step_mode can only be {self.supported_step_mode()}, but got "{value}"!')
        self._step_mode = value


class MemoryModule(nn.Module, StepModule):
    def __init__(self):
        super().__init__()
        self._memories = {}
        self._memories_rv = {}
        self._backend = 'torch'
        self.step_mode = 's'

    def forward(self, *args, **kwargs):
        if self.step_mode == 's':
            return self.single_step_forward(*args, **kwargs)
        elif self.step_mode == 'm':
            return self.multi_step_forward(*args, **kwargs)
        else:
            raise ValueError(self.step_mode)

    def register_memory(self, name: str, value):
        assert not hasattr(self, name), f'{name} has been set as a member variable!'
        self._memories[name] = value
        self.set_reset_value(name, value)

    def reset(self):
        for key in self._memories.keys():
            self._memories[key] = copy.deepcopy(self._memories_rv[key])

    def set_reset_value(self, name: str, value):
        self._memories_rv[name] = copy.deepcopy(value)

    def __getattr__(self, name: str):
        if '_memories' in self.__dict__:
            memories = self.__dict__['_memories']
            if name in memories:
                return memories[name]
        return super().__getattr__(name)

    def __setattr__(self, name: str, value) -> None:
        _memories = self.__dict__.get('_memories')
        if _memories is not None and name in _memories:
            _memories[name] = value
        else:
            super().__setattr__(name, value)


# --- spikingjelly/activation_based/neuron.py (0.0.0.0.14; eval path of the torch backend) ---
class BaseNode(MemoryModule):
    def __init__(self, v_threshold: float = 1., v_reset: Optional[float] = 0., surrogate_function=None,
                 detach_reset: bool = False, step_mode='s', backend='torch', store_v_seq: bool = False):
        assert isinstance(v_reset, float) or v_reset is None
        assert isinstance(v_threshold, float)
        assert isinstance(detach_reset, bool)
        super().__init__()
        if v_reset is None:
            self.register_memory('v', 0.)
        else:
            self.register_memory('v', v_reset)
        self.v_threshold = v_threshold
        self.v_reset = v_reset
        self.detach_reset = detach_reset
        self.surrogate_function = surrogate_function
        self.step_mode = step_mode
        self.backend = backend
        self.store_v_seq = store_v_seq

    def v_float_to_tensor(self, x: torch.Tensor):
        if isinstance(self.v, float):
            v_init = self.v
            self.v = torch.full_like(x.data, v_init)


class IFNode(BaseNode):
    @staticmethod
    @torch.jit.script
    def jit_eval_multi_step_forward_hard_reset(x_seq: torch.Tensor, v: torch.Tensor, v_threshold: float,
                                               v_reset: float):
        spike_seq = torch.zeros_like(x_seq)
        for t in range(x_seq.shape[0]):
            v = v + x_seq[t]
            spike = (v >= v_threshold).to(x_seq)
            v = v_reset * spike + (1. - spike) * v
            spike_seq[t] = spike
        return spike_seq, v

    @staticmethod
    @torch.jit.script
    def jit_eval_multi_step_forward_soft_reset(x_seq: torch.Tensor, v: torch.Tensor, v_threshold: float):
        spike_seq = torch.zeros_like(x_seq)
        for t in range(x_seq.shape[0]):
            v = v + x_seq[t]
            spike = (v >= v_threshold).to(x_seq)
            v = v - spike * v_threshold
            spike_seq[t] = spike
        return spike_seq, v

    def multi_step_forward(self, x_seq: torch.Tensor):
        # (training branch with the torch / cupy surrogate-gradient kernels left out)
        self.v_float_to_tensor(x_seq[0])
        if self.v_reset is None:
            spike_seq, self.v = self.jit_eval_multi_step_forward_soft_reset(x_seq, self.v, self.v_threshold)
        else:
            spike_seq, self.v = self.jit_eval_multi_step_forward_hard_reset(x_seq, self.v, self.v_threshold,
                                                                            self.v_reset)
        return spike_seq


class SpikingClassifier(nn.Module):
    def __init__(self, in_features=34, hidden=64, num_classes=10):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.lif = IFNode(step_mode='m', detach_reset=True, backend='torch', v_threshold=0.1)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, x_seq):  # x_seq: [T, N, in_features]
        T, N = x_seq.shape[0], x_seq.shape[1]
        h = self.fc1(x_seq.flatten(0, 1)).reshape(T, N, -1)
        spike_seq = self.lif(h)
        return self.fc2(spike_seq.mean(0))


def make_model():
    return SpikingClassifier().eval()


def example_inputs():
    return (torch.randn(8, 2, 34),)


def other_inputs():
    return [(torch.randn(12, 2, 34),), (torch.randn(5, 2, 34),)]


def probe_inputs():
    return other_inputs()
