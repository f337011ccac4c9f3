"""Export branches of the export-time helpers on the argument forms their proofs do not cover
(the flag forced True, as both exporters set it): each against the torch op in eager."""

from __future__ import annotations

import pytest
import torch

from onnxfix.decompositions import load_function


@pytest.fixture
def exporting(monkeypatch):
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)


@pytest.mark.parametrize("shift", [0, 3, 7, 8, 9, 259, -254, 300])
def test_a_uint8_left_shift_converts_its_amount_as_aten_does(exporting, shift):
    """ATen converts the amount to uint8 (259 shifts by 3, -254 by 2) and shifts 8 or more out."""
    shifted = load_function("bitwise_left_shift")
    u = torch.arange(0, 256, dtype=torch.uint8)
    assert torch.equal(shifted(u, shift), u << shift)
    amounts = torch.full((256,), shift % 256, dtype=torch.uint8)
    assert torch.equal(shifted(u, amounts), u << amounts)


def test_a_uint8_right_shift_under_dynamo_is_uint8_and_aten_s_values(exporting, monkeypatch):
    """The dynamo branch (torch.compiler.is_exporting()): a uint8 shift in int64 cast back, the
    values and dtype ATen gives for every amount, in range or not."""
    monkeypatch.setattr(torch.compiler, "is_exporting", lambda: True)
    shifted = load_function("bitwise_right_shift")
    u = torch.arange(0, 256, dtype=torch.uint8)
    for shift in (0, 1, 4, 7, 8, 9, -1, 256, 260):  # ATen takes a number as uint8: 260 shifts by 4
        got = shifted(u, shift)
        assert got.dtype == torch.uint8 and torch.equal(got, torch.bitwise_right_shift(u, shift)), shift
    amounts = torch.arange(0, 256, dtype=torch.uint8) % 11
    assert torch.equal(shifted(u, amounts), u >> amounts)
    signed = torch.arange(-300, 300, dtype=torch.int32)  # GPTQ's int32 unpacking: the op itself under dynamo
    assert torch.equal(shifted(signed, 3), signed >> 3) and shifted(signed, 3).dtype == torch.int32


def test_bitwise_ops_of_an_integer_tensor_and_a_number_take_the_number_in_the_tensor_s_dtype(exporting):
    promoted = load_function("operands_promoted")
    u = torch.arange(0, 256, dtype=torch.uint8)
    for op in (torch.bitwise_and, torch.bitwise_or, torch.bitwise_xor, torch.Tensor.__and__, torch.Tensor.__rxor__):
        got = promoted(op, u, 15)
        assert got.dtype == torch.uint8 and torch.equal(got, op(u, 15))
    assert torch.equal(promoted(torch.bitwise_and, u, 300), torch.bitwise_and(u, 300))  # out of range: the op
    flags = torch.tensor([True, False])
    assert promoted(torch.bitwise_and, flags, 1).dtype == torch.bitwise_and(flags, 1).dtype == torch.int64


def test_a_left_shift_of_other_dtypes_is_the_op(exporting):
    shifted = load_function("bitwise_left_shift")
    x = torch.arange(-5, 5)
    assert torch.equal(shifted(x, 3), x << 3)


def test_bool_selections_run_on_bytes_and_other_selections_keep_their_path(exporting):
    """float32_compute: a where / maximum of bool values is read back as bool; a where whose values
    are float64 still runs in float32 (its condition is bool too); the method form and keywords
    are the op's own calls."""
    compute = load_function("float32_compute")
    keep = torch.tensor([True, False, True])
    a, b = torch.tensor([True, True, False]), torch.tensor([False, True, True])
    assert torch.equal(compute(torch.where, keep, a, b), torch.where(keep, a, b))
    assert compute(torch.where, keep, a, b).dtype == torch.bool
    assert torch.equal(compute(torch.maximum, a, b), torch.maximum(a, b))
    assert torch.equal(compute(torch.where, keep, a, False), torch.where(keep, a, False))
    # float64 values (also a bool condition) still take the float32 path: rounded to float32
    x, y = torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    assert torch.equal(compute(torch.where, keep, x, y), torch.where(keep, x.float(), y.float()).double())
    assert not torch.equal(compute(torch.where, keep, x, y), torch.where(keep, x, y))
    values = torch.randn(3)
    assert torch.equal(compute(torch.Tensor.where, values, keep, 0.0), values.where(keep, 0.0))
    assert torch.equal(compute(torch.where, condition=keep, input=a, other=b), torch.where(keep, a, b))


def test_bool_min_max_sums_and_products_of_two_tensors_run_on_bytes_and_a_dim_keeps_the_op(exporting):
    compute = load_function("float32_compute")
    a, b = torch.tensor([True, True, False]), torch.tensor([False, True, True])
    for op in (torch.min, torch.max, torch.Tensor.min, torch.Tensor.max):
        assert torch.equal(compute(op, a, b), op(a, b)) and compute(op, a, b).dtype == torch.bool
    for op in (torch.add, torch.Tensor.__add__, torch.Tensor.__radd__, torch.mul, torch.Tensor.__mul__):
        assert torch.equal(compute(op, a, b), op(a, b)) and compute(op, a, b).dtype == torch.bool
    tree = torch.eye(3).bool()  # EAGLE's tree mask: a row or-ed into another in place, through a view
    expected = tree.clone()
    expected[2].add_(expected[0])
    assert compute(torch.Tensor.add_, tree[2], tree[0]) is not None and torch.equal(tree, expected)
    grid = torch.tensor([[True, False], [True, True]])
    assert all(torch.equal(x, y) for x, y in zip(compute(torch.min, grid, 1), torch.min(grid, 1)))


def test_half_accumulating_scatters_run_in_float32_and_in_place_ops_write_their_tensor(exporting):
    """A float16 index_add_ writes the tensor it was called on (the values of a float32 sum rounded
    once); an out-of-place scatter_add returns float16; a bfloat16 in-place add writes its tensor too."""
    compute = load_function("float32_compute")
    h = torch.randn(7, 3).half()
    ids = torch.tensor([0, 2, 2, 1, 0, 2, 1])
    pooled = h.new_zeros(3, 3)
    returned = compute(torch.Tensor.index_add_, pooled, 0, ids, h)
    expected = torch.zeros(3, 3).index_add_(0, ids, h.float()).half()
    assert returned is pooled and torch.equal(pooled, expected)
    summed = compute(torch.Tensor.scatter_add, h.new_zeros(3, 3), 0, ids[:, None].expand(7, 3), h)
    assert summed.dtype == torch.float16 and torch.equal(summed, expected)
    x, y = torch.randn(4).bfloat16(), torch.randn(4).bfloat16()
    before = x.clone()
    assert compute(torch.Tensor.add_, x, y) is x and torch.equal(x, (before.float() + y.float()).bfloat16())
    # float16 ops that do not accumulate are the op itself
    assert torch.equal(compute(torch.add, h, h), h + h)
    # an in-place op on a float32 tensor with a float64 operand writes that tensor, in float32
    x32, y64 = torch.randn(3), torch.randn(3, dtype=torch.float64)
    assert compute(torch.Tensor.add_, x32, y64) is x32 and x32.dtype == torch.float32
    # in-place ops that change a shape, and `out=`, are the op itself
    v = torch.randn(3, dtype=torch.float64)
    assert compute(torch.Tensor.unsqueeze_, v, 0).shape == (1, 3)
    out = torch.zeros(3, dtype=torch.float64)
    compute(torch.add, v, v, out=out)
    assert torch.equal(out, v + v)


def test_operands_of_several_dtypes_are_promoted_as_eager_does(exporting):
    promoted = load_function("operands_promoted")
    half, double = torch.randn(2, 5).half(), torch.randn(4, dtype=torch.float64)
    assert torch.equal(promoted(torch.einsum, "bn,d->bnd", half, double), torch.einsum("bn,d->bnd", half, double))
    pieces = [torch.randn(2, 3).half(), torch.randn(1, 3)]
    assert torch.equal(promoted(torch.cat, pieces), torch.cat(pieces))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_integer_matmul_adds_are_a_matmul_and_an_add_with_aten_s_integers(exporting, dtype):
    """float32_compute: an integer addmm / addmv / baddbmm / addbmm (onnxruntime has no integer Gemm)
    is `beta * input + alpha * matmul`: the same integers, wrapping past the dtype's range alike."""
    compute = load_function("float32_compute")
    big = torch.iinfo(dtype).max // 3
    m1, m2 = torch.randint(-9, 9, (4, 5), dtype=dtype), torch.randint(-9, 9, (5, 3), dtype=dtype)
    bias = torch.tensor([[big, -big, 7]], dtype=dtype)
    for kwargs in ({}, {"beta": 2, "alpha": 3}, {"beta": 0}):
        assert torch.equal(compute(torch.addmm, bias, m1, m2, **kwargs), torch.addmm(bias, m1, m2, **kwargs))
    assert torch.equal(compute(torch.Tensor.addmm, bias, m1, m2), bias.addmm(m1, m2))
    v = torch.randint(-9, 9, (5,), dtype=dtype)
    assert torch.equal(compute(torch.addmv, bias[0, :1].expand(4), m1, v), torch.addmv(bias[0, :1].expand(4), m1, v))
    b1, b2 = torch.randint(-9, 9, (2, 4, 5), dtype=dtype), torch.randint(-9, 9, (2, 5, 3), dtype=dtype)
    assert torch.equal(compute(torch.baddbmm, bias, b1, b2, alpha=2), torch.baddbmm(bias, b1, b2, alpha=2))
    assert torch.equal(compute(torch.addbmm, bias, b1, b2), torch.addbmm(bias, b1, b2))


def test_integer_sums_and_scans_stay_int64_as_eager_gives_them(exporting):
    """float32_compute widens a narrow integer op to int64 and narrows its result back, except a sum,
    product or scan, which ATen computes in int64 for any integer input (a uint8 mask's cumsum: an
    integral image); the uint8 add of two masks stays uint8, wrapping as eager does."""
    compute = load_function("float32_compute")
    mask = torch.randint(0, 2, (2, 5, 6), dtype=torch.uint8) * 255
    for op, args in ((torch.cumsum, (mask, -1)), (torch.Tensor.cumsum, (mask, 1)), (torch.sum, (mask,)),
                     (torch.Tensor.sum, (mask, 2)), (torch.cumprod, (mask // 255 + 1, 0))):
        assert torch.equal(compute(op, *args), op(*args)) and compute(op, *args).dtype == torch.int64
    assert torch.equal(compute(torch.add, mask, mask), torch.add(mask, mask))
    assert compute(torch.add, mask, mask).dtype == torch.uint8


def test_a_reduction_with_a_dtype_casts_an_integer_input_first(exporting):
    """float32_compute: `img.mean(dim=..., dtype=torch.float32)` of a uint8 image reduces the image cast
    to the dtype, as ATen does (torch.onnx reduced the uint8 input: no ReduceMean kernel); a float input
    and a call without dtype take their usual paths."""
    compute = load_function("float32_compute")
    image = torch.randint(0, 256, (2, 3, 4, 5), dtype=torch.uint8)
    got = compute(torch.Tensor.mean, image, dim=(2, 3), keepdim=True, dtype=torch.float32)
    assert got.dtype == torch.float32
    torch.testing.assert_close(got, image.mean(dim=(2, 3), keepdim=True, dtype=torch.float32), rtol=1e-6, atol=1e-5)
    assert torch.equal(compute(torch.sum, image, dtype=torch.int32), torch.sum(image, dtype=torch.int32))


def test_a_global_argmax_kept_as_the_input_s_rank(exporting):
    """index_keepdim: argmax / argmin with keepdim=True and no dim is the flattened input's index in a
    tensor of the input's rank with every size 1, as ATen gives it; with a dim, the op."""
    keep = load_function("index_keepdim")
    score = torch.randn(3, 5, 7)
    for op in (torch.argmax, torch.argmin, torch.Tensor.argmax):
        assert torch.equal(keep(op, score, keepdim=True), op(score, keepdim=True))
        assert keep(op, score, keepdim=True).shape == (1, 1, 1)
        assert torch.equal(keep(op, score, 1, True), op(score, 1, True))


def test_the_export_time_table_takes_only_the_calls_whose_literals_the_record_selects():
    """batch_norm_stats (when_literals: no running statistics, training=True) replaces an eval
    BatchNorm's call nowhere, the batch-statistics call only; repeat_interleave_dim's NEGATIVE
    matches -1 and not 1 or True, at its position or by keyword."""
    import torch

    from onnxfix.decompositions import BY_KEY
    from onnxfix.decompositions.base import NEGATIVE, literal_matches
    from onnxfix.exporter.decompose import decomposition_table

    entry = decomposition_table(["batch_norm_stats"])[torch.nn.functional.batch_norm]
    x, mean, var = torch.randn(2, 3, 4), torch.zeros(3), torch.ones(3)
    assert not entry.applies((x, mean, var), {"training": False})
    assert not entry.applies((x, mean, var, None, None, True), {})
    assert entry.applies((x, None, None, None, None, True), {})
    assert entry.applies((x, None, None), {"training": True})
    assert [literal_matches(NEGATIVE, v) for v in (-1, 1, True, -1.0)] == [True, False, False, False]
    assert BY_KEY["repeat_interleave_dim"].when_literals == (("dim", 2, NEGATIVE),)
