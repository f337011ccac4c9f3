"""RLlib recurrent policy: `ray.rllib.utils.torch_utils.sequence_mask` builds the padding mask of the
trajectory batch with `maxlen = int(lengths.max())` and `torch.ones((len(lengths), maxlen))`; torch.jit.trace
warns "Converting a tensor to a Python integer might cause the trace to be incorrect" and "Using len to get
tensor shape might cause the trace to be incorrect", so batch size and longest sequence length are frozen.
(Policy trimmed to an LSTM over padded observations whose per-step logits are masked.)

Source: https://github.com/ray-project/ray/pull/30684
"""
from typing import Optional

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"obs": {0: "batch", 1: "time"}, "seq_lens": {0: "batch"}}
BLIND = "domains-20"


def sequence_mask(
    lengths,
    maxlen: Optional[int] = None,
    dtype=None,
    time_major: bool = False,
):
    """Offers same behavior as tf.sequence_mask for torch."""
    # If maxlen not given, use the longest lengths in the `lengths` tensor.
    if maxlen is None:
        maxlen = int(lengths.max())

    mask = ~(
        torch.ones((len(lengths), maxlen)).to(lengths.device).cumsum(dim=1).t()
        > lengths
    )
    # Time major transformation.
    if not time_major:
        mask = mask.t()

    # By default, set the mask to be boolean.
    mask.type(dtype or torch.bool)

    return mask


class LSTMPolicy(nn.Module):
    def __init__(self, obs_dim=6, cell_size=16, num_outputs=4):
        super().__init__()
        self.fc = nn.Linear(obs_dim, cell_size)
        self.lstm = nn.LSTM(cell_size, cell_size, batch_first=True)
        self.logits = nn.Linear(cell_size, num_outputs)

    def forward(self, obs, seq_lens):
        # obs: [B, T, obs_dim], zero-padded to the longest trajectory in the batch
        x = torch.relu(self.fc(obs))
        features, _ = self.lstm(x)
        logits = self.logits(features)
        mask = sequence_mask(seq_lens)  # [B, T]
        return logits * mask.unsqueeze(-1)


def make_model():
    return LSTMPolicy().eval()


def _batch(lengths):
    seq_lens = torch.tensor(lengths)
    obs = torch.randn(len(lengths), max(lengths), 6)
    for i, n in enumerate(lengths):
        obs[i, n:] = 0.0
    return (obs, seq_lens)


def example_inputs():
    return _batch([5, 3, 8])


def other_inputs():
    return [_batch([10, 2, 7, 4]), _batch([4, 6])]


def probe_inputs():
    return other_inputs()
