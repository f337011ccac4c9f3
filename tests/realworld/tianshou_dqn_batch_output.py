"""Tianshou DQN policy with an action mask: `forward` builds q-values (masked with `to_torch_as(1 - mask,
logits) * min_value`), takes `act = to_numpy(q.max(dim=1)[1])` and returns a `Batch(logits=..., act=...,
state=...)`; torch.onnx.export rejects it ("Only tuples, lists and Variables supported as JIT inputs/outputs ...
got unsupported type Batch").

Source: https://github.com/thu-ml/tianshou/issues/314
"""
import numpy as np
import torch
from torch import nn

CLASS = "outputs"
FAMILY = "numpy_interop"
DYNAMIC = {"obs": {0: "batch"}, "mask": {0: "batch"}}
BLIND = "domains-2"


class Batch(dict):
    """Minimal stand-in for tianshou.data.Batch (attribute access over a dict)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key)


def to_numpy(x):
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asanyarray(x)


def to_torch_as(x, y):
    return torch.as_tensor(x, dtype=y.dtype, device=y.device)


class Net(nn.Module):
    def __init__(self, state_shape=8, action_shape=5):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(state_shape, 32), nn.ReLU(), nn.Linear(32, action_shape))

    def forward(self, obs, state=None, info={}):
        logits = self.model(obs.reshape(obs.shape[0], -1))
        return logits, state


class DQNPolicy(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def compute_q_value(self, logits, mask):
        if mask is not None:
            # the masked q value should be smaller than logits.min()
            min_value = logits.min() - logits.max() - 1.0
            logits = logits + to_torch_as(1 - mask, logits) * min_value
        return logits

    def forward(self, batch, state=None, model="model", input="obs", **kwargs):
        model = getattr(self, model)
        obs = batch[input]
        obs_next = obs.obs if hasattr(obs, "obs") else obs
        logits, hidden = model(obs_next, state=state, info=batch.info)
        q = self.compute_q_value(logits, getattr(obs, "mask", None))
        if not hasattr(self, "max_action_num"):
            self.max_action_num = q.shape[1]
        act = to_numpy(q.max(dim=1)[1])
        return Batch(logits=logits, act=act, state=hidden)


class ExportPolicy(nn.Module):
    """What the user exports: observation + action mask in, policy output out."""

    def __init__(self, policy):
        super().__init__()
        self.policy = policy

    def forward(self, obs, mask):
        return self.policy(Batch(obs=Batch(obs=obs, mask=mask), info=Batch()))


def make_model():
    return ExportPolicy(DQNPolicy(Net())).eval()


def _inputs(b):
    mask = (torch.rand(b, 5) > 0.3).float()
    mask[:, 0] = 1.0
    return (torch.randn(b, 8), mask)


def example_inputs():
    return _inputs(4)


def other_inputs():
    return [_inputs(6), _inputs(1)]


def probe_inputs():
    return other_inputs()
