"""Exact structural rewrites (statistics, index reductions, losses) and the legacy exporter's silent bugs."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition  # noqa: F401 - used by entries

DECOMPOSITIONS: tuple[Decomposition, ...] = ()
