"""ONX601's fix of the BART-family fp16 clamp (`if h.dtype == torch.float16 and not
torch.isfinite(h).all(): h = torch.clamp(...)` -> the dtype test as the `if`, `torch.where` on the
tensor test): eager bit-identity on float16 inputs with and without inf/NaN, where the branch is
and is not taken (tests/flow_models/fp16_clamp.py proves the export on float32)."""

import torch
import pytest


def original(h, finite_all):
    if h.dtype == torch.float16 and (not torch.isfinite(h).all() if finite_all else torch.isinf(h).any()):
        clamp_value = torch.finfo(h.dtype).max - 1000
        h = torch.clamp(h, min=-clamp_value, max=clamp_value)
    return h


def rewritten(h, finite_all):
    if h.dtype == torch.float16:
        clamp_value = torch.finfo(h.dtype).max - 1000
        test = ~torch.isfinite(h).all() if finite_all else torch.isinf(h).any()
        h = torch.where(test, torch.clamp(h, min=-clamp_value, max=clamp_value), h)
    return h


def cases():
    g = torch.Generator().manual_seed(0)
    finite = (torch.randn(4, 5, 6, generator=g) * 3e4).half()  # values in (max - 1000, max] included
    finite[0, 0, 0], finite[0, 0, 1], finite[0, 0, 2] = 65504.0, -65504.0, -0.0
    inf = finite.clone()
    inf[1, 2, 3], inf[2, 0, 1] = float("inf"), float("-inf")
    nan = finite.clone()
    nan[3, 1, 1] = float("nan")
    return {"finite": finite, "inf": inf, "nan": nan, "float32": finite.float(), "float32 inf": inf.float()}


@pytest.mark.parametrize("finite_all", [True, False])
@pytest.mark.parametrize("name", sorted(cases()))
def test_bit_identical(name, finite_all):
    h = cases()[name]
    before, after = original(h.clone(), finite_all), rewritten(h.clone(), finite_all)
    assert before.dtype == after.dtype and before.shape == after.shape
    assert torch.equal(before.view(torch.int16) if h.dtype == torch.float16 else before.view(torch.int32),
                       after.view(torch.int16) if h.dtype == torch.float16 else after.view(torch.int32))


def test_clamp_is_not_a_no_op_on_finite_values():
    """Why the clamp must stay under the tensor test: it changes finite values above max - 1000."""
    h = cases()["finite"]
    clamp_value = torch.finfo(h.dtype).max - 1000
    assert not torch.equal(torch.clamp(h, min=-clamp_value, max=clamp_value), h)
