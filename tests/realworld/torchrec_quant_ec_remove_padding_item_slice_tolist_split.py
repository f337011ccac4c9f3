"""TorchRec inference EmbeddingCollection (quant) for sequence features: the TBE lookup returns one row per
*padded* index, and `construct_jagged_tensors_inference(..., remove_padding=True)` trims the padding with
`_slice_1d_tensor(embeddings, 0, int(lengths.sum().item()))`, then splits the rows per feature with
`length_per_key = _fx_to_list(torch.sum(lengths, dim=1))` (`.tolist()`). The fix commit says the inlined
`int(lengths.sum().item())` "breaks the graph" when the module is traced for inference export.

Source: https://github.com/meta-pytorch/torchrec/pull/4198
"""
from collections import defaultdict
from typing import Dict, List, NamedTuple

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"indices": {0: "num_indices"}, "lengths": {1: "batch"}}
BLIND = "domains-67"


class JaggedTensor(NamedTuple):
    lengths: torch.Tensor
    values: torch.Tensor


def _fx_to_list(tensor: torch.Tensor) -> List[int]:
    return tensor.long().tolist()


def _slice_1d_tensor(tensor: torch.Tensor, start: int, end: int) -> torch.Tensor:
    """
    Slice tensor.
    """
    return tensor[start:end]


def construct_jagged_tensors_inference(
    embeddings: torch.Tensor,
    lengths: torch.Tensor,
    values: torch.Tensor,
    embedding_names: List[str],
    remove_padding: bool = False,
) -> Dict[str, JaggedTensor]:
    if remove_padding:
        embeddings = _slice_1d_tensor(embeddings, 0, int(lengths.sum().item()))

    ret: Dict[str, JaggedTensor] = {}

    length_per_key: List[int] = _fx_to_list(torch.sum(lengths, dim=1))

    lengths_tuple = torch.unbind(lengths, dim=0)

    embeddings_list = torch.split(embeddings, length_per_key, dim=0)

    key_indices = defaultdict(list)
    for i, key in enumerate(embedding_names):
        key_indices[key].append(i)
    for key, indices in key_indices.items():
        ret[key] = JaggedTensor(
            lengths=lengths_tuple[indices[0]],
            values=(
                embeddings_list[indices[0]]
                if len(indices) == 1
                else torch.cat([embeddings_list[i] for i in indices], dim=1)
            ),
        )
    return ret


class QuantEmbeddingCollection(nn.Module):
    """Inference EC over one table shared by two sequence features; the padded lookup stands in for the STBE."""

    def __init__(self, num_embeddings=100, embedding_dim=8, embedding_names=("item_seq", "cate_seq")):
        super().__init__()
        self.emb_module = nn.Embedding(num_embeddings, embedding_dim)
        self._embedding_names = list(embedding_names)
        self.remove_padding = True

    def forward(self, indices, lengths):
        lookup = self.emb_module(indices)
        jt = construct_jagged_tensors_inference(
            embeddings=lookup,
            lengths=lengths,
            values=indices,
            embedding_names=self._embedding_names,
            remove_padding=self.remove_padding,
        )
        return tuple(t for name in self._embedding_names for t in (jt[name].values, jt[name].lengths))


def make_model():
    return QuantEmbeddingCollection().eval()


def _inputs(batch, pad):
    lengths = torch.randint(1, 4, (2, batch))
    total = int(lengths.sum())
    indices = torch.randint(0, 100, (total + pad,))
    return (indices, lengths)


def example_inputs():
    return _inputs(3, 2)


def other_inputs():
    return [_inputs(5, 3), _inputs(2, 4)]


def probe_inputs():
    return other_inputs()
