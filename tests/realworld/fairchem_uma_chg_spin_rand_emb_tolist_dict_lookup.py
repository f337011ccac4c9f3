"""fairchem UMA (universal model for atoms) charge/spin conditioning: `ChgSpinEmbedding` with
embedding_type="rand_emb" maps each system's total charge / spin to an nn.Embedding row through
`x.tolist()` -> `str(i)` -> `self.target_dict[...]` -> `torch.tensor([...])` inside forward. The PR
replaces this with `x + offset` because the `.tolist()`/str/dict round trip through Python is a
data-dependent break that torch.compile (and export) cannot trace; a tracer bakes in the charges.

Source: https://github.com/facebookresearch/fairchem/pull/1907
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"atomic_numbers": {0: "atoms"}, "batch": {0: "atoms"}, "charge": {0: "systems"}, "spin": {0: "systems"}}
BLIND = "domains-71"


class ChgSpinEmbedding(nn.Module):
    def __init__(self, embedding_type, embedding_target, embedding_size, grad, scale=1.0):
        super().__init__()
        assert embedding_type in ["pos_emb", "lin_emb", "rand_emb"]
        self.embedding_type = embedding_type
        assert embedding_target in ["charge", "spin"]
        self.embedding_target = embedding_target
        assert embedding_size % 2 == 0, f"{embedding_size=} must be even"

        if self.embedding_target == "charge":
            # 100 is a conservative upper bound
            self.target_dict = {str(x): x + 100 for x in range(-100, 101)}
        elif self.embedding_target == "spin":
            # 100 is a conservative upper bound
            self.target_dict = {str(x): x for x in range(101)}

        if self.embedding_type == "rand_emb":
            self.rand_emb = nn.Embedding(len(self.target_dict), embedding_size)
            if not grad:
                for param in self.rand_emb.parameters():
                    param.requires_grad = False
        else:
            raise ValueError(f"embedding type {self.embedding_type} not implemented")

    def forward(self, x):
        if self.embedding_type == "rand_emb":
            return self.rand_emb(
                torch.tensor(
                    [self.target_dict[str(i)] for i in x.tolist()],
                    device=x.device,
                    dtype=torch.long,
                )
            )
        raise ValueError(f"embedding type {self.embedding_type} not implemented")


class UMAInputEmbedding(nn.Module):
    def __init__(self, max_num_elements=100, sphere_channels=32):
        super().__init__()
        self.sphere_embedding = nn.Embedding(max_num_elements, sphere_channels)
        self.charge_embedding = ChgSpinEmbedding("rand_emb", "charge", sphere_channels, grad=True)
        self.spin_embedding = ChgSpinEmbedding("rand_emb", "spin", sphere_channels, grad=True)
        self.mix_csd = nn.Linear(2 * sphere_channels, sphere_channels)

    def forward(self, atomic_numbers, batch, charge, spin):
        x_message = self.sphere_embedding(atomic_numbers)
        chg_emb = self.charge_embedding(charge)
        spin_emb = self.spin_embedding(spin)
        csd_mixed_emb = torch.nn.SiLU()(self.mix_csd(torch.cat((chg_emb, spin_emb), dim=1)))
        return x_message + csd_mixed_emb[batch]


def make_model():
    return UMAInputEmbedding().eval()


def _systems(atoms_per_system, charges, spins):
    batch = torch.cat([torch.full((n,), i, dtype=torch.long) for i, n in enumerate(atoms_per_system)])
    atomic_numbers = torch.randint(1, 90, (batch.shape[0],))
    return (atomic_numbers, batch, torch.tensor(charges), torch.tensor(spins))


def example_inputs():
    return _systems([3, 5, 4], [0, 1, -1], [1, 2, 1])


def other_inputs():
    return [_systems([2, 6, 3, 7], [2, 0, -2, 1], [3, 1, 0, 2]), _systems([9, 4], [-1, 0], [2, 1])]


def probe_inputs():
    return other_inputs()
