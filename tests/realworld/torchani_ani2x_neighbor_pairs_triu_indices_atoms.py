"""TorchANI ANI-2x energy model exported whole to ONNX (browsercompchem's ANI-2x-in-the-browser spike,
torch 2.13, legacy exporter, opset 17, atom axis declared dynamic): tracing "reaches the AEV and dies on
unsupported ops" -- the first is `aten::triu_indices`, which `neighbor_pairs_nopbc` calls with the
atom count `padding_mask.shape[1]`; the spike's workaround symbolic bakes the indices as a Constant,
"specialized to the traced atom count". The nonzero-based pair selection and the angular/triple
bookkeeping that follow are trimmed; the kept pairs feed torchani's cosine cutoff.

Source: https://github.com/GoldwinXS/browsercompchem/blob/3aff7b49b19f9b232dd93e2875519c7c9a6b4af0/spike/ani2x-onnx/RESULTS.md
"""
import math

import torch
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"species": {1: "n_atoms"}, "coordinates": {1: "n_atoms"}}
BLIND = "operators-27"


def cutoff_cosine(distances: Tensor, cutoff: float) -> Tensor:
    # assuming all elements in distances are smaller than cutoff
    return 0.5 * torch.cos(distances * (math.pi / cutoff)) + 0.5


class ANIRadialPairs(nn.Module):
    def __init__(self, Rcr: float = 5.1):
        super().__init__()
        self.Rcr = Rcr

    def neighbor_pairs_nopbc(self, padding_mask: Tensor, coordinates: Tensor, cutoff: float) -> Tensor:
        coordinates = coordinates.detach().masked_fill(padding_mask.unsqueeze(-1), math.nan)
        current_device = coordinates.device
        num_atoms = padding_mask.shape[1]
        num_mols = padding_mask.shape[0]
        p12_all = torch.triu_indices(num_atoms, num_atoms, 1, device=current_device)
        p12_all_flattened = p12_all.view(-1)

        pair_coordinates = coordinates.index_select(1, p12_all_flattened).view(num_mols, 2, -1, 3)
        distances = (pair_coordinates[:, 0, ...] - pair_coordinates[:, 1, ...]).norm(2, -1)
        return distances

    def forward(self, species: Tensor, coordinates: Tensor) -> Tensor:
        padding_mask = species == -1
        distances = self.neighbor_pairs_nopbc(padding_mask, coordinates, self.Rcr)
        in_cutoff = distances <= self.Rcr
        fc = cutoff_cosine(torch.where(in_cutoff, distances, torch.zeros_like(distances)), self.Rcr)
        return torch.where(in_cutoff, fc, torch.zeros_like(fc))


def make_model():
    return ANIRadialPairs().eval()


def _molecule(n_atoms, n_pad=0):
    species = torch.randint(0, 7, (1, n_atoms))
    if n_pad:
        species[0, -n_pad:] = -1
    coordinates = torch.randn(1, n_atoms, 3) * 2.0
    return (species, coordinates)


def example_inputs():
    return _molecule(6)


def other_inputs():
    return [_molecule(11, n_pad=2), _molecule(4)]


def probe_inputs():
    return other_inputs()
