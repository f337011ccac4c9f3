"""TorchRec KeyedJaggedTensor exported through `KJTInputExportWrapper` (the model gets flat `values` and
`lengths`, rebuilds the KJT and returns `kjt["key0"]`): `KJT.__getitem__` takes `offset_per_key()`, i.e. the
cumsum of `length_per_key = torch.sum(lengths.view(-1, stride), dim=1).tolist()`, and slices
`self._values[start_offset:end_offset]`; the report: non-strict torch.export forces specialization on the
data-dependent `tensor[symint:symint]` slice (dynamo also specializes on narrow). (KeyedJaggedTensor and
JaggedTensor are trimmed copies of the torchrec classes of that time.)

Source: https://github.com/pytorch/pytorch/issues/119321
"""
from typing import Dict, List, Optional

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"values": {0: "num_values"}, "lengths": {0: "num_lengths"}}
BLIND = "domains-32"


def _cumsum(o: List[int]) -> List[int]:
    ret = [0] * (len(o) + 1)
    for i in range(len(o)):
        ret[i + 1] = ret[i] + o[i]
    return ret


class JaggedTensor:
    def __init__(self, values: torch.Tensor, lengths: torch.Tensor, weights=None, offsets=None) -> None:
        self._values = values
        self._lengths = lengths

    def values(self) -> torch.Tensor:
        return self._values

    def lengths(self) -> torch.Tensor:
        return self._lengths


class KeyedJaggedTensor:
    def __init__(self, keys: List[str], values: torch.Tensor, lengths: torch.Tensor,
                 weights: Optional[torch.Tensor] = None) -> None:
        self._keys = keys
        self._values = values
        self._lengths = lengths
        self._weights = weights
        self._stride = lengths.numel() // len(keys) if len(keys) else 0
        self._length_per_key: Optional[List[int]] = None
        self._offset_per_key: Optional[List[int]] = None
        self._index_per_key: Optional[Dict[str, int]] = None

    def lengths(self) -> torch.Tensor:
        return self._lengths

    def weights_or_none(self) -> Optional[torch.Tensor]:
        return self._weights

    def length_per_key(self) -> List[int]:
        if self._length_per_key is None:
            self._length_per_key = torch.sum(self._lengths.view(-1, self._stride), dim=1).tolist()
        return self._length_per_key

    def offset_per_key(self) -> List[int]:
        if self._offset_per_key is None:
            self._offset_per_key = _cumsum(self.length_per_key())
        return self._offset_per_key

    def _key_indices(self) -> Dict[str, int]:
        if self._index_per_key is None:
            self._index_per_key = {key: i for i, key in enumerate(self._keys)}
        return self._index_per_key

    def __getitem__(self, key: str) -> JaggedTensor:
        offset_per_key = self.offset_per_key()
        index = self._key_indices()[key]
        start_offset = offset_per_key[index]
        end_offset = (
            offset_per_key[index + 1]
            if index + 1 < len(offset_per_key)
            else start_offset
        )
        return JaggedTensor(
            values=self._values[start_offset:end_offset],
            weights=None
            if self.weights_or_none() is None
            else self._weights[start_offset:end_offset],
            lengths=self.lengths()[index * self._stride : (index + 1) * self._stride],
            offsets=None,
        )


class M(nn.Module):
    def forward(self, kjt: KeyedJaggedTensor):
        return kjt["key0"]


class KJTInputExportWrapper(nn.Module):
    def __init__(self, module_kjt_input: nn.Module, kjt_keys: List[str]) -> None:
        super().__init__()
        self._module_kjt_input = module_kjt_input
        self._kjt_keys = kjt_keys

    def forward(self, values: torch.Tensor, lengths: torch.Tensor):
        kjt = KeyedJaggedTensor(keys=self._kjt_keys, values=values, lengths=lengths)
        output = self._module_kjt_input(kjt)
        # torchrec returns the pytree leaves of the output JaggedTensor
        return output.values(), output.lengths()


def make_model():
    return KJTInputExportWrapper(M(), [f"key{i}" for i in range(4)]).eval()


def _kjt(lengths):
    lengths = torch.tensor(lengths, dtype=torch.int32)
    values = torch.randint(0, 100, (int(lengths.sum()),), dtype=torch.int32)
    return values, lengths


def example_inputs():
    return _kjt([1, 2, 1, 1, 3, 0, 2, 1])


def other_inputs():
    return [_kjt([2, 0, 3, 1, 1, 4, 2, 2, 1, 0, 3, 5]), _kjt([3, 1, 2, 2])]


def probe_inputs():
    return other_inputs()
