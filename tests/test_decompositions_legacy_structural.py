"""(a) The legacy-only structural decompositions (registry_legacy_structural.py, rule ONX519)
equal the original ops in eager PyTorch; the rule reports them only when the project targets the
legacy exporter. Exports: the records' `proof`s."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch

from onnxfix.config import Settings
from onnxfix.decompositions import load_function
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, check_text
from onnxfix.rewriter.source import SourceFile

F = torch.nn.functional
NAN, INF = float("nan"), float("inf")


@pytest.fixture(autouse=True)
def exporting(monkeypatch):
    """Every test here runs the helpers' export branch (what both exporters trace): a guarded
    helper returns the torch op itself when torch.onnx.is_in_onnx_export() is False, which
    tests/test_decompositions_records.py checks bit for bit."""
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)


def helper(key):
    return load_function(key)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def assert_same(got, want, *, rtol=1e-6, atol=1e-6):
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True)


# ---- adaptive average pooling -------------------------------------------------------------------
@pytest.mark.parametrize("height, width", [(8, 7), (5, 5), (7, 3), (1, 1), (13, 9), (4, 16)])
def test_adaptive_avg_pool2d_matches_eager_for_every_output_size(height, width):
    """Divisible and non-divisible sizes, smaller and larger than the input, None (keep)."""
    x = torch.randn(2, 3, height, width, generator=gen(height))
    for out_h in (*range(1, height + 3), None):
        for out_w in (1, 2, 3, width, width + 2, None):
            size = (out_h, out_w)
            assert_same(helper("adaptive_avg_pool2d")(x, size), F.adaptive_avg_pool2d(x, size))
    assert_same(helper("adaptive_avg_pool2d")(x, 3), F.adaptive_avg_pool2d(x, 3))


def test_adaptive_avg_pool2d_unbatched_float64_and_specials():
    x = torch.randn(3, 8, 7, generator=gen(), dtype=torch.float64)  # (C, H, W), no batch
    assert_same(helper("adaptive_avg_pool2d")(x, (3, 5)), F.adaptive_avg_pool2d(x, (3, 5)), rtol=1e-12, atol=1e-12)
    y = torch.randn(1, 2, 6, 5, generator=gen(1))
    y[0, 0, 1, 1], y[0, 1, 4, 2], y[0, 1, 0, 0] = NAN, INF, -INF  # propagate into overlapping bins
    assert_same(helper("adaptive_avg_pool2d")(y, (4, 3)), F.adaptive_avg_pool2d(y, (4, 3)))
    empty = torch.randn(0, 2, 8, 7)
    assert_same(helper("adaptive_avg_pool2d")(empty, (3, 3)), F.adaptive_avg_pool2d(empty, (3, 3)))


@pytest.mark.parametrize("length", [1, 5, 8, 13])
def test_adaptive_avg_pool1d_matches_eager(length):
    x = torch.randn(2, 3, length, generator=gen(length))
    for size in range(1, length + 4):
        assert_same(helper("adaptive_avg_pool1d")(x, size), F.adaptive_avg_pool1d(x, size))
        assert_same(helper("adaptive_avg_pool1d")(x, (size,)), F.adaptive_avg_pool1d(x, (size,)))
    assert_same(helper("adaptive_avg_pool1d")(x[0], 3), F.adaptive_avg_pool1d(x[0], 3))  # unbatched


# ---- interpolate: area and nearest-exact ---------------------------------------------------------
def test_interpolate_area_matches_eager():
    for height in range(1, 20):
        x = torch.randn(2, 3, height, 21 - height, generator=gen(height))
        for size in ((1, 1), (3, 5), (height, 2), (height + 3, 4), (7, 7)):
            assert_same(helper("interpolate")(x, size=size, mode="area"), F.interpolate(x, size=size, mode="area"))
        for factor in (0.5, 0.37, (0.7, 1.5), 2.0):
            want = F.interpolate(x, scale_factor=factor, mode="area")
            if want.numel():
                assert_same(helper("interpolate")(x, scale_factor=factor, mode="area"), want)
        line = x[:, :, 0]  # 1-D input
        for size in (1, 4, 9, 25):
            assert_same(helper("interpolate")(line, size, mode="area"), F.interpolate(line, size, mode="area"))


def test_interpolate_nearest_exact_matches_eager_indices_exactly():
    """Bit-identical: the helper reproduces the kernel's float32 source positions. A value's
    position in an arange input is its source index, so any wrong index shows."""
    for height in range(1, 50):
        width = (height * 7) % 23 + 1
        x = torch.arange(float(height * width)).reshape(1, 1, height, width)
        for out_h in range(1, 100, 5):  # steps coprime with the width's 7 and 5: 980 size pairs per axis
            size = (out_h, (out_h * 5) % 37 + 1)
            assert torch.equal(helper("interpolate")(x, size=size, mode="nearest-exact"),
                               F.interpolate(x, size=size, mode="nearest-exact"))
    for factor in (0.3, 0.5, 0.7, 1.1, 1.3, 1.5, 1.7, 2.0, 2.5, 3.3, 1 / 3, 2 / 3, 0.9999, 4.0001, 0.123):
        for length in range(1, 40, 2):
            x = torch.arange(float(length * (length + 2))).reshape(1, 1, length, length + 2)
            for recompute in (None, True, False):
                if int(length * factor) < 1:
                    continue
                got = helper("interpolate")(x, scale_factor=factor, mode="nearest-exact", recompute_scale_factor=recompute)
                want = F.interpolate(x, scale_factor=factor, mode="nearest-exact", recompute_scale_factor=recompute)
                assert torch.equal(got, want), (factor, length, recompute)


def test_interpolate_nearest_exact_dtypes_and_channels():
    x = torch.randint(-5, 5, (3, 4, 6, 9), generator=gen()).to(torch.float64)
    assert torch.equal(helper("interpolate")(x, size=(11, 4), mode="nearest-exact"), F.interpolate(x, size=(11, 4), mode="nearest-exact"))
    x = torch.randint(0, 255, (2, 3, 6, 9), generator=gen(), dtype=torch.uint8)
    assert torch.equal(helper("interpolate")(x, size=(11, 4), mode="nearest-exact"), F.interpolate(x, size=(11, 4), mode="nearest-exact"))


def test_interpolate_other_modes_are_torchs_own():
    x = torch.randn(2, 3, 6, 9, generator=gen())
    for kwargs in ({"size": (11, 4), "mode": "bilinear", "align_corners": False},
                   {"scale_factor": 0.5, "mode": "bicubic", "align_corners": True},
                   {"scale_factor": 2, "mode": "nearest"}):
        assert torch.equal(helper("interpolate")(x, **kwargs), F.interpolate(x, **kwargs))
    line = torch.arange(2.0).reshape(1, 1, 2)  # 1-D nearest-exact: torch's kernel, unchanged
    assert torch.equal(helper("interpolate")(line, size=41, mode="nearest-exact"), F.interpolate(line, size=41, mode="nearest-exact"))


# ---- conv1d(padding="same", dilation > 1) --------------------------------------------------------
def test_conv1d_same_padding_matches_eager():
    warnings.filterwarnings("ignore", message="Using padding='same'")
    for kernel in (1, 2, 3, 4, 5):
        for dilation in (1, 2, 3, (2,)):
            for length in (1, 5, 9):
                for groups in (1, 2):
                    x = torch.randn(2, 4, length, generator=gen(kernel))
                    w, b = torch.randn(6, 4 // groups, kernel, generator=gen(1)), torch.randn(6, generator=gen(2))
                    for padding in ("same", "valid", 0, 2):
                        try:
                            want = F.conv1d(x, w, b, 1, padding, dilation, groups)
                        except RuntimeError:
                            continue  # the kernel does not fit: torch raises, so does the helper
                        assert_same(helper("conv1d")(x, w, b, 1, padding, dilation, groups), want, rtol=1e-5, atol=1e-5)
    x, w = torch.randn(3, 9, generator=gen()), torch.randn(2, 3, 3, generator=gen(1))  # unbatched, no bias
    assert_same(helper("conv1d")(x, w, padding="same", dilation=2), F.conv1d(x, w, padding="same", dilation=2), rtol=1e-5, atol=1e-5)
    x64 = torch.randn(1, 3, 7, generator=gen(), dtype=torch.float64)
    assert_same(helper("conv1d")(x64, w.double(), padding="same", dilation=3), F.conv1d(x64, w.double(), padding="same", dilation=3))


# ---- indexing and layout ops -------------------------------------------------------------------
def test_take_along_dim_matches_eager_with_broadcasting():
    x = torch.randn(3, 5, generator=gen())
    index = torch.randint(0, 5, (3, 2), generator=gen(1))
    assert torch.equal(helper("take_along_dim")(x, index, 1), torch.take_along_dim(x, index, 1))
    assert torch.equal(helper("take_along_dim")(x, index), torch.take_along_dim(x, index))  # flattened
    rows = torch.randint(0, 3, (4, 1), generator=gen(2))  # broadcast along dim 1
    assert torch.equal(helper("take_along_dim")(x, rows, 0), torch.take_along_dim(x, rows, 0))
    y = torch.randn(2, 1, 4, generator=gen()).double()  # both operands broadcast, negative dim
    picks = torch.randint(0, 4, (1, 3, 2), generator=gen(3))
    assert torch.equal(helper("take_along_dim")(y, picks, -1), torch.take_along_dim(y, picks, -1))
    ints = torch.arange(12).reshape(3, 4)
    argmax = ints.argmax(1, keepdim=True)
    assert torch.equal(helper("take_along_dim")(ints, argmax, 1), torch.take_along_dim(ints, argmax, 1))
    empty = torch.zeros(3, 0, dtype=torch.long)
    assert torch.equal(helper("take_along_dim")(x, empty, 1), torch.take_along_dim(x, empty, 1))


@pytest.mark.parametrize("offset", [-3, -1, 0, 1, 2])
def test_diag_embed_and_diag_match_eager(offset):
    v = torch.randn(2, 4, generator=gen())
    v[0, 1], v[1, 2], v[1, 3] = NAN, INF, -INF  # must stay on the diagonal, not spread
    for dims in ((-2, -1), (0, 2), (-1, 0), (2, 1)):
        assert_same(helper("diag_embed")(v, offset, *dims), torch.diag_embed(v, offset, *dims))
    assert_same(helper("diag")(v[0], offset), torch.diag(v[0], offset))
    for matrix in (torch.randn(4, 6, generator=gen()), torch.randn(5, 2, generator=gen(1)), torch.randn(1, 1)):
        assert torch.equal(helper("diag")(matrix, offset), torch.diag(matrix, offset))
    for dtype in (torch.int64, torch.bool, torch.float64):
        values = torch.arange(1, 4).to(dtype)
        assert torch.equal(helper("diag")(values, offset), torch.diag(values, offset))
        assert torch.equal(helper("diag_embed")(values.expand(2, 3), offset), torch.diag_embed(values.expand(2, 3), offset))


def test_diag_single_element_and_empty():
    one = torch.tensor([2.5])
    for offset in (-1, 0, 2):
        assert torch.equal(helper("diag")(one, offset), torch.diag(one, offset))
    empty = torch.zeros(0)
    assert torch.equal(helper("diag")(empty), torch.diag(empty))
    assert torch.equal(helper("diag_embed")(torch.zeros(2, 0)), torch.diag_embed(torch.zeros(2, 0)))


def test_block_diag_matches_eager():
    g = gen()
    blocks = [torch.randn(2, 3, generator=g), torch.tensor(5.0), torch.arange(3), torch.randn(0, 2, generator=g),
              torch.randn(2, 2, generator=g).double()]  # 2-D, 0-D, 1-D, empty, float64: promoted
    assert torch.equal(helper("block_diag")(*blocks), torch.block_diag(*blocks))
    assert torch.equal(helper("block_diag")(torch.arange(2)), torch.block_diag(torch.arange(2)))
    bools = (torch.tensor([[True, False]]), torch.tensor([[True]]))
    assert torch.equal(helper("block_diag")(*bools), torch.block_diag(*bools))
    specials = torch.tensor([[NAN, INF]])
    assert_same(helper("block_diag")(specials, specials), torch.block_diag(specials, specials))


def test_cartesian_prod_matches_eager():
    a, b, c = torch.randn(3, generator=gen()), torch.arange(2), torch.randn(4, generator=gen(1))
    assert torch.equal(helper("cartesian_prod")(a, b.float(), c), torch.cartesian_prod(a, b.float(), c))
    assert torch.equal(helper("cartesian_prod")(b, b), torch.cartesian_prod(b, b))
    assert torch.equal(helper("cartesian_prod")(a), torch.cartesian_prod(a))  # one tensor: itself
    assert torch.equal(helper("cartesian_prod")(a, torch.zeros(0)), torch.cartesian_prod(a, torch.zeros(0)))


def test_rot90_matches_eager_for_every_k_and_dims():
    x = torch.randn(2, 3, 4, generator=gen())
    for k in range(-5, 6):
        for dims in ((0, 1), (1, 2), (2, 0), (-1, -2), [0, 2]):
            assert torch.equal(helper("rot90")(x, k, dims), torch.rot90(x, k, dims))
    assert torch.equal(helper("rot90")(x), torch.rot90(x))
    assert torch.equal(helper("rot90")(torch.arange(6).reshape(2, 3), 3), torch.rot90(torch.arange(6).reshape(2, 3), 3))


def test_msort_matches_eager():
    x = torch.randint(-2, 3, (6, 3), generator=gen()).float()
    x[1, 1], x[4, 2], x[0, 0] = NAN, INF, -INF
    assert_same(helper("msort")(x), torch.msort(x))
    assert torch.equal(helper("msort")(x.long()), torch.msort(x.long()))
    assert torch.equal(helper("msort")(torch.randn(5, generator=gen())), torch.msort(torch.randn(5, generator=gen())))
    assert torch.equal(helper("msort")(torch.zeros(0, 2)), torch.msort(torch.zeros(0, 2)))


def test_isin_matches_eager():
    elements = torch.randint(0, 6, (3, 8), generator=gen())
    tests = torch.randint(0, 6, (3,), generator=gen(1))
    for invert in (False, True):
        assert torch.equal(helper("isin")(elements, tests, invert=invert), torch.isin(elements, tests, invert=invert))
        assert torch.equal(helper("isin")(elements, tests, assume_unique=True, invert=invert),
                           torch.isin(elements, tests, assume_unique=True, invert=invert))
    floats = torch.tensor([1.0, NAN, INF, -0.0])
    probe = torch.tensor([NAN, 0.0, INF])  # NaN is in nothing; -0.0 == 0.0
    assert torch.equal(helper("isin")(floats, probe), torch.isin(floats, probe))
    assert torch.equal(helper("isin")(elements, 3), torch.isin(elements, 3))  # a scalar test element
    assert torch.equal(helper("isin")(elements, tests.reshape(3, 1)), torch.isin(elements, tests.reshape(3, 1)))
    assert torch.equal(helper("isin")(elements, torch.zeros(0, dtype=torch.long)), torch.isin(elements, torch.zeros(0, dtype=torch.long)))


@pytest.mark.parametrize("shape", [(8,), (7,), (2, 7), (3, 4, 5), (1,), (0, 3)])
def test_fftshift_matches_eager(shape):
    x = torch.randn(shape, generator=gen())
    assert torch.equal(helper("fftshift")(x), torch.fft.fftshift(x))
    assert torch.equal(helper("fftshift")(x, dim=-1), torch.fft.fftshift(x, dim=-1))
    assert torch.equal(helper("fftshift")(x, -1), torch.fft.fftshift(x, -1))
    if x.dim() > 1:
        assert torch.equal(helper("fftshift")(x, dim=(0, -1)), torch.fft.fftshift(x, dim=(0, -1)))
        assert torch.equal(helper("fftshift")(x.long(), dim=[1]), torch.fft.fftshift(x.long(), dim=[1]))


@pytest.mark.plumbing
def test_variadic_helpers_take_starred_arguments():
    """block_diag(*blocks): the rename keeps the star (the helper takes *tensors); a keyword
    (out=) leaves the call reported without a fix."""
    from onnxfix.rewriter.engine import fix_text

    text = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, a, b):\n"
            "        blocks = [a, b]\n        return torch.block_diag(*blocks), torch.cartesian_prod(a[0], b[0])\n")
    path = Path("m.py")
    source = SourceFile.from_bytes(path, text.encode("utf-8"))
    fixed, _, _ = fix_text(source, "m.py", Settings(exporters=frozenset({"legacy"})), RuleSet(list(all_rules())))
    assert "return _onnx_block_diag(*blocks), _onnx_cartesian_prod(a[0], b[0])" in fixed
    namespace = {}
    exec(compile(fixed, "m.py", "exec"), namespace)  # the rewritten module runs and agrees
    a, b = torch.randn(2, 3, generator=gen()), torch.randn(3, 2, generator=gen(1))
    got = namespace["M"]()(a, b)
    assert torch.equal(got[0], torch.block_diag(a, b)) and torch.equal(got[1], torch.cartesian_prod(a[0], b[0]))
    with_out = text.replace("torch.block_diag(*blocks)", "torch.block_diag(*blocks, out=None)")
    source = SourceFile.from_bytes(path, with_out.encode("utf-8"))
    findings = check_text(with_out, source, "m.py", Settings(exporters=frozenset({"legacy"})), RuleSet(list(all_rules())))
    assert [(f.code, f.fix is None) for f in findings] == [("ONX519", True), ("ONX519", False)]


# ---- histc -------------------------------------------------------------------------------------
def test_histc_matches_eager_bit_for_bit():
    """Values on bin edges, outside the range, NaN, float64, the data's own range (min == max).
    Bit for bit by construction: ATen's histc kernel (LINEAR_INTERPOLATION) computes a value's
    bin as (x - min) * bins / (max - min) in the input's dtype, the helper's three IEEE
    operations in the same order (none can fuse into an FMA), and the counts are integers."""
    g = gen()
    checked = 0
    for trial in range(120):
        x = torch.randn(int(torch.randint(1, 200, (1,), generator=g)), generator=g) * 3
        if trial % 3 == 0:
            x = torch.randint(-4, 5, x.shape, generator=g).float() / 4  # many values on edges
        if trial % 7 == 0:
            x[::5] = NAN
        if trial % 11 == 0:
            x = x.double()
        for bins in (1, 3, 7, 100):
            for low, high in ((0, 0), (-1, 1), (-0.3, 0.7), (0.1, 0.1), (-1, 0.35)):
                if low == high and x.isnan().any():
                    with pytest.raises(RuntimeError, match="not finite"):  # the data's range is NaN
                        torch.histc(x, bins, low, high)
                    assert not helper("histc")(x, bins, low, high).any()  # the helper counts nothing
                    continue
                assert torch.equal(helper("histc")(x, bins, low, high), torch.histc(x, bins, low, high)), (trial, bins, low, high)
                checked += 1
    assert checked > 120 * 4 * 4


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_histc_of_half_types_rounds_each_step_as_aten(dtype):
    """ATen's half kernel rounds (x - min), * bins and / (max - min) to the half type one by one;
    the helper does each step in float32 and casts (onnxruntime's own float16 arithmetic does
    not round the same way: the exported model was off on values near bin edges). ATen takes
    `bins` as a half too (3001 is 3000 in float16). Ranges whose products stay finite: past
    float16's max, ATen converts an infinite position to an integer (undefined in C++)."""
    g = gen()
    for trial in range(40):
        x = (torch.rand(int(torch.randint(1, 300, (1,), generator=g)), generator=g) * 24 - 12).to(dtype)
        for bins, low, high in ((60, -10, 10), (7, -1, 0.35), (13, 0, 0), (257, -12, 12), (3001, -2, 2)):
            if float(torch.tensor(float(bins)).to(dtype)) > bins:
                continue  # bins rounded up (3001 is 3008 in bfloat16): ATen indexes past its histogram
            assert torch.equal(helper("histc")(x, bins, low, high), torch.histc(x, bins, low, high)), (trial, bins)


def test_histc_constant_empty_and_batched_input():
    constant = torch.full((5,), 2.5)  # one value: torch widens the range to [1.5, 3.5]
    assert torch.equal(helper("histc")(constant, 4), torch.histc(constant, 4))
    assert torch.equal(helper("histc")(torch.zeros(0), 3), torch.histc(torch.zeros(0), 3))
    matrix = torch.randn(3, 4, generator=gen())  # any shape counts all its elements
    assert torch.equal(helper("histc")(matrix, bins=6, min=-1, max=1), torch.histc(matrix, bins=6, min=-1, max=1))
    assert torch.equal(helper("histc")(matrix), torch.histc(matrix))


# ---- quantile / nanquantile --------------------------------------------------------------------
@pytest.mark.parametrize("key", ["quantile", "nanquantile"])
def test_quantiles_match_eager_bit_for_bit(key):
    """Every interpolation mode, scalar / 0-D / 1-D q, dim None or given, keepdim, NaN rows and
    all-NaN rows, ties, float64."""
    original = getattr(torch, key)
    g = gen()
    for trial in range(12):
        x = torch.randn(3, 5, 4, generator=g)
        if trial % 2:
            x = torch.randint(-2, 3, x.shape, generator=g).float()  # ties
        if trial % 3 == 0:
            x.view(-1)[::7] = NAN
        if trial % 4 == 0:
            x[1] = NAN  # a slice of NaN only
        if trial % 5 == 0:
            x = x.double()
        for q in (0.3, 0.0, 1.0, torch.tensor([0.25, 0.75, 0.1]), torch.tensor(0.9)):
            q = q.to(x.dtype) if isinstance(q, torch.Tensor) else q
            for dim in (None, 0, 1, -1):
                for keepdim in (False, True):
                    for mode in ("linear", "lower", "higher", "nearest", "midpoint"):
                        want = original(x, q, dim, keepdim, interpolation=mode)
                        got = helper(key)(x, q, dim, keepdim, interpolation=mode)
                        assert got.shape == want.shape and got.dtype == want.dtype
                        assert torch.equal(got.isnan(), want.isnan()), (trial, q, dim, keepdim, mode)
                        assert torch.equal(got.nan_to_num(), want.nan_to_num()), (trial, q, dim, keepdim, mode)


def test_quantile_single_value_and_method_form():
    one = torch.tensor([[4.0]])
    assert torch.equal(helper("quantile")(one, 0.5, dim=1), torch.quantile(one, 0.5, dim=1))
    x = torch.randn(2, 6, generator=gen())
    assert torch.equal(helper("quantile")(x, 0.4), x.quantile(0.4))
    assert torch.equal(helper("nanquantile")(x, torch.tensor([0.1, 0.6]), 0), x.nanquantile(torch.tensor([0.1, 0.6]), 0))


# ---- bitwise or / xor / not on integers -----------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool])
def test_bitwise_ops_match_eager_including_extremes(dtype):
    g = gen()
    if dtype == torch.bool:
        x, y = torch.rand(300, generator=g) > 0.5, torch.rand(300, generator=g) > 0.5
        scalar = True
    else:
        info = torch.iinfo(dtype)
        x = torch.randint(info.min, info.max, (300,), generator=g, dtype=dtype)
        y = torch.randint(info.min, info.max, (300,), generator=g, dtype=dtype)
        x[:4] = torch.tensor([info.min, info.max, 0, info.max], dtype=dtype)  # wrap-around corners
        y[:4] = torch.tensor([info.max, info.min, info.min, info.max], dtype=dtype)
        scalar = 3
    for key in ("bitwise_or", "bitwise_xor"):
        assert torch.equal(helper(key)(x, y), getattr(torch, key)(x, y)), key
        assert torch.equal(helper(key)(x, scalar), getattr(torch, key)(x, scalar)), key
    assert torch.equal(helper("bitwise_not")(x), torch.bitwise_not(x))


def test_bitwise_ops_promote_like_torch():
    a, b = torch.randint(-5, 5, (4,), dtype=torch.int32, generator=gen()), torch.randint(-5, 5, (4,), generator=gen(1))
    for key in ("bitwise_or", "bitwise_xor"):
        assert torch.equal(helper(key)(a, b), getattr(torch, key)(a, b))  # int32 with int64
        assert torch.equal(helper(key)(a > 0, b), getattr(torch, key)(a > 0, b))  # bool with int64
        assert torch.equal(helper(key)(a.reshape(4, 1), b), getattr(torch, key)(a.reshape(4, 1), b))  # broadcast


# ---- interpolate antialias=True (unsafe: float64 weights) ----------------------------------------
@pytest.mark.parametrize("corners", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_interpolate_antialias_error_bound(mode, corners):
    """The bound ONX519 documents: 1e-5 on [0, 1] inputs, 2e-5 on standard-normal ones; the
    same shapes as torch for sizes and scale factors, down and up; with align_corners=True too
    (its own scale, (in - 1) / (out - 1), which the dynamo exporter's Resize does not compute)."""
    g = gen()
    worst_unit = worst_normal = 0.0
    for height in (1, 3, 8, 17, 32):
        unit = torch.rand(2, 3, height, height + 5, generator=g)
        normal = torch.randn(2, 3, height, height + 5, generator=g)
        for out_h in (1, 2, 3, 7, height // 2 + 1, height, height + 4, 2 * height):
            for out_w in (2, 5, height // 3 + 1, height + 2):
                size = (out_h, out_w)
                for x, name in ((unit, "unit"), (normal, "normal")):
                    want = F.interpolate(x, size=size, mode=mode, antialias=True, align_corners=corners)
                    got = helper("interpolate")(x, size=size, mode=mode, antialias=True, align_corners=corners)
                    assert got.shape == want.shape
                    error = (got - want).abs().max().item()
                    if name == "unit":
                        worst_unit = max(worst_unit, error)
                    else:
                        worst_normal = max(worst_normal, error)
        for factor in (0.5, 0.3, 1.5, (0.4, 0.9)):
            for recompute in (None, True):
                try:
                    want = F.interpolate(normal, scale_factor=factor, mode=mode, antialias=True, align_corners=corners,
                                         recompute_scale_factor=recompute)
                except RuntimeError:
                    continue  # an output size of 0: torch raises
                got = helper("interpolate")(normal, scale_factor=factor, mode=mode, antialias=True, align_corners=corners,
                                          recompute_scale_factor=recompute)
                assert got.shape == want.shape
                worst_normal = max(worst_normal, (got - want).abs().max().item())
    assert worst_unit < 1e-5 and worst_normal < 2e-5, (worst_unit, worst_normal)
    assert worst_unit > 0  # not bit-identical: the reason the fix is unsafe


def test_interpolate_antialias_width_one_runs_torch():
    x = torch.randn(1, 1, 5, 8, generator=gen())  # torch repeats its first output row here
    assert torch.equal(helper("interpolate")(x, size=(2, 1), mode="bilinear", antialias=True),
                       F.interpolate(x, size=(2, 1), mode="bilinear", antialias=True))


@pytest.mark.plumbing
def test_decompose_channel_covers_nn_modules_under_legacy(tmp_path):
    """(d) nn.Conv1d(padding="same", dilation=2), nn.AdaptiveAvgPool2d((3, 3)) and
    nn.Upsample(mode="nearest-exact") call the functional ops, which the static rule cannot see
    through; `--decompose` intercepts them: the legacy export fails without it and matches eager
    in onnxruntime with it, on another batch size."""
    from torch import nn

    from onnxfix.exporter import comparison, verify
    from onnxfix.exporter.decompose import decomposition_context

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(3, 4, 3, padding="same", dilation=2)
            self.pool = nn.AdaptiveAvgPool2d((3, 3))
            self.up = nn.Upsample(scale_factor=1.5, mode="nearest-exact")

        def forward(self, wave, image):
            return self.conv(wave), self.pool(image), self.up(image)

    torch.manual_seed(0)
    model = Model().eval()
    args = (torch.randn(2, 3, 11, generator=gen()), torch.randn(2, 2, 8, 7, generator=gen(1)))
    dynamic = {0: {0: "batch"}, 1: {0: "batch"}}
    path = tmp_path / "m.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception, match="not factor of input size"):
            verify.export_model(model, args, "legacy", path, dynamic)
        with decomposition_context() as mode:
            verify.export_model(model, args, "legacy", path, dynamic)
    assert mode.used == {"conv1d": 1, "adaptive_avg_pool2d": 1, "interpolate": 1}
    probe = (torch.randn(3, 3, 11, generator=gen(2)), torch.randn(3, 2, 8, 7, generator=gen(3)))
    got = comparison.run_onnx(path, probe, verify.input_names(model, 2))
    with torch.no_grad():
        want = model(*probe)
    for g, w in zip(got, want):
        torch.testing.assert_close(torch.as_tensor(g), w, rtol=1e-5, atol=1e-5)


@pytest.mark.plumbing
def test_histc_of_float16_exports_bit_for_bit_under_legacy(tmp_path):
    """The half-type steps hold in onnxruntime too: the helper's legacy export counts float16 values
    into the bins ATen counts them in, on another batch size (the plain float16 Sub / Mul / Div of
    the exported graph put values near bin edges into the neighbouring bin)."""
    from onnxfix.exporter import comparison, verify

    histc = load_function("histc")

    class Model(torch.nn.Module):
        def forward(self, x):
            return histc(x, 60, -10, 10)

    model = Model()
    path = tmp_path / "m.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verify.export_model(model, (torch.rand(10, 10, 10, generator=gen()).half(),), "legacy", path, {0: {0: "batch"}})
    probe = (torch.rand(7, 10, 10, generator=gen(1)).half() * 20 - 10,)
    (got,) = comparison.run_onnx(path, probe, verify.input_names(model, 1))
    assert torch.equal(torch.as_tensor(got), torch.histc(probe[0], 60, -10, 10))


def test_nearest_exact_by_a_scale_factor_sizes_its_output_as_torch():
    """The output size floor(n * factor) from the size as a tensor (the legacy branch): a float64
    product, as torch's (a float32 one gives 29 rows for 100 * 0.29)."""
    for factor in (0.29, 0.1, 1.7, 3.99, 0.57):
        for n in (100, 33, 299):
            x = torch.randn(1, 1, n, 40, generator=gen())
            want = F.interpolate(x, scale_factor=factor, mode="nearest-exact")
            assert torch.equal(helper("interpolate")(x, scale_factor=factor, mode="nearest-exact"), want), (n, factor)


@pytest.mark.plumbing
def test_nearest_exact_by_a_scale_factor_follows_the_input_size_under_legacy(tmp_path):
    """nn.Upsample(scale_factor=2.0, mode="nearest-exact") (Wan's VAE upsampler), decomposed while the
    legacy exporter traces (it has no symbolic for aten::_upsample_nearest_exact2d): the source
    indices are computed in the graph from the input's size, so another height and width match eager."""
    from onnxfix.exporter import comparison, verify
    from onnxfix.exporter.decompose import decomposition_context

    model = torch.nn.Upsample(scale_factor=2.0, mode="nearest-exact")
    path = tmp_path / "m.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with decomposition_context(["interpolate"]):
            verify.export_model(model, (torch.randn(1, 2, 5, 6, generator=gen()),), "legacy", path, {0: {2: "h", 3: "w"}})
    probe = (torch.randn(1, 2, 7, 3, generator=gen(1)),)
    (got,) = comparison.run_onnx(path, probe, verify.input_names(model, 1))
    assert torch.equal(torch.as_tensor(got), model(*probe))
