"""Operators only the legacy (TorchScript) exporter fails on; fixed when a project targets legacy."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition  # noqa: F401 - used by entries

DECOMPOSITIONS: tuple[Decomposition, ...] = ()
