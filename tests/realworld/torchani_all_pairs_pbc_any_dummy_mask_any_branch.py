"""TorchANI `AllPairs` neighborlist: `all_pairs` branches on `if pbc.any():` (PBC or not, read from
the `pbc` input tensor) and `narrow_down` on `if mask.any():` (padding atoms with species -1), then
screens pairs with `nonzero()`; `torch.export` of the neighborlist with a dynamic atom count was
skipped upstream: "Currently fails due to pbc.any() control flow".

Source: https://github.com/aiqm/torchani/pull/522
"""
import math
import typing as tp

import torch
from torch import Tensor

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"species": {1: "atoms"}, "coords": {1: "atoms"}}
BLIND = "domains-46"


class Neighbors(tp.NamedTuple):
    indices: Tensor  # Long tensor with idxs of neighbor pairs. Shape (2, pairs)
    distances: Tensor  # The associated pair distances. Shape is (pairs,)
    diff_vectors: Tensor  # The associated difference vectors. Shape is (pairs, 3)


def _validate_cell_pbc(
    species: Tensor, cell: tp.Optional[Tensor], pbc: tp.Optional[Tensor]
) -> tp.Tuple[Tensor, Tensor]:
    if cell is None and not (pbc is None or not pbc.any()):
        raise ValueError("If cell is None, pbc should be None or [False, False, False]")
    if cell is not None and (pbc is None or not pbc.any()):
        raise ValueError("If cell is not None, at least one PBC should be enabled")
    if cell is None:
        cell = torch.eye(3, dtype=torch.float, device=species.device)
    if pbc is None:
        pbc = torch.zeros(3, dtype=torch.bool, device=species.device)
    return cell, pbc


def narrow_down(
    elem_idxs: Tensor,
    coords: Tensor,
    cutoff: float,
    neighbor_idxs: Tensor,
    shift_values: tp.Optional[Tensor] = None,
) -> Neighbors:
    mask = elem_idxs == -1
    if mask.any():
        # Discard dumy atoms to prevent wasting resources in calculating
        # dummy distances
        mask = mask.view(-1)[neighbor_idxs.view(-1)].view(2, -1)
        non_dummy_pairs = (~torch.any(mask, dim=0)).nonzero().flatten()
        neighbor_idxs = neighbor_idxs.index_select(1, non_dummy_pairs)
        if shift_values is not None:
            shift_values = shift_values.index_select(0, non_dummy_pairs)

    # Interpret as single molecule
    coords = coords.view(-1, 3)
    if cutoff == math.inf:
        if shift_values is not None:
            raise ValueError("PBC can't use an infinite cutoff")
    else:
        _coords = coords.detach()
        _coords0 = _coords.index_select(0, neighbor_idxs[0])
        _coords1 = _coords.index_select(0, neighbor_idxs[1])
        _diff_vectors = _coords0 - _coords1
        if shift_values is not None:
            _diff_vectors += shift_values
        in_cutoff = (_diff_vectors.norm(2, -1) <= cutoff).nonzero().flatten()
        neighbor_idxs = neighbor_idxs.index_select(1, in_cutoff)
        if shift_values is not None:
            shift_values = shift_values.index_select(0, in_cutoff)

    coords0 = coords.index_select(0, neighbor_idxs[0])
    coords1 = coords.index_select(0, neighbor_idxs[1])
    diff_vectors = coords0 - coords1
    if shift_values is not None:
        diff_vectors += shift_values
    distances = diff_vectors.norm(2, -1)
    return Neighbors(neighbor_idxs, distances, diff_vectors)


def all_pairs(
    species: Tensor,
    coords: Tensor,
    cutoff: float,
    cell: tp.Optional[Tensor] = None,
    pbc: tp.Optional[Tensor] = None,
) -> Neighbors:
    cell, pbc = _validate_cell_pbc(species, cell, pbc)
    if pbc.any():
        raise NotImplementedError("PBC path (_all_pairs_pbc) not needed for isolated molecules")
    num_molecs, num_atoms = species.shape
    device = species.device
    neighbor_idxs = torch.triu_indices(num_atoms, num_atoms, 1, device=device)
    if num_molecs > 1:
        neighbor_idxs = neighbor_idxs.unsqueeze(1).repeat(1, num_molecs, 1)
        neighbor_idxs += num_atoms * torch.arange(num_molecs, device=device).view(1, -1, 1)
        neighbor_idxs = neighbor_idxs.view(-1).view(2, -1)
    return narrow_down(species, coords, cutoff, neighbor_idxs)


class AllPairs(torch.nn.Module):
    def __init__(self, cutoff: float = 5.2):
        super().__init__()
        self.cutoff = cutoff  # cutoff is fixed on export

    def forward(self, species: Tensor, coords: Tensor, pbc: Tensor) -> Neighbors:
        return all_pairs(species, coords, self.cutoff, None, pbc)


def make_model():
    return AllPairs()


def _molec(atoms, dummies=0):
    species = torch.tensor([1, 6, 7, 8])[torch.randint(0, 4, (1, atoms))]
    if dummies:
        species[0, -dummies:] = -1  # padded (dummy) atoms
    coords = torch.rand(1, atoms, 3) * 8.0
    return species, coords, torch.zeros(3, dtype=torch.bool)


def example_inputs():
    return _molec(10)


def other_inputs():
    return [_molec(14, dummies=3), _molec(6)]


def probe_inputs():
    return other_inputs()
