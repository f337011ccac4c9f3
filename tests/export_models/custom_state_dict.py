"""A network class that overrides `state_dict` to return one dict per named sub-network, behind a
decorator taking `*args, **kwargs` (KonfAI's `Network`, fideus-labs/KonfAI PR #13): the legacy
exporter calls `state_dict(keep_vars=True)` on the model to collect what it traces, and nn.Module's
own state_dict passes `destination=` to each submodule, which the override refuses."""
import functools
from collections import OrderedDict

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}


def per_network(function):
    @functools.wraps(function)
    def wrapper(self, *args, **kwargs):
        return {self.name: function(self, *args, **kwargs)}
    return wrapper


class Network(nn.Module):
    def __init__(self, name):
        super().__init__()
        self.name = name
        self.body = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))

    @per_network
    def state_dict(self):
        destination = OrderedDict()
        self._save_to_state_dict(destination, "", False)
        for name, module in self._modules.items():
            module.state_dict(destination=destination, prefix=name + ".", keep_vars=False)
        return destination

    def forward(self, x):
        return self.body(x)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.network = Network("UNet")

    def forward(self, x):
        return self.network(x).softmax(-1)


def make_model():
    torch.manual_seed(0)
    return Head().eval()


def example_inputs():
    return (torch.randn(2, 6),)


def probe_inputs():
    return [(torch.randn(5, 6),)]
