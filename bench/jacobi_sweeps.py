"""How many Jacobi sweeps the spectral helpers need, by matrix size and dtype.

The helpers (onnxfix/decompositions/linalg_eigh.py, svd_jacobi.py) unroll a fixed number of
sweeps: the exported graph cannot test convergence. Too few leave the result unconverged; too
many make the graph (and the export) grow for nothing: a sweep of an n x n matrix is n - 1
rounds of a few small matrix products. This measures, for each size, the error after each sweep
over random, clustered (three within 1e-6), repeated, graded (1e-6 .. 1) and rank-deficient
spectra, and prints the smallest count within 2x of the converged error. The helpers' tables are
that count plus one.

    python bench/jacobi_sweeps.py eigh float32 2,3,4,8,16,24 [--max 24]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from onnxfix.decompositions import load_function  # noqa: E402

ROTATION = load_function("jacobi_rotation")


def spectra(n: int, count: int, g: torch.Generator) -> list[torch.Tensor]:
    randn = torch.randn(count, n, generator=g, dtype=torch.float64)
    half = max(n // 2, 1)
    return [
        randn,
        torch.cat([torch.tensor([1.0, 1 + 1e-6, 1 - 1e-6]), torch.linspace(-4, 7, max(n - 3, 0))])[:n].expand(count, n),
        torch.tensor([2.0] * (n // 2) + [-3.0] * (n - n // 2), dtype=torch.float64).expand(count, n),
        torch.logspace(-6, 0, n, dtype=torch.float64).expand(count, n) * randn[:, :1].sign(),
        torch.cat([randn[:, :half], torch.zeros(count, n - half, dtype=torch.float64)], -1),
    ]


def symmetric(n: int, dtype: torch.dtype, count: int = 64) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(n)
    q = torch.linalg.qr(torch.randn(count, n, n, generator=g, dtype=torch.float64)).Q
    return [((q * v.unsqueeze(-2)) @ q.transpose(-2, -1)).to(dtype) for v in spectra(n, count, g)]


def eigh_errors(a: torch.Tensor, sweeps: int) -> list[float]:
    """Per sweep: max of the eigenvalue error and the reconstruction error, relative to max|w|."""
    n = a.shape[-1]
    s, v = a.clone(), torch.eye(n, dtype=a.dtype).expand(a.shape)
    want = torch.linalg.eigvalsh(a.double())
    scale = want.abs().amax(-1, keepdim=True).clamp_min(1e-300)
    errors = []
    for _ in range(sweeps):
        for k in range(n + n % 2 - 1):
            j = ROTATION(s, k)
            s, v = j.transpose(-2, -1) @ s @ j, v @ j
        w = torch.diagonal(s, dim1=-2, dim2=-1)
        values = ((torch.sort(w, -1).values.double() - want).abs() / scale).max().item()
        rebuilt = ((v * w.unsqueeze(-2)) @ v.transpose(-2, -1) - a).abs().amax((-2, -1)) / scale.squeeze(-1)
        errors.append(max(values, rebuilt.max().item()))
    return errors


def svd_errors(a: torch.Tensor, sweeps: int) -> list[float]:
    """Per sweep: the singular values' error relative to the largest (one-sided Jacobi)."""
    x, k = a, a.shape[-1]
    want = torch.linalg.svdvals(a.double())
    scale = want[..., :1].clamp_min(1e-300)
    errors = []
    for _ in range(sweeps):
        for r in range(k + k % 2 - 1):
            x = x @ ROTATION(x.transpose(-2, -1) @ x, r)
        s = torch.sort((x * x).sum(-2).sqrt(), -1, descending=True).values
        errors.append(((s.double() - want).abs() / scale).max().item())
    return errors


def worst(kind: str, n: int, dtype: torch.dtype, sweeps: int) -> list[float]:
    matrices = symmetric(n, dtype)
    if kind == "svd":  # tall random matrices too
        g = torch.Generator().manual_seed(n)
        matrices.append(torch.randn(64, n + 3, n, generator=g, dtype=torch.float64).to(dtype))
    measure = eigh_errors if kind == "eigh" else svd_errors
    per_matrix = [measure(m, sweeps) for m in matrices]
    return [max(errors[i] for errors in per_matrix) for i in range(sweeps)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("eigh", "svd"))
    parser.add_argument("dtype", choices=("float32", "float64"))
    parser.add_argument("sizes", help="comma-separated matrix sizes")
    parser.add_argument("--max", type=int, default=24, help="sweeps to run (the converged error)")
    args = parser.parse_args()
    for n in map(int, args.sizes.split(",")):
        errors = worst(args.kind, n, getattr(torch, args.dtype), args.max)
        need = next(i + 1 for i, e in enumerate(errors) if e <= 2 * errors[-1])
        print(f"{args.kind} {args.dtype} n={n}: converged after {need} sweeps (error {errors[-1]:.2g}); "
              f"per sweep: {' '.join(f'{e:.1g}' for e in errors[:12])}", flush=True)


if __name__ == "__main__":
    main()
