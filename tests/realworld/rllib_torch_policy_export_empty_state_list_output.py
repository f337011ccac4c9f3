"""RLlib (old API stack) TorchPolicy.export_model: the policy's ModelV2 is exported with
`(dummy_inputs, state_ins, seq_lens)` and its `forward(input_dict, state, seq_lens)` returns
`logits, state`. For a non-recurrent model (the default fully connected net) the internal state list is
empty, and the PR that implemented the export notes that torch cannot handle "the otherwise empty internal
states list that is returned by RLlib's ModelV2s" (a fake state input has to be provided instead).

Source: https://github.com/ray-project/ray/pull/13989
"""
import torch
from torch import nn

CLASS = "outputs"
FAMILY = "control_flow"
DYNAMIC = {}   # the observations come in a dict (RLlib's dummy batch); RLlib serves this policy per step
BLIND = "domains-31"


class SlimFC(nn.Module):
    def __init__(self, in_size, out_size, activation_fn=None):
        super().__init__()
        layers = [nn.Linear(in_size, out_size)]
        if activation_fn is not None:
            layers.append(activation_fn())
        self._model = nn.Sequential(*layers)

    def forward(self, x):
        return self._model(x)


class FullyConnectedNetwork(nn.Module):
    """Generic fully connected network (RLlib's default torch model for a Box observation)."""

    def __init__(self, obs_dim=4, num_outputs=2, hiddens=(64, 64)):
        super().__init__()
        layers = []
        prev_layer_size = obs_dim
        for size in hiddens:
            layers.append(SlimFC(prev_layer_size, size, activation_fn=nn.Tanh))
            prev_layer_size = size
        self._hidden_layers = nn.Sequential(*layers)
        self._logits = SlimFC(prev_layer_size, num_outputs)
        self._value_branch = SlimFC(prev_layer_size, 1)
        self._features = None
        self._last_flat_in = None

    def forward(self, input_dict, state, seq_lens):
        obs = input_dict["obs_flat"].float()
        self._last_flat_in = obs.reshape(obs.shape[0], -1)
        self._features = self._hidden_layers(self._last_flat_in)
        logits = self._logits(self._features) if self._logits else self._features
        return logits, state

    def value_function(self):
        return self._value_branch(self._features).squeeze(1)


def make_model():
    return FullyConnectedNetwork().eval()


def _inputs(scale=1.0):
    obs = torch.randn(1, 4) * scale
    dummy_inputs = {"obs": obs, "obs_flat": obs}
    state_ins = []   # non-recurrent model: no internal state
    seq_lens = torch.tensor([1])
    return (dummy_inputs, state_ins, seq_lens)


def example_inputs():
    return _inputs()


def other_inputs():
    return [_inputs(2.0), _inputs(0.5)]


def probe_inputs():
    return other_inputs()
