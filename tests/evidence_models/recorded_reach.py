"""A policy whose action comes from a distribution object that a method returns
(Stable-Baselines3's `distribution.get_actions(deterministic=...)`): the static reach cannot tell
what `dist` is, so `get_actions` is no export-time code to it. One recorded eager run shows that
it runs in forward, with `deterministic` a 0-d bool tensor (an input of the model)."""
import torch
from torch import nn


class Gaussian:
    def setup(self, mean, log_std):
        self.mean, self.std = mean, log_std.exp()
        return self

    def sample(self):
        return self.mean + self.std * torch.randn_like(self.mean)

    def spread(self):
        return float(self.std.mean())  # a number for logging: eager only

    def get_actions(self, deterministic):
        if deterministic:
            return self.mean
        return self.sample()


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(6, 4)
        self.log_std = nn.Parameter(torch.zeros(4))
        self.dist = Gaussian()

    def forward(self, obs, deterministic):
        dist = self.dist.setup(self.net(obs), self.log_std)
        if not torch.onnx.is_in_onnx_export():
            self.logged = dist.spread()  # ran by the recorded eager run, by no exporter
        return dist.get_actions(deterministic)


def example_inputs():
    return (torch.randn(2, 6), torch.tensor(True))


def probe_inputs():
    return [(torch.randn(5, 6), torch.tensor(True))]


DYNAMIC = {"obs": {0: "batch"}}
