"""HelmNet (learned iterative Helmholtz solver, ucl-bug/helmnet): one solver step predicts a wavefield
update with a conv net and recomputes the PDE residual `Lap(u) + k^2 u - source`, where the PML
Laplacian (`fast_laplacian_with_pml`, a @torch.jit.script function) goes through
`torch.view_as_complex` -> `torch.fft.fftn` / `torch.fft.ifftn` -> `torch.view_as_real`. The
maintainers flag the FFT in the residual calculation as the likely blocker for ONNX export.

Source: https://github.com/ucl-bug/helmnet/issues/31
"""
import numpy as np
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"wavefield": {0: "batch"}, "k_sq": {0: "batch"}}
BLIND = "operators-20"

DOMAIN = 32
PML = 6


@torch.jit.script
def complex_mul(x, y):
    real = x[..., 0] * y[..., 0] - x[..., 1] * y[..., 1]
    imag = x[..., 1] * y[..., 0] + x[..., 0] * y[..., 1]
    return torch.stack([real, imag], dim=-1)


@torch.jit.script
def fast_laplacian_with_pml(u, kx, ky, kx_sq, ky_sq, ax, bx, ay, by):
    u_fft = torch.view_as_real(
        torch.fft.fftn(
            torch.view_as_complex(u),
            dim=(-2, -1),
            norm="backward"
        )
    )
    dx = complex_mul(u_fft, kx)
    dy = complex_mul(u_fft, ky)
    ddx = complex_mul(u_fft, kx_sq)
    ddy = complex_mul(u_fft, ky_sq)
    derivatives = torch.view_as_real(
        torch.fft.ifftn(
            torch.view_as_complex(
                torch.stack([dx, dy, ddx, ddy], dim=0)
            ),
            dim=(-2, -1),
            norm="backward"
        )
    )
    dx = derivatives[0]
    dy = derivatives[1]
    ddx = derivatives[2]
    ddy = derivatives[3]
    return (
        complex_mul(ax, dx)
        + complex_mul(ay, dy)
        + complex_mul(bx, ddx)
        + complex_mul(by, ddy)
    )


def _as_param(c):
    t = torch.stack([torch.from_numpy(np.real(c)), torch.from_numpy(np.imag(c))], dim=-1)
    return nn.Parameter(t.unsqueeze(0).float(), requires_grad=False)


class FastLaplacianWithPML(nn.Module):
    def __init__(self, domain_size, PMLsize, k=1.0, sigma_max=0.5):
        super().__init__()
        k_1d = 2 * np.pi * np.linspace(-0.5, 0.5, domain_size, endpoint=False)
        k_1d = np.concatenate((k_1d[domain_size // 2:], k_1d[: domain_size // 2]))
        kx, ky = np.meshgrid(k_1d, k_1d * 0.0)[0], np.meshgrid(k_1d * 0.0, k_1d)[1]
        zeros = np.zeros_like(kx)
        self.kx = _as_param(zeros + 1j * kx)          # kx is imaginary
        self.ky = _as_param(zeros + 1j * ky)
        self.kx_sq = _as_param(-kx ** 2 + 0j)         # k_sq is negated
        self.ky_sq = _as_param(-ky ** 2 + 0j)

        pml_coord = np.arange(PMLsize)
        sigma_outer = sigma_max * (np.abs(1 - pml_coord / PMLsize) ** 2)
        sigma = np.zeros((domain_size,))
        sigma[:PMLsize] = sigma_outer
        sigma[-PMLsize:] = np.flip(sigma_outer)
        sigma_x, sigma_y = np.meshgrid(sigma, sigma)
        inv_gamma_x = 1.0 / (np.ones_like(sigma_x) + (1j / k) * sigma_x)
        inv_gamma_y = 1.0 / (np.ones_like(sigma_y) + (1j / k) * sigma_y)
        sigma_prime = -2 * sigma_max * (1 - pml_coord / PMLsize) / PMLsize
        sigma = np.zeros((domain_size,))
        sigma[:PMLsize] = sigma_prime
        sigma[-PMLsize:] = -np.flip(sigma_prime)
        sigma_x_prime, sigma_y_prime = np.meshgrid(sigma, sigma)
        self.ax = _as_param(-(1j / k) * sigma_x_prime * inv_gamma_x ** 3)
        self.bx = _as_param(inv_gamma_x ** 2)
        self.ay = _as_param(-(1j / k) * sigma_y_prime * inv_gamma_y ** 3)
        self.by = _as_param(inv_gamma_y ** 2)
        self.register_buffer("sigmas", torch.tensor(np.stack([sigma_x, sigma_y])).float())

    def forward(self, x):
        return fast_laplacian_with_pml(
            x, self.kx, self.ky, self.kx_sq, self.ky_sq, self.ax, self.bx, self.ay, self.by,
        )


class IterativeSolverStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.Lap = FastLaplacianWithPML(domain_size=DOMAIN, PMLsize=PML)
        self.f = nn.Sequential(
            nn.Conv2d(6, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 2, 3, padding=1),
        )
        source = torch.zeros(1, 2, DOMAIN, DOMAIN)
        source[0, 0, DOMAIN // 2, DOMAIN // 4] = 10.0
        self.source = nn.Parameter(source, requires_grad=False)

    def apply_laplacian(self, x: torch.Tensor):
        return self.Lap(x.permute(0, 2, 3, 1).contiguous()).permute(0, 3, 1, 2)

    def get_residual(self, x: torch.Tensor, k_sq: torch.Tensor):
        return self.apply_laplacian(x) + k_sq * x - self.source

    def forward(self, wavefield, k_sq):
        residual = self.get_residual(wavefield, k_sq)
        sigmas = self.Lap.sigmas.unsqueeze(0).repeat(wavefield.shape[0], 1, 1, 1)
        input = torch.cat([wavefield, 1e3 * residual, sigmas], dim=1)
        d_wavefield = self.f(input)
        up_wavefield = d_wavefield / 1e3 + wavefield
        new_residual = self.get_residual(up_wavefield, k_sq)
        return up_wavefield, new_residual


def make_model():
    return IterativeSolverStep()


def _inputs(b):
    sos = 1.0 + 0.5 * torch.rand(b, 1, DOMAIN, DOMAIN)
    k_sq = (1.0 / sos) ** 2
    return (torch.randn(b, 2, DOMAIN, DOMAIN) * 0.1, k_sq)


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(3), _inputs(1)]


def probe_inputs():
    return other_inputs()
