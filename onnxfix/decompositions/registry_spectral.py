"""Spectral linear algebra: symmetric eigenvalues, singular values, pseudo-inverse, norms."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition  # noqa: F401 - used by entries

DECOMPOSITIONS: tuple[Decomposition, ...] = ()
