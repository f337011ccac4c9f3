"""onnxruntime's outputs against eager's (exporter/comparison.py): the tolerance follows the
output's own precision."""

from __future__ import annotations

import numpy as np
import torch

from onnxfix.exporter.comparison import compare


def _ok(ref: torch.Tensor, got: np.ndarray) -> bool:
    (error,) = compare([ref], [got])
    return error.ok


def test_a_float32_output_matches_within_1e_4_of_its_largest_magnitude():
    ref = torch.tensor([4.0, -2.0])
    assert _ok(ref, np.array([4.0 + 3e-4, -2.0], dtype=np.float32))
    assert not _ok(ref, np.array([4.0 + 6e-4, -2.0], dtype=np.float32))


def test_a_bfloat16_output_matches_within_four_of_its_units_in_the_last_place():
    """bfloat16 keeps 8 significant bits (eps 2**-7): eager rounds each op, onnxruntime computes in
    float32; 4 ulps of the largest magnitude (4.0: 4 * 2**-7 * 4 = 0.125)."""
    ref = torch.tensor([4.0, -2.0], dtype=torch.bfloat16)
    assert _ok(ref, np.array([4.0 + 0.1, -2.0], dtype=np.float32))
    assert not _ok(ref, np.array([4.0 + 0.2, -2.0], dtype=np.float32))


def test_a_float16_output_matches_within_four_of_its_units_in_the_last_place():
    ref = torch.tensor([1.0], dtype=torch.float16)
    assert _ok(ref, np.array([1.0 + 3e-3], dtype=np.float16))
    assert not _ok(ref, np.array([1.0 + 6e-3], dtype=np.float16))
