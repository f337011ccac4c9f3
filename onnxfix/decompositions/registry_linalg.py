"""Linear algebra: triangular factorisations and what they give (Cholesky, QR, triangular solves,
determinants, least squares, matrix exponential)."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition  # noqa: F401 - used by entries

DECOMPOSITIONS: tuple[Decomposition, ...] = ()
