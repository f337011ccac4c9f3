"""fairchem's exportable eSCN builds per-edge Wigner-D matrices: `_z_rot_mat` writes sin/cos of the edge angles with
`M[..., inds, reversed_inds] = torch.sin(frequencies * angle[..., None])`, and `wigner_D` reads the `_Jd` matrices
through a module-level global (`get_jd()` with `assume_constant_result`); the "ESCN export II" PR reports that
torch.export puts a nonsense guard on the (dynamic) edge dimension there and rewrites it as a Python loop over
the frequencies, with the Jd matrices moved into registered buffers.

Source: https://github.com/FAIR-Chem/fairchem/pull/848
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"edge_rot_mat": {0: "edges"}, "x_edge": {0: "edges"}}
BLIND = "domains-33"

# Borrowed from e3nn @ 0.4.0 (_Jd is a list of tensors of shape (2l+1, 2l+1)); the real file is loaded with
# torch.load(os.path.join(os.path.dirname(__file__), "Jd.pt")): fixed stand-in matrices here.
_g = torch.Generator().manual_seed(0)
__Jd = [torch.linalg.qr(torch.randn(2 * l + 1, 2 * l + 1, generator=_g))[0] for l in range(5)]


@torch.compiler.assume_constant_result
def get_jd() -> torch.Tensor:
    return __Jd


class o3:
    """The few e3nn.o3 helpers the model uses."""

    @staticmethod
    def matrix_x(angle):
        c, s, o, z = angle.cos(), angle.sin(), torch.ones_like(angle), torch.zeros_like(angle)
        return torch.stack([torch.stack([o, z, z], dim=-1), torch.stack([z, c, -s], dim=-1),
                            torch.stack([z, s, c], dim=-1)], dim=-2)

    @staticmethod
    def matrix_y(angle):
        c, s, o, z = angle.cos(), angle.sin(), torch.ones_like(angle), torch.zeros_like(angle)
        return torch.stack([torch.stack([c, z, s], dim=-1), torch.stack([z, o, z], dim=-1),
                            torch.stack([-s, z, c], dim=-1)], dim=-2)

    @staticmethod
    def angles_to_matrix(alpha, beta, gamma):
        alpha, beta, gamma = torch.broadcast_tensors(alpha, beta, gamma)
        return o3.matrix_y(alpha) @ o3.matrix_x(beta) @ o3.matrix_y(gamma)

    @staticmethod
    def xyz_to_angles(xyz):
        xyz = torch.nn.functional.normalize(xyz, p=2, dim=-1)
        xyz = xyz.clamp(-1, 1)
        beta = torch.acos(xyz[..., 1])
        alpha = torch.atan2(xyz[..., 0], xyz[..., 2])
        return alpha, beta


def wigner_D(lv: int, alpha: torch.Tensor, beta: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
    _Jd = get_jd()
    assert lv < len(_Jd), f"wigner D maximum l implemented is {len(_Jd) - 1}, send us an email to ask for more"

    alpha, beta, gamma = torch.broadcast_tensors(alpha, beta, gamma)
    J = _Jd[lv].to(dtype=alpha.dtype, device=alpha.device)
    Xa = _z_rot_mat(alpha, lv)
    Xb = _z_rot_mat(beta, lv)
    Xc = _z_rot_mat(gamma, lv)
    return Xa @ J @ Xb @ J @ Xc


def _z_rot_mat(angle: torch.Tensor, lv: int) -> torch.Tensor:
    shape, device, dtype = angle.shape, angle.device, angle.dtype
    M = angle.new_zeros((*shape, 2 * lv + 1, 2 * lv + 1))
    inds = torch.arange(0, 2 * lv + 1, 1, device=device)
    reversed_inds = torch.arange(2 * lv, -1, -1, device=device)
    frequencies = torch.arange(lv, -lv - 1, -1, dtype=dtype, device=device)
    M[..., inds, reversed_inds] = torch.sin(frequencies * angle[..., None])
    M[..., inds, inds] = torch.cos(frequencies * angle[..., None])
    return M


def rotation_to_wigner(edge_rot_mat: torch.Tensor, start_lmax: int, end_lmax: int) -> torch.Tensor:
    x = edge_rot_mat @ edge_rot_mat.new_tensor([0.0, 1.0, 0.0])
    alpha, beta = o3.xyz_to_angles(x)
    R = o3.angles_to_matrix(alpha, beta, torch.zeros_like(alpha)).transpose(-1, -2) @ edge_rot_mat
    gamma = torch.atan2(R[..., 0, 2], R[..., 0, 0])

    size = int((end_lmax + 1) ** 2) - int((start_lmax) ** 2)
    wigner = torch.zeros(len(alpha), size, size, device=edge_rot_mat.device)
    start = 0
    for lmax in range(start_lmax, end_lmax + 1):
        block = wigner_D(lmax, alpha, beta, gamma)
        end = start + block.size()[1]
        wigner[:, start:end, start:end] = block
        start = end

    return wigner.detach()


class EdgeRotation(nn.Module):
    """Rotates per-edge spherical-harmonic messages into the edge frame (the eSCN message block's first step)."""

    def __init__(self, lmax=2, sphere_channels=8):
        super().__init__()
        self.lmax = lmax
        self.fc = nn.Linear(sphere_channels, sphere_channels)

    def forward(self, edge_rot_mat, x_edge):
        wigner = rotation_to_wigner(edge_rot_mat, 0, self.lmax)
        return self.fc(torch.bmm(wigner, x_edge))


def make_model():
    return EdgeRotation().eval()


def _edges(n, lmax=2, channels=8):
    rot = torch.linalg.qr(torch.randn(n, 3, 3))[0]
    rot = rot * torch.linalg.det(rot).sign()[:, None, None]
    return (rot, torch.randn(n, (lmax + 1) ** 2, channels))


def example_inputs():
    return _edges(12)


def other_inputs():
    return [_edges(31), _edges(5)]


def probe_inputs():
    return other_inputs()
