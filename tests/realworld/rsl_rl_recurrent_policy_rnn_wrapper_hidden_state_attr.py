"""rsl_rl's recurrent actor keeps the LSTM state on its `RNN` wrapper: in inference mode it runs
`out, self.hidden_state = self.rnn(input.unsqueeze(0), self.hidden_state)`, so the state lives in a plain module
attribute mutated on every call; the PR adding ONNX/JIT export has to bypass this wrapper ("Access underlying torch
module to avoid wrapper logic during export") and pass `h_in`/`c_in` explicitly, because exporting the policy as
written freezes the recurrent state.

Source: https://github.com/leggedrobotics/rsl_rl/pull/170
"""
from __future__ import annotations

from typing import Union

import torch
import torch.nn as nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {}
BLIND = "domains-33"

HiddenState = Union[torch.Tensor, tuple[torch.Tensor, torch.Tensor], None]


def unpad_trajectories(trajectories, masks):
    return trajectories.transpose(1, 0)[masks.transpose(1, 0)].view(-1, trajectories.shape[0], trajectories.shape[-1]).transpose(1, 0)


class EmpiricalNormalization(nn.Module):
    def __init__(self, shape, eps=1e-2):
        super().__init__()
        self.eps = eps
        self.register_buffer("_mean", torch.zeros(shape).unsqueeze(0))
        self.register_buffer("_std", torch.ones(shape).unsqueeze(0))

    def forward(self, x):
        return (x - self._mean) / (self._std + self.eps)


class RNN(nn.Module):
    """Network for recurrent architectures.

    This network is used to store the hidden state of the policy. It currently supports GRU and LSTM.
    """

    def __init__(self, input_size: int, hidden_dim: int = 256, num_layers: int = 1, type: str = "lstm") -> None:
        super().__init__()
        rnn_cls = nn.GRU if type.lower() == "gru" else nn.LSTM
        self.rnn = rnn_cls(input_size=input_size, hidden_size=hidden_dim, num_layers=num_layers)
        self.hidden_state = None

    def forward(self, input: torch.Tensor, masks: torch.Tensor | None = None, hidden_state: HiddenState = None) -> torch.Tensor:
        batch_mode = masks is not None
        if batch_mode:
            # Batch mode needs saved hidden states
            if hidden_state is None:
                raise ValueError("Hidden states not passed to RNN module during policy update")
            out, _ = self.rnn(input, hidden_state)
            out = unpad_trajectories(out, masks)
        else:
            # Inference/distillation mode uses hidden state of last step
            out, self.hidden_state = self.rnn(input.unsqueeze(0), self.hidden_state)
        return out


class RNNModel(nn.Module):
    def __init__(self, obs_dim=48, output_dim=12, hidden_dims=(128, 64), rnn_hidden_dim=64, rnn_num_layers=1, rnn_type="lstm"):
        super().__init__()
        self.obs_normalizer = EmpiricalNormalization(obs_dim)
        self.rnn = RNN(obs_dim, rnn_hidden_dim, rnn_num_layers, rnn_type)
        layers, d = [], rnn_hidden_dim
        for h in hidden_dims:
            layers += [nn.Linear(d, h), nn.ELU()]
            d = h
        layers.append(nn.Linear(d, output_dim))
        self.mlp = nn.Sequential(*layers)

    def get_latent(self, obs, masks=None, hidden_state=None):
        latent = self.obs_normalizer(obs)
        # Pass through the RNN
        latent = self.rnn(latent, masks, hidden_state).squeeze(0)
        return latent

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.get_latent(obs))


def make_model():
    return RNNModel().eval()


def example_inputs():
    return (torch.randn(1, 48),)


def other_inputs():
    return [(torch.randn(1, 48),), (torch.randn(1, 48),)]


def probe_inputs():
    return other_inputs()
