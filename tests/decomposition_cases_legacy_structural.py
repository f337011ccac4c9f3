"""Export cases of the legacy-only structural decompositions
(onnxfix/decompositions/registry_legacy_structural.py), read by tests/decomposition_exports.py.
Same format as decomposition_cases_core.py. The originals export with dynamo and fail with the
legacy exporter; every helper must export with both."""

import torch


def randn(g, *shape):
    return torch.randn(*shape, generator=g)


# key: (original expression, helper expression, inputs(g, batch) -> tuple, dynamic batch?)
CASES = {
    "adaptive_avg_pool2d": (
        "torch.nn.functional.adaptive_avg_pool2d(a, (3, 4)) + torch.nn.functional.adaptive_avg_pool2d(a, (3, None))[..., :4]",
        "_onnx_adaptive_avg_pool2d(a, (3, 4)) + _onnx_adaptive_avg_pool2d(a, (3, None))[..., :4]",
        lambda g, b: (randn(g, b, 2, 8, 7),), True,
    ),
    "adaptive_avg_pool1d": (
        "torch.nn.functional.adaptive_avg_pool1d(a, 5)", "_onnx_adaptive_avg_pool1d(a, 5)",
        lambda g, b: (randn(g, b, 3, 13),), True,
    ),
    "interpolate": (
        "(torch.nn.functional.interpolate(a, size=(3, 5), mode='area') "
        "+ torch.nn.functional.interpolate(a, size=(3, 5), mode='bicubic', antialias=True), "
        "torch.nn.functional.interpolate(a, scale_factor=1.7, mode='nearest-exact') "
        "+ torch.nn.functional.interpolate(a, scale_factor=1.7, mode='bilinear', antialias=True))",
        "(_onnx_interpolate(a, size=(3, 5), mode='area') "
        "+ _onnx_interpolate(a, size=(3, 5), mode='bicubic', antialias=True), "
        "_onnx_interpolate(a, scale_factor=1.7, mode='nearest-exact') "
        "+ _onnx_interpolate(a, scale_factor=1.7, mode='bilinear', antialias=True))",
        lambda g, b: (randn(g, b, 2, 8, 7),), True,
    ),
    "conv1d": (
        "torch.nn.functional.conv1d(a, w, c, padding='same', dilation=3)",
        "_onnx_conv1d(a, w, c, padding='same', dilation=3)",
        lambda g, b: (randn(g, b, 2, 11), randn(g, 4, 2, 4), randn(g, 4)), True,
    ),
    "take_along_dim": (
        "torch.take_along_dim(a, i, dim=1) + torch.take_along_dim(a, i[:1], 1)",
        "_onnx_take_along_dim(a, i, dim=1) + _onnx_take_along_dim(a, i[:1], 1)",
        lambda g, b: (randn(g, b, 5), torch.randint(0, 5, (b, 3), generator=g)), True,
    ),
    "diag_embed": (
        "torch.diag_embed(a, 1) + torch.diag_embed(a, -1, 0, 2).transpose(0, 1)",
        "_onnx_diag_embed(a, 1) + _onnx_diag_embed(a, -1, 0, 2).transpose(0, 1)",
        lambda g, b: (randn(g, b, 4),), True,
    ),
    "diag": (
        "(torch.diag(a[0], 2), torch.diag(a, -1))", "(_onnx_diag(a[0], 2), _onnx_diag(a, -1))",
        lambda g, b: (randn(g, b, 5),), True,
    ),
    "block_diag": (
        "torch.block_diag(a, c, c[0])", "_onnx_block_diag(a, c, c[0])",
        lambda g, b: (randn(g, b, 3), randn(g, 2, 2)), True,
    ),
    "cartesian_prod": (
        "torch.cartesian_prod(a[0], c, c)", "_onnx_cartesian_prod(a[0], c, c)",
        lambda g, b: (randn(g, b, 3), randn(g, 2)), True,
    ),
    "rot90": (
        "torch.rot90(a, 1, (1, 2)) + torch.rot90(a, -1, (1, 2)) + torch.rot90(a.transpose(1, 2), 2, (1, 2))",
        "_onnx_rot90(a, 1, (1, 2)) + _onnx_rot90(a, -1, (1, 2)) + _onnx_rot90(a.transpose(1, 2), 2, (1, 2))",
        lambda g, b: (randn(g, b, 4, 4),), True,
    ),
    "msort": ("torch.msort(a.T)", "_onnx_msort(a.T)", lambda g, b: (randn(g, b, 6),), True),
    "isin": (
        "torch.isin(i, j)", "_onnx_isin(i, j)",
        lambda g, b: (torch.randint(0, 6, (b, 8), generator=g), torch.randint(0, 6, (3,), generator=g)), True,
    ),
    "fftshift": (
        "torch.fft.fftshift(a, dim=(1, 2)) + torch.fft.fftshift(a)[:1]",
        "_onnx_fftshift(a, dim=(1, 2)) + _onnx_fftshift(a)[:1]",
        lambda g, b: (randn(g, b, 5, 4),), False,
    ),
    "histc": (
        "(torch.histc(a, bins=7, min=-2, max=2), torch.histc(a, 5))",
        "(_onnx_histc(a, bins=7, min=-2, max=2), _onnx_histc(a, 5))",
        lambda g, b: (torch.randint(-12, 13, (b, 9), generator=g).float() / 4,), True,
    ),
    "bitwise_or": (
        "torch.bitwise_or(i, j) + torch.bitwise_or(i, 6)", "_onnx_bitwise_or(i, j) + _onnx_bitwise_or(i, 6)",
        lambda g, b: (torch.randint(-2**40, 2**40, (b, 9), generator=g), torch.randint(-50, 50, (b, 9), generator=g)), True,
    ),
    "bitwise_xor": (
        "torch.bitwise_xor(i, j)", "_onnx_bitwise_xor(i, j)",
        lambda g, b: (torch.randint(-2**40, 2**40, (b, 9), generator=g), torch.randint(-50, 50, (b, 9), generator=g).int()), True,
    ),
    "bitwise_not": (
        "(torch.bitwise_not(i), torch.bitwise_not(i > 0))", "(_onnx_bitwise_not(i), _onnx_bitwise_not(i > 0))",
        lambda g, b: (torch.randint(-2**40, 2**40, (b, 9), generator=g),), True,
    ),
}
PARAMS = {"conv1d": "a, w, c", "take_along_dim": "a, i", "block_diag": "a, c", "cartesian_prod": "a, c", "isin": "i, j", "bitwise_or": "i, j", "bitwise_xor": "i, j", "bitwise_not": "i"}
MULTI_OUTPUT = ("interpolate", "diag", "histc", "bitwise_not")
STATIC_INPUTS = {"conv1d": (1, 2), "block_diag": (1,), "cartesian_prod": (1,), "isin": (1,)}  # weights, fixed-size operands
