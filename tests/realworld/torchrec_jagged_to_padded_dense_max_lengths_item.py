"""TorchRec JaggedTensor.to_padded_dense: the pad length is `N = int(torch.max(self.lengths()).item())`
and is passed as the dense width; under non-strict torch.export the bare int() concretizes the
data-dependent max length and export fails (the PR swaps it for torch.sym_int), the TorchScript
trace bakes the example's longest sequence in.

Source: https://github.com/meta-pytorch/torchrec/pull/3939
"""
from typing import List, Optional

import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"values": {0: "nnz"}, "lengths": {0: "batch"}}
BLIND = "domains-28"


def jagged_to_padded_dense(values: torch.Tensor, offsets: List[torch.Tensor], max_lengths: List[int],
                           padding_value: float = 0.0) -> torch.Tensor:
    # plain-torch stand-in for torch.ops.fbgemm.jagged_to_padded_dense (1 jagged dim)
    offs = offsets[0]
    N = max_lengths[0]
    lengths = offs[1:] - offs[:-1]
    pos = torch.arange(N, device=values.device).unsqueeze(0)
    idx = (offs[:-1].unsqueeze(1) + pos).clamp(max=values.size(0) - 1)
    dense = values[idx]
    return torch.where(pos < lengths.unsqueeze(1), dense, torch.full_like(dense, padding_value))


class JaggedTensor:
    def __init__(self, values: torch.Tensor, lengths: torch.Tensor):
        self._values = values
        self._lengths = lengths
        self._offsets = torch.cat([lengths.new_zeros(1), torch.cumsum(lengths, dim=0)])

    def values(self) -> torch.Tensor:
        return self._values

    def lengths(self) -> torch.Tensor:
        return self._lengths

    def offsets(self) -> torch.Tensor:
        return self._offsets

    def to_padded_dense(self, desired_length: Optional[int] = None, padding_value: float = 0.0) -> torch.Tensor:
        if desired_length is None:
            N = int(torch.max(self.lengths()).item())
        else:
            N = desired_length
        return jagged_to_padded_dense(self.values(), [self.offsets()], [N], padding_value)


class SequenceFeatureArch(nn.Module):
    """Scores each user's variable-length id-feature sequence after padding it to a dense block."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, values, lengths):
        jt = JaggedTensor(values=values, lengths=lengths)
        dense = jt.to_padded_dense(padding_value=0.0)
        return torch.tanh(dense * self.scale)


def make_model():
    return SequenceFeatureArch()


def _inputs(lengths):
    lengths = torch.tensor(lengths, dtype=torch.int64)
    return (torch.randn(int(lengths.sum())), lengths)


def example_inputs():
    return _inputs([3, 1, 4])


def other_inputs():
    return [_inputs([2, 6, 1, 5, 3]), _inputs([7, 2])]


def probe_inputs():
    return other_inputs()
