"""A state-space decoder returning its state in a cache object (transformers' Mamba: a MambaCache)
built from a config class that takes no arguments. The legacy exporter cannot flatten the cache;
`--fix` first tries `use_cache=False` at the config (here it breaks the factory: MambaConfig()
takes no arguments), drops that, and exports the output's tensors (flat_outputs)."""
import torch
from torch import nn


class MambaConfig:
    hidden_size = 6


class MambaCache:
    def __init__(self):
        self.ssm_states = []


class Mixer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, x):
        cache = MambaCache()
        h = torch.tanh(self.proj(x))
        cache.ssm_states.append(h[:, -1])
        return h, cache


def make_model():
    torch.manual_seed(0)
    return Mixer(MambaConfig())


def example_inputs():
    return (torch.randn(2, 5, 6),)


def probe_inputs():
    return [(torch.randn(3, 4, 6),)]
