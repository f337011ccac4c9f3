"""TorchANI `ANIModel` (2018): the per-atom networks are applied species by species; `utils.present_species`
takes `species.flatten().unique(sorted=True)`, drops the padding value with `if present_species[0].item() == -1`,
and the forward loops `for i in present_species:` with `mask.nonzero()` / `masked_scatter_`; the issue notes
that `present_species` is not JIT-able (the set of species and the loop come from tensor values, so a trace
keeps only the species of the example molecules). (AEV computer left out: the AEVs are an input.)

Source: https://github.com/aiqm/torchani/issues/109
"""
import types

import torch

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"species": {0: "molecules", 1: "atoms"}, "aev": {0: "molecules", 1: "atoms"}}
BLIND = "domains-68"

AEV_LENGTH = 32


def present_species(species):
    """Given a vector of species of atoms, compute the unique species present.

    Arguments:
        species (:class:`torch.Tensor`): 1D vector of shape ``(atoms,)``

    Returns:
        :class:`torch.Tensor`: 1D vector storing present atom types sorted.
    """
    present_species = species.flatten().unique(sorted=True)
    if present_species[0].item() == -1:
        present_species = present_species[1:]
    return present_species


utils = types.SimpleNamespace(present_species=present_species)  # torchani.utils


class ANIModel(torch.nn.ModuleList):
    """ANI model that compute properties from species and AEVs."""

    def __init__(self, modules, reducer=torch.sum, padding_fill=0):
        super(ANIModel, self).__init__(modules)
        self.reducer = reducer
        self.padding_fill = padding_fill

    def forward(self, species_aev):
        species, aev = species_aev
        species_ = species.flatten()
        present_species = utils.present_species(species)
        aev = aev.flatten(0, 1)

        output = torch.full_like(species_, self.padding_fill,
                                 dtype=aev.dtype)
        for i in present_species:
            mask = (species_ == i)
            input = aev.index_select(0, mask.nonzero().squeeze())
            output.masked_scatter_(mask, self[i](input).squeeze())
        output = output.view_as(species)
        return species, self.reducer(output, dim=1)


def atomic_network():
    return torch.nn.Sequential(torch.nn.Linear(AEV_LENGTH, 16), torch.nn.CELU(0.1),
                               torch.nn.Linear(16, 8), torch.nn.CELU(0.1), torch.nn.Linear(8, 1))


class NeuralNetworkPotential(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.nn = ANIModel([atomic_network() for _ in range(4)])  # H, C, N, O

    def forward(self, species, aev):
        _, energies = self.nn((species, aev))
        return energies


def make_model():
    return NeuralNetworkPotential().eval()


def _molecules(rows):
    species = torch.tensor(rows, dtype=torch.long)
    return species, torch.randn(species.shape[0], species.shape[1], AEV_LENGTH)


def example_inputs():
    # methane and ethane-like molecules: only H (0) and C (1), padded with -1
    return _molecules([[1, 0, 0, 0, 0, -1, -1, -1],
                       [1, 1, 0, 0, 0, 0, 0, 0]])


def other_inputs():
    return [
        _molecules([[1, 2, 0, 0, 0, 0, -1, -1, -1, -1],
                    [3, 0, 0, -1, -1, -1, -1, -1, -1, -1],
                    [1, 1, 3, 0, 0, 0, 0, 2, 0, 0]]),
        _molecules([[3, 3, 1, 0, 0, 0],
                    [2, 2, 0, 0, 0, 0]]),
    ]


def probe_inputs():
    return other_inputs()
