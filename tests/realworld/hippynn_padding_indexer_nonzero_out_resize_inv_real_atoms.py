"""hippynn HIP-NN: `PaddingIndexer.forward` flattens the (mol, atom) padding mask and finds the real atoms with
`torch.nonzero(flat_nonblank, as_tuple=False, out=large_enough)[:, 0]` into a buffer emptied by `resize_(0)`, then
fills `inv_real_atoms[real_atoms] = torch.arange(n_real_atoms)`; tt-forge-models patches it because under dynamo
the fake-tensor pass infers the nonzero output as 1-D (size (0,)) and `[:, 0]` fails ("too many indices").

Source: https://github.com/tenstorrent/tt-forge-models/pull/693
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"species": {0: "molecules", 1: "atoms"}}
BLIND = "domains-54"


class OneHotSpecies(torch.nn.Module):
    def __init__(self, species_set):
        super().__init__()

        self.species_set = torch.as_tensor(species_set)
        self.n_species = self.species_set.shape[0]

        max_z = torch.max(self.species_set)
        zmap = torch.zeros((max_z + 1,), dtype=torch.long)
        zmap[self.species_set] = torch.arange(0, self.n_species, dtype=torch.long)

        self.species_map = torch.nn.Parameter(torch.as_tensor(zmap, dtype=torch.long), requires_grad=False)

    def forward(self, species):
        onehot_species = torch.eye(self.n_species, dtype=torch.bool, device=species.device)[self.species_map[species]]
        nonblank = ~onehot_species[:, :, 0]
        initial_features = onehot_species[:, :, 1:]  # remove atoms that are 0 in the species map.

        return initial_features, nonblank


class PaddingIndexer(torch.nn.Module):
    def forward(self, features, nonblank):
        dev = features.device
        n_molecules, n_atoms_max = nonblank.shape
        n_fictitious_atoms = nonblank.shape[0] * nonblank.shape[1]

        flat_nonblank = nonblank.reshape(n_fictitious_atoms)

        large_enough = torch.empty(nonblank.shape,device=dev,dtype=torch.int64)
        large_enough.resize_(0)
        real_atoms = torch.nonzero(flat_nonblank, as_tuple=False,out=large_enough)[:, 0]

        n_real_atoms = real_atoms.shape[0]

        inv_real_atoms = torch.zeros((n_fictitious_atoms,), dtype=torch.long, device=dev)

        inv_real_atoms[real_atoms] = torch.arange(n_real_atoms, dtype=torch.long, device=dev)

        # Flatten incoming features to atom representation
        indexed_features = features.reshape(n_molecules * n_atoms_max, -1)[real_atoms]
        if indexed_features.ndimension() == 1:
            indexed_features = indexed_features.unsqueeze(1)

        # Get molecule index for atoms
        mol_index_shaped = (
            torch.arange(n_molecules, dtype=torch.long, device=dev).unsqueeze(1).expand(-1, n_atoms_max)
        )
        atom_index_shaped = (
            torch.arange(n_atoms_max, dtype=torch.long, device=dev).unsqueeze(0).expand(n_molecules, -1)
        )
        atom_index = atom_index_shaped.reshape(n_fictitious_atoms)[real_atoms]
        mol_index = mol_index_shaped.reshape(n_fictitious_atoms)[real_atoms]

        return indexed_features, real_atoms, inv_real_atoms, mol_index, atom_index, n_molecules, n_atoms_max


class MolSummer(torch.nn.Module):
    def forward(self, features, mol_index, n_molecules):
        featshape = (1,) if features.ndimension() == 1 else features.shape[1:]
        out_shape = (n_molecules, *featshape)
        result = torch.zeros(*out_shape, device=features.device, dtype=features.dtype)
        result.index_add_(0, mol_index, features)

        return result


class AtomEnergyModel(nn.Module):
    """OneHotSpecies -> PaddingIndexer -> per-atom MLP (stand-in for the interaction layers) -> HEnergy sum."""

    def __init__(self, possible_species=(0, 1, 6, 7, 8, 16), n_hidden=16):
        super().__init__()
        self.onehot = OneHotSpecies(list(possible_species))
        self.indexer = PaddingIndexer()
        self.atom_net = nn.Sequential(nn.Linear(len(possible_species) - 1, n_hidden), nn.Softplus(),
                                      nn.Linear(n_hidden, 1))
        self.mol_sum = MolSummer()

    def forward(self, species):
        encoding, nonblank = self.onehot(species)
        indexed_features, real_atoms, inv_real_atoms, mol_index, atom_index, n_molecules, n_atoms_max = \
            self.indexer(encoding, nonblank)
        atom_energies = self.atom_net(indexed_features.to(torch.float32))
        mol_energy = self.mol_sum(atom_energies, mol_index, n_molecules)
        return mol_energy, inv_real_atoms


def _species(n_mol, n_atoms):
    z = torch.tensor([1, 6, 7, 8, 16])[torch.randint(0, 5, (n_mol, n_atoms))]
    n_real = torch.randint(1, n_atoms + 1, (n_mol,))
    pad = torch.arange(n_atoms)[None, :] >= n_real[:, None]
    return z.masked_fill(pad, 0)


def make_model():
    return AtomEnergyModel().eval()


def example_inputs():
    return (_species(2, 6),)


def other_inputs():
    return [(_species(3, 9),), (_species(1, 4),)]


def probe_inputs():
    return other_inputs()
