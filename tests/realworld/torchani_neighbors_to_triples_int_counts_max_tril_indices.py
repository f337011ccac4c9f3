"""TorchANI angular terms: `neighbors_to_triples` turns neighbour pairs into triples; it sizes the local
pair table with `counts_max: int = int(zcounts.max())  # Dynamo can't get past this` and
`torch.tril_indices(counts_max, counts_max, -1)`, so `torch.export` with a dynamic pair count fails
(test skipped upstream: "Fails in pytorch 2.5, due to m: int = int(counts.max())").

Source: https://github.com/aiqm/torchani/pull/535
"""
import typing as tp

import torch
from torch import Tensor

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"indices": {1: "pairs"}, "distances": {0: "pairs"}, "diff_vectors": {0: "pairs"}}
BLIND = "domains-46"


class Neighbors(tp.NamedTuple):
    indices: Tensor
    distances: Tensor
    diff_vectors: Tensor


class Triples(tp.NamedTuple):
    central_idxs: Tensor
    side_idxs: Tensor
    diff_sign: Tensor
    distances: Tensor
    diff_vectors: Tensor


def _unique_and_counts(sorted_flat_idxs: Tensor) -> tp.Tuple[Tensor, Tensor]:
    # Sort compute unique key
    if torch.compiler.is_compiling():
        return torch.unique(sorted_flat_idxs, return_counts=True)
    return torch.unique_consecutive(sorted_flat_idxs, return_counts=True)


def neighbors_to_triples(neighbors: Neighbors) -> Triples:
    r"""Converts output of a neighborlist calculation into triples of atoms"""
    # convert representation from pair to central-others and sort
    sorted_flat_idxs, rev_idxs = neighbors.indices.view(-1).sort()
    unique_central_idxs, counts = _unique_and_counts(sorted_flat_idxs)

    # compute central_idxs
    pair_sizes = (counts * (counts - 1)).div(2, rounding_mode="floor")
    pair_indices = torch.repeat_interleave(pair_sizes)
    central_idxs = unique_central_idxs.index_select(0, pair_indices)  # Shape (T,)

    # For each center atom, calculate idxs
    # for all pairs of its 'local, sorted-order' side-atoms
    zcounts = torch.cat((counts.new_zeros(1), counts))
    dev = zcounts.device
    counts_max: int = int(zcounts.max())  # Dynamo can't get past this
    max_local_pairs = torch.tril_indices(counts_max, counts_max, -1, device=dev)
    mask = torch.arange(max_local_pairs.shape[1], device=dev) < pair_sizes.view(-1, 1)
    sort_local_pairs = max_local_pairs.repeat(1, pair_sizes.shape[0])[:, mask.view(-1)]
    sort_local_pairs += torch.cumsum(zcounts, dim=0).index_select(0, pair_indices)

    # Convert back from sorted-idxs to atom-idxs
    local_pairs = rev_idxs[sort_local_pairs]

    # compute mapping between representation of central-other to pair
    num_neigh = neighbors.indices.shape[1]
    sign12 = (local_pairs < num_neigh).to(torch.int8) * 2 - 1
    side_idxs = local_pairs % num_neigh

    flat_diff_vectors = neighbors.diff_vectors.index_select(0, side_idxs.view(-1))
    diff_vectors = flat_diff_vectors.view(2, -1, 3) * sign12.view(2, -1, 1)  # (2, T, 3)
    distances = neighbors.distances.index_select(0, side_idxs.view(-1)).view(2, -1)
    return Triples(central_idxs, side_idxs, sign12, distances, diff_vectors)


class Mod(torch.nn.Module):
    def forward(self, indices: Tensor, distances: Tensor, diff_vectors: Tensor) -> Triples:
        _neighbors = Neighbors(indices, distances, diff_vectors)
        return neighbors_to_triples(_neighbors)


def make_model():
    return Mod()


def _neighbors(atoms, cutoff=5.2):
    # all pairs of a random molecule within the cutoff (like torchani's make_neighbors)
    coords = torch.rand(atoms, 3) * 10.0
    idx = torch.triu_indices(atoms, atoms, 1)
    diff = coords[idx[0]] - coords[idx[1]]
    dist = diff.norm(2, -1)
    keep = (dist <= cutoff).nonzero().flatten()
    return idx[:, keep], dist[keep], diff[keep]


def example_inputs():
    return _neighbors(10)


def other_inputs():
    return [_neighbors(16), _neighbors(7)]


def probe_inputs():
    return other_inputs()
