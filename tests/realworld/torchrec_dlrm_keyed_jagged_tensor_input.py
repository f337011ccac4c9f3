"""TorchRec DLRM (dense arch + EmbeddingBagCollection over a KeyedJaggedTensor of sparse id features +
pairwise interaction + over arch): the model takes its sparse features as a `KeyedJaggedTensor` (keys,
values, offsets) and `EmbeddingBagCollection` splits it per key with `to_dict()` (lengths per key via
`.tolist()`); torch.onnx.export fails with "Only tuples, lists and Variables are supported as JIT
inputs/outputs ... received an input of unsupported type: KeyedJaggedTensor". (KeyedJaggedTensor,
EmbeddingBagCollection and DLRM are trimmed copies of the torchrec classes; fbgemm kernels are replaced
by nn.EmbeddingBag.)

Source: https://github.com/meta-pytorch/torchrec/issues/1550
"""
from typing import Dict, List

import torch
from torch import nn

CLASS = "outputs"
FAMILY = "scalars"
DYNAMIC = {"dense_features": {0: "batch"}}
BLIND = "domains-13"


class JaggedTensor:
    def __init__(self, values: torch.Tensor, offsets: torch.Tensor):
        self._values = values
        self._offsets = offsets

    def values(self) -> torch.Tensor:
        return self._values

    def offsets(self) -> torch.Tensor:
        return self._offsets


class KeyedJaggedTensor:
    def __init__(self, keys: List[str], values: torch.Tensor, offsets: torch.Tensor):
        self._keys = keys
        self._values = values
        self._offsets = offsets
        self._stride = (offsets.numel() - 1) // len(keys)

    @staticmethod
    def from_offsets_sync(keys: List[str], values: torch.Tensor, offsets: torch.Tensor) -> "KeyedJaggedTensor":
        return KeyedJaggedTensor(keys=keys, values=values, offsets=offsets)

    def keys(self) -> List[str]:
        return self._keys

    def to_dict(self) -> Dict[str, JaggedTensor]:
        lengths = self._offsets[1:] - self._offsets[:-1]
        length_per_key = torch.sum(lengths.view(-1, self._stride), dim=1).tolist()
        values_list = torch.split(self._values, length_per_key)
        lengths_list = torch.split(lengths, self._stride)
        jt_dict = {}
        for key, vals, lens in zip(self._keys, values_list, lengths_list):
            offsets = torch.cat([lens.new_zeros(1), torch.cumsum(lens, dim=0)])
            jt_dict[key] = JaggedTensor(values=vals, offsets=offsets)
        return jt_dict


class EmbeddingBagCollection(nn.Module):
    def __init__(self, tables: Dict[str, List[str]], embedding_dim: int, num_embeddings: int):
        super().__init__()
        self.embedding_bags = nn.ModuleDict(
            {name: nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum") for name in tables})
        self._feature_names = list(tables.values())

    def forward(self, features: KeyedJaggedTensor) -> torch.Tensor:
        pooled_embeddings = []
        feature_dict = features.to_dict()
        for i, embedding_bag in enumerate(self.embedding_bags.values()):
            for feature_name in self._feature_names[i]:
                f = feature_dict[feature_name]
                res = embedding_bag(input=f.values(), offsets=f.offsets()[:-1])
                pooled_embeddings.append(res)
        return torch.cat(pooled_embeddings, dim=1)


class DLRM(nn.Module):
    def __init__(self, embedding_bag_collection, dense_in_features, embedding_dim, num_sparse_features):
        super().__init__()
        self.sparse_arch = embedding_bag_collection
        self.D = embedding_dim
        self.dense_arch = nn.Sequential(nn.Linear(dense_in_features, 20), nn.ReLU(), nn.Linear(20, embedding_dim), nn.ReLU())
        F = num_sparse_features
        self.register_buffer("triu_indices", torch.triu_indices(F + 1, F + 1, offset=1), persistent=False)
        self.over_arch = nn.Sequential(nn.Linear(embedding_dim + (F + 1) * F // 2, 5), nn.ReLU(), nn.Linear(5, 1))

    def forward(self, dense_features: torch.Tensor, sparse_features: KeyedJaggedTensor) -> torch.Tensor:
        embedded_dense = self.dense_arch(dense_features)
        embedded_sparse = self.sparse_arch(sparse_features).view(dense_features.size(0), -1, self.D)
        combined_values = torch.cat((embedded_dense.unsqueeze(1), embedded_sparse), dim=1)
        interactions = torch.bmm(combined_values, torch.transpose(combined_values, 1, 2))
        interactions_flat = interactions[:, self.triu_indices[0], self.triu_indices[1]]
        return self.over_arch(torch.cat((embedded_dense, interactions_flat), dim=1))


def make_model():
    ebc = EmbeddingBagCollection(tables={"t1": ["f1", "f3"], "t2": ["f2"]}, embedding_dim=8, num_embeddings=100)
    return DLRM(embedding_bag_collection=ebc, dense_in_features=16, embedding_dim=8, num_sparse_features=3).eval()


def _kjt(batch, max_len=3):
    lengths = torch.randint(1, max_len + 1, (3 * batch,))
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(lengths, 0)])
    values = torch.randint(0, 100, (int(offsets[-1]),))
    return KeyedJaggedTensor.from_offsets_sync(keys=["f1", "f3", "f2"], values=values, offsets=offsets)


def example_inputs():
    return (torch.rand((2, 16)), _kjt(2))


def other_inputs():
    return [(torch.rand((4, 16)), _kjt(4)), (torch.rand((1, 16)), _kjt(1, max_len=5))]


def probe_inputs():
    return other_inputs()
