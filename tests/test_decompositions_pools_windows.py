"""Eager equivalence of the pooling, window and bilinear decompositions (adaptive_avg_pool3d,
avg_pool2d/3d with divisor_override, kaiser_window, bartlett_window, bilinear): each helper's
export branch against the torch op over argument forms."""

from __future__ import annotations

from unittest import mock

import pytest
import torch
import torch.nn.functional as F

from onnxfix.decompositions import load_function


@pytest.fixture(autouse=True)
def exporting(monkeypatch):
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    monkeypatch.setattr(torch.compiler, "is_exporting", lambda: False)


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("size", [(2, 3, 3), 1, (None, 2, 5), 4, (5, 7, 7)])
def test_adaptive_avg_pool3d(size):
    x = randn(2, 3, 5, 7, 7)
    torch.testing.assert_close(load_function("adaptive_avg_pool3d")(x, size), F.adaptive_avg_pool3d(x, size),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("kwargs", "dims"), [
    ({"kernel_size": 2, "divisor_override": 1}, 2),
    ({"kernel_size": (3, 2), "stride": 1, "padding": 1, "divisor_override": 5}, 2),
    ({"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False, "divisor_override": 2}, 2),
    ({"kernel_size": 3, "stride": 2, "ceil_mode": True, "divisor_override": 2}, 2),  # the op kept
    ({"kernel_size": (2, 1, 3), "stride": (1, 2, 1), "divisor_override": 4}, 3),
    ({"kernel_size": 2}, 2),  # no divisor: the op itself
])
def test_avg_pool_divisor_override(kwargs, dims):
    x = randn(2, 3, 7, 8) if dims == 2 else randn(2, 2, 4, 5, 6)
    op = F.avg_pool2d if dims == 2 else F.avg_pool3d
    helper = load_function(f"avg_pool{dims}d")
    torch.testing.assert_close(helper(x, **kwargs), op(x, **kwargs), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("length", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(length, periodic):
    for key, op, extra in (("kaiser_window", torch.kaiser_window, {"beta": 6.5}), ("bartlett_window", torch.bartlett_window, {})):
        got = load_function(key)(length, periodic, **extra)
        torch.testing.assert_close(got, op(length, periodic, **extra), rtol=2e-6, atol=1e-6)
    got64 = load_function("kaiser_window")(9, periodic, dtype=torch.float64)
    torch.testing.assert_close(got64, torch.kaiser_window(9, periodic, dtype=torch.float64), rtol=1e-12, atol=1e-12)


def test_bilinear_with_and_without_bias_and_extra_dims():
    a, b, w, bias = randn(2, 5, 3), randn(2, 5, 4, seed=1), randn(6, 3, 4, seed=2), randn(6, seed=3)
    helper = load_function("bilinear")
    torch.testing.assert_close(helper(a, b, w, bias), F.bilinear(a, b, w, bias), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(helper(a, b, w), F.bilinear(a, b, w), rtol=1e-5, atol=1e-5)


def test_instance_norm_with_running_statistics_is_batch_norm_in_eval():
    x, mean, var = randn(2, 3, 4, 5), randn(3, seed=1), randn(3, seed=2).abs() + 0.5
    weight, bias = randn(3, seed=3), randn(3, seed=4)
    helper = load_function("instance_norm")
    for use_input_stats in (False, True):
        torch.testing.assert_close(helper(x, mean.clone(), var.clone(), weight, bias, use_input_stats),
                                   F.instance_norm(x, mean.clone(), var.clone(), weight, bias, use_input_stats),
                                   rtol=1e-5, atol=1e-5)


def test_squeeze_leaves_axes_of_other_sizes_alone():
    helper = load_function("squeeze_dim")
    for shape, dim in (((2, 3), -1), ((2, 1, 3, 1), (1, 3)), ((2, 1, 3, 1), (0, -1)), ((1, 1), None), ((4, 1), 1)):
        x = randn(*shape)
        want = torch.squeeze(x) if dim is None else torch.squeeze(x, dim)
        assert torch.equal(helper(x, dim), want)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_resize_to_a_size_known_only_while_exporting(mode):
    """DINOv2's position grid resized to the input's patch grid: the output size is a traced
    value (a tensor under legacy, a SymInt under dynamo), and the weights are computed as tensors;
    they equal the constant ones."""
    x = randn(2, 3, 37, 29)
    helper = load_function("interpolate")
    for size in ((7, 12), (37, 29), (50, 64), (5, 40)):
        want = F.interpolate(x, size=size, mode=mode, antialias=True, align_corners=False)
        got = helper(x, size=tuple(torch.tensor(s) for s in size), mode=mode, antialias=True)
        torch.testing.assert_close(got, want, rtol=2e-5, atol=2e-5)
        assert torch.equal(got, helper(x, size=size, mode=mode, antialias=True))


def test_layer_norm_over_the_last_dimensions_of_any_count():
    x, w = randn(2, 3, 4, 5) * 3 + 1, randn(4, 5, seed=1)
    helper = load_function("layer_norm")
    for shape, weight, bias in (((5,), None, None), ((4, 5), w, w), (x.shape[-3:], None, None)):
        torch.testing.assert_close(helper(x, shape, weight, bias, 1e-6), F.layer_norm(x, shape, weight, bias, 1e-6),
                                   rtol=1e-5, atol=1e-5)


def test_attention_on_three_dimensional_tensors():
    q, k, mask = randn(2, 4, 8), randn(2, 6, 8, seed=1), randn(2, 4, 6, seed=2) > 0
    helper = load_function("sdpa_batched_heads")
    with mock.patch("torch.onnx.is_in_onnx_export", return_value=True):  # the export path, not eager's op
        for kwargs in ({}, {"attn_mask": mask}, {"is_causal": True, "scale": 0.5}):
            torch.testing.assert_close(helper(q, k, k, **kwargs), F.scaled_dot_product_attention(q, k, k, **kwargs),
                                       rtol=1e-5, atol=1e-6)


def test_attention_on_five_dimensional_tensors_while_exporting():
    """Transkun's axial attention: (batch, axis, heads, length, features), the batch axes flattened
    into one for the export path (only 4-D passes the dynamo exporter) and restored after."""
    q, k, k4 = randn(2, 3, 4, 5, 8), randn(2, 3, 4, 7, 8, seed=1), randn(3, 4, 7, 8, seed=2)
    mask, mask2 = randn(2, 1, 4, 5, 7, seed=3) > 0, randn(5, 7, seed=4) > 0
    helper = load_function("sdpa_batched_heads")
    cases = (((q, k, k), {}), ((q, k, k), {"attn_mask": mask}), ((q, k4, k4), {"attn_mask": mask2}),
             ((q, k, k), {"is_causal": True, "scale": 0.5}))
    with mock.patch("torch.onnx.is_in_onnx_export", return_value=True):
        for args, kwargs in cases:
            torch.testing.assert_close(helper(*args, **kwargs), F.scaled_dot_product_attention(*args, **kwargs),
                                       rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("size", [(3, 4), (7, 31), (23, 1), (1, 5), (11, 9)])
def test_adaptive_max_pool2d_to_sizes_known_only_while_exporting(size):
    """SAFMN's pooling to `(h // 2, w // 2)`: the bin counts are traced values (a tensor under
    legacy, a SymInt under dynamo); each bin is gathered into a row as wide as the widest bin,
    and the maxima are torch's, NaN and ties included."""
    x = torch.randint(0, 4, (2, 3, 23, 31), generator=torch.Generator().manual_seed(0)).float()
    x[0, 0, 5, 7] = float("nan")
    got = load_function("adaptive_max_pool2d")(x, tuple(torch.tensor(s) for s in size))
    assert torch.equal(got.isnan(), F.adaptive_max_pool2d(x, size).isnan())
    assert torch.equal(got.nan_to_num(), F.adaptive_max_pool2d(x, size).nan_to_num())
