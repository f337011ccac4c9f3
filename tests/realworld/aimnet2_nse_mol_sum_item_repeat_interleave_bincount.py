"""AIMNet2 (molecular potential) charge equilibration `nse` on packed atoms: the neighbor mode is read with
`int(data["_nb_mode"].item())`, `mol_sum` sizes its scatter from `int(idx[-1].item()) + 1`, and under
torch.compile the per-molecule values go back to atoms with `repeat_interleave` over `torch.bincount(mol_idx)`
(data-dependent sizes); the PR reports 41 graph breaks, fixed by reading sizes from `charge.shape[0]` and a gather.

Source: https://github.com/isayevlab/aimnetcentral/pull/109
"""
import torch
from torch import Tensor, nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"a": {0: "atoms"}, "mol_idx": {0: "atoms"}, "charge": {0: "molecules"}}
BLIND = "domains-36"


def set_nb_mode(data: dict[str, Tensor]) -> dict[str, Tensor]:
    if "nbmat" in data:
        if data["nbmat"].ndim == 2:
            data["_nb_mode"] = torch.tensor(1)
        elif data["nbmat"].ndim == 3:
            data["_nb_mode"] = torch.tensor(2)
        else:
            raise ValueError(f"Invalid neighbor matrix shape: {data['nbmat'].shape}")
    else:
        data["_nb_mode"] = torch.tensor(0)
    return data


def get_nb_mode(data: dict[str, Tensor]) -> int:
    return int(data["_nb_mode"].item())


def calc_masks(data: dict[str, Tensor]) -> dict[str, Tensor]:
    # packed layout (nb_mode 1): padding must be the last atom
    data["mask_i"] = torch.zeros(data["mol_idx"].shape[0], device=data["mol_idx"].device, dtype=torch.bool)
    data["mask_i"][-1] = True
    data["_input_padded"] = torch.tensor(True)
    data["mol_sizes"] = torch.bincount(data["mol_idx"])
    # last atom is padding
    data["mol_sizes"][-1] -= 1
    if not torch.compiler.is_compiling():
        data["_num_mol"] = torch.tensor(data["mol_sizes"].shape[0])
    return data


def mol_sum(x: Tensor, data: dict[str, Tensor]) -> Tensor:
    nb_mode = get_nb_mode(data)
    if nb_mode in (0, 2):
        res = x.sum(dim=1)
    elif nb_mode == 1:
        idx = data["mol_idx"]
        if torch.compiler.is_compiling():
            # assuming mol_idx is sorted, replace with max if not
            out_size = int(idx[-1].item()) + 1
        else:
            if "_num_mol" not in data:
                data["_num_mol"] = torch.tensor(int(idx[-1].item()) + 1)
            out_size = int(data["_num_mol"].item())

        if x.ndim == 1:
            res = torch.zeros(out_size, device=x.device, dtype=x.dtype)
        else:
            idx = idx.unsqueeze(-1).expand(-1, x.shape[1])
            res = torch.zeros(out_size, x.shape[1], device=x.device, dtype=x.dtype)
        res.scatter_add_(0, idx, x)
    else:
        raise ValueError(f"Invalid neighbor mode: {nb_mode}")
    return res


def nse(Q: Tensor, q_u: Tensor, f_u: Tensor, data: dict[str, Tensor], epsilon: float = 1.0e-6) -> Tensor:
    F_u = mol_sum(f_u, data)
    if epsilon > 0:
        F_u = F_u + epsilon
    Q_u = mol_sum(q_u, data)
    dQ = Q - Q_u
    nb_mode = get_nb_mode(data)
    if nb_mode in (0, 2):
        F_u = F_u.unsqueeze(-2)
        dQ = dQ.unsqueeze(-2)
    elif nb_mode == 1:
        if torch.compiler.is_compiling():
            data["mol_sizes"][-1] += 1
            F_u = torch.repeat_interleave(F_u, data["mol_sizes"], dim=0)
            dQ = torch.repeat_interleave(dQ, data["mol_sizes"], dim=0)
            data["mol_sizes"][-1] -= 1
        else:
            mol_idx = data["mol_idx"]
            F_u = torch.index_select(F_u, 0, mol_idx)
            dQ = torch.index_select(dQ, 0, mol_idx)
    f = f_u / F_u
    q = q_u + f * dQ
    return q


class AIMNet2ChargeHead(nn.Module):
    def __init__(self, nfeature=16, num_charge_channels=1):
        super().__init__()
        self.num_charge_channels = num_charge_channels
        self.mlp = nn.Sequential(nn.Linear(nfeature, 32), nn.GELU(), nn.Linear(32, 2 * num_charge_channels + nfeature))

    def forward(self, a, mol_idx, charge):
        data = {"a": a, "mol_idx": mol_idx, "charge": charge, "nbmat": torch.zeros(a.shape[0], 4, dtype=torch.long)}
        data = set_nb_mode(data)
        data = calc_masks(data)
        data["charge"] = data["charge"].unsqueeze(-1)
        x = self.mlp(data["a"])
        _q, _f, delta_a = x.split(
            [self.num_charge_channels, self.num_charge_channels, x.shape[-1] - 2 * self.num_charge_channels], dim=-1
        )
        data["_delta_Q"] = data["charge"] - mol_sum(_q, data)
        f = _f.pow(2)
        q = nse(data["charge"], _q, f, data, epsilon=1.0e-6)
        a = data["a"] + delta_a
        return q, mol_sum(a, data)


def _packed(n_atoms_per_mol, nfeature=16):
    mol_idx = torch.cat([torch.full((n,), i, dtype=torch.long) for i, n in enumerate(n_atoms_per_mol)])
    mol_idx = torch.cat([mol_idx, mol_idx[-1:]])  # trailing padding atom
    a = torch.randn(mol_idx.shape[0], nfeature)
    charge = torch.randint(-1, 2, (len(n_atoms_per_mol),)).float()
    return (a, mol_idx, charge)


def make_model():
    return AIMNet2ChargeHead()


def example_inputs():
    return _packed([3, 5, 4])


def other_inputs():
    return [_packed([2, 6, 3, 7, 1]), _packed([9, 4])]


def probe_inputs():
    return other_inputs()
