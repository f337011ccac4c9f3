"""RLlib new-API-stack RLModule (PPO-style MLP policy) exported directly with
`torch.onnx.export(rl_module, {"obs": dummy_input}, "model.onnx")`: the module's `forward(batch)` takes a
dict of tensors, and the exporter reads the trailing dict in `args` as keyword arguments, so export fails with
"TorchRLModule.forward() missing 1 required positional argument: 'batch'" (passing `({"obs": x}, {})` works).

Source: https://github.com/ray-project/ray/issues/45526
"""
from typing import Any, Dict

import torch
from torch import nn

CLASS = "exporter-defaults"
FAMILY = "shape_math"
DYNAMIC = {}   # the dict input cannot be named for dynamic axes; RL policies are usually served with batch 1
BLIND = "domains-14"


class Columns:
    OBS = "obs"
    ACTION_DIST_INPUTS = "action_dist_inputs"
    EMBEDDINGS = "embeddings"


class RLModule(nn.Module):
    def forward(self, batch: Dict[str, Any], **kwargs) -> Dict[str, Any]:
        return self._forward(batch, **kwargs)


class TorchRLModule(RLModule):
    pass


class PPOTorchRLModule(TorchRLModule):
    def __init__(self, obs_dim=8, hidden=64, num_actions=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, num_actions)

    def _forward(self, batch: Dict[str, Any], **kwargs) -> Dict[str, Any]:
        output = {}
        embeddings = self.encoder(batch[Columns.OBS])
        output[Columns.EMBEDDINGS] = embeddings
        output[Columns.ACTION_DIST_INPUTS] = self.pi(embeddings)
        return output


def make_model():
    return PPOTorchRLModule().eval()


def example_inputs():
    return ({"obs": torch.randn(2, 8)},)


def other_inputs():
    return [({"obs": torch.randn(2, 8)},), ({"obs": torch.randn(2, 8) * 3.0},)]


def probe_inputs():
    return other_inputs()
