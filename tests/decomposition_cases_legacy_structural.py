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
        "(torch.nn.functional.interpolate(a, size=(3, 5), mode='area'), "
        "torch.nn.functional.interpolate(a, scale_factor=1.7, mode='nearest-exact'))",
        "(_onnx_interpolate(a, size=(3, 5), mode='area'), "
        "_onnx_interpolate(a, scale_factor=1.7, mode='nearest-exact'))",
        lambda g, b: (randn(g, b, 2, 8, 7),), True,
    ),
    "conv1d": (
        "torch.nn.functional.conv1d(a, w, c, padding='same', dilation=3)",
        "_onnx_conv1d(a, w, c, padding='same', dilation=3)",
        lambda g, b: (randn(g, b, 2, 11), randn(g, 4, 2, 4), randn(g, 4)), True,
    ),
}
PARAMS = {"conv1d": "a, w, c"}
MULTI_OUTPUT = ("interpolate",)
STATIC_INPUTS = {"conv1d": (1, 2)}  # the weight and bias keep their sizes
