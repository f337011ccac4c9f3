"""Real transformers models keep their outputs bit for bit after `onnxfix --write --unsafe-fixes`.

The fast subset runs in the default test run (and CI); select it alone with
`pytest -m transformers`. The whole set: `python bench/transformers_equivalence.py`
(writes docs/transformers-equivalence.md).
"""

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

# Architectures whose modeling code the current rules change, and whose forward (with the
# recipe's config and inputs) runs the changed lines.
FAST_SUBSET = ["hiera", "ibert", "mobilenet_v2", "openai"]


@pytest.mark.transformers
def test_fast_subset_is_bit_identical_after_rewrite():
    pytest.importorskip("transformers")
    from transformers_equivalence import measure

    results = measure(FAST_SUBSET, timeout=900)
    table = {r.arch: (r.status, r.detail) for r in results}
    assert all(r.changed_files for r in results), f"onnxfix no longer changes: {table}"
    assert {r.arch: r.status for r in results} == dict.fromkeys(FAST_SUBSET, "identical"), table
    for result in results:
        assert result.ran_lines > 0, f"{result.arch}: no rewritten line ran; the check proves nothing"


def test_comparison_catches_any_difference():
    torch = pytest.importorskip("torch")
    from transformers_equivalence import compare

    a = torch.arange(6.0).reshape(2, 3)
    assert compare((a, (a, None)), (a.clone(), (a.clone(), None))) is None
    b = a.clone()
    b[1, 2] += 1e-6
    assert compare((a,), (b,)) == "output[0]: values differ (max abs diff 9.5367431640625e-07)"
    assert compare((a,), (a.double(),)) == "output[0]: torch.float32(2, 3) -> torch.float64(2, 3)"
    assert compare((a,), (a.reshape(3, 2),)) == "output[0]: torch.float32(2, 3) -> torch.float32(3, 2)"
    assert compare((a, a), (a,)) == "output: 2 items -> 1"
    assert compare((a,), (None,)) == "output[0]: Tensor -> NoneType"


def test_changed_line_numbers_are_those_of_the_rewritten_file():
    from transformers_equivalence import changed_line_numbers

    before = "a\nb += 1\nc\nd\n"
    after = "import torch\na\nb = b + 1\nc\nd\n"
    assert changed_line_numbers(before, after) == [1, 3]
