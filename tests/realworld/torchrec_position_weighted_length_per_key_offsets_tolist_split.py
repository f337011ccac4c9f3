"""TorchRec `PositionWeightedModuleCollection` (position-weighted EmbeddingBagCollection feature processor): the
KJT is built with both lengths and offsets, so `length_per_key()` takes the offsets path
`torch.sum(torch.diff(offsets).view(-1, stride), dim=1).tolist()` and `get_weights_list` splits the
position sequence with it (`torch.split(cat_seq, features.length_per_key())`). Under PT2 this fails with
"Could not guard on data-dependent expression ... (Size-like symbols: u38, u37)" in the slice after the
`.tolist()`; the fix reorders `_maybe_compute_length_per_key` to prefer lengths.

Source: https://github.com/pytorch/torchrec/pull/2306
"""
from typing import Dict, List, Optional

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"values": {0: "nnz"}, "lengths": {1: "batch"}}
BLIND = "domains-67"


def offsets_range(offsets: torch.Tensor, range_size: int) -> torch.Tensor:
    # torch.ops.fbgemm.offsets_range: position of every value inside its own bag
    pos = torch.arange(range_size, device=offsets.device)
    bag = (pos[None, :] >= offsets[1:, None]).sum(0)
    return pos - offsets[bag]


def _maybe_compute_length_per_key(keys, stride, length_per_key, lengths, offsets) -> List[int]:
    if length_per_key is None:
        if len(keys) and offsets is not None and len(offsets) > 0:
            _length: List[int] = torch.sum(torch.diff(offsets).view(-1, stride), dim=1).tolist()
        elif len(keys) and lengths is not None:
            _length: List[int] = torch.sum(lengths.view(len(keys), stride), dim=1).tolist()
        else:
            _length: List[int] = []
        length_per_key = _length
    return length_per_key


class KeyedJaggedTensor:
    def __init__(self, keys, values, lengths, offsets, stride, length_per_key=None):
        self._keys, self._values, self._lengths = keys, values, lengths
        self._offsets, self._stride, self._length_per_key = offsets, stride, length_per_key

    def keys(self):
        return self._keys

    def values(self):
        return self._values

    def offsets(self):
        return self._offsets

    def length_per_key(self) -> List[int]:
        self._length_per_key = _maybe_compute_length_per_key(
            self._keys, self._stride, self._length_per_key, self._lengths, self._offsets
        )
        return self._length_per_key


def get_weights_list(cat_seq, features, position_weights: Dict[str, nn.Parameter]) -> Optional[torch.Tensor]:
    weights_list = []
    seqs = torch.split(cat_seq, features.length_per_key())
    for key, seq in zip(features.keys(), seqs):
        if key in position_weights.keys():
            weights_list.append(torch.gather(position_weights[key], dim=0, index=seq))
        else:
            weights_list.append(torch.ones(seq.shape[0], device=features.values().device))
    return torch.cat(weights_list) if weights_list else None


class PositionWeightedEBC(nn.Module):
    def __init__(self, max_feature_lengths={"clicked_items": 8, "liked_items": 8}, num_embeddings=100, dim=8):
        super().__init__()
        self.keys = list(max_feature_lengths)
        self.position_weights = nn.ParameterDict(
            {k: nn.Parameter(torch.linspace(1.0, 0.3, n)) for k, n in max_feature_lengths.items()}
        )
        self.position_weights_dict = {k: self.position_weights[k] for k in self.keys}
        self.ebc = nn.EmbeddingBag(num_embeddings, dim, mode="sum")

    def forward(self, values, lengths):
        stride = lengths.size(1)
        offsets = torch.nn.functional.pad(torch.cumsum(lengths.flatten(), 0), (1, 0))
        features = KeyedJaggedTensor(self.keys, values, lengths.flatten(), offsets, stride)
        cat_seq = offsets_range(features.offsets().long(), torch.numel(features.values()))
        weights = get_weights_list(cat_seq, features, self.position_weights_dict)
        pooled = self.ebc(values, offsets[:-1], per_sample_weights=weights)
        return pooled.view(len(self.keys), stride, -1).transpose(0, 1).reshape(stride, -1)


def make_model():
    return PositionWeightedEBC().eval()


def _inputs(batch):
    lengths = torch.randint(1, 5, (2, batch))
    return (torch.randint(0, 100, (int(lengths.sum()),)), lengths)


def example_inputs():
    return _inputs(3)


def other_inputs():
    return [_inputs(6), _inputs(2)]


def probe_inputs():
    return other_inputs()
