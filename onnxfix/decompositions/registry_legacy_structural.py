"""Structural, indexing, pooling/resampling and signal ops only the legacy (TorchScript) exporter
fails on (ONX519); fixed when a project targets legacy. Dynamo exports them."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "adaptive_avg_pool2d", ("torch.nn.functional.adaptive_avg_pool2d",), True,
        ("adaptive_avg_pool2d non-divisible",),
        (PYTORCH + "PLACEHOLDER",),
        "avg_pool2d when the output size divides the input size (the legacy exporter's own "
        "translation); otherwise one mean per row bin, then per column bin, over torch's bins "
        "(floor(i*H/oh) .. ceil((i+1)*H/oh)), unrolled over the output size, so the input's H, W "
        "must be static. Equal to torch up to float rounding (mean of means).",
    ),
    Decomposition(
        "adaptive_avg_pool1d", ("torch.nn.functional.adaptive_avg_pool1d",), True,
        ("adaptive_avg_pool1d non-divisible",), (),
        "The 2-D helper over a height of 1: the same bins along the last dimension (static length).",
        requires=("adaptive_avg_pool2d",),
    ),
    Decomposition(
        "interpolate", ("torch.nn.functional.interpolate",), True,
        ("interpolate area down", "interpolate nearest-exact"), (),
        "mode='area' is adaptive average pooling to the output size (torch's definition); "
        "mode='nearest-exact' is index_select with the source indices torch's kernel computes "
        "(floor((j + 0.5) * scale) in float32), constant for static input sizes. 1-D and 2-D "
        "inputs; every other mode, and 3-D inputs, call torch's interpolate unchanged.",
        requires=("adaptive_avg_pool2d",),
    ),
    Decomposition(
        "conv1d", ("torch.nn.functional.conv1d",), True, ("conv1d dilation padding same",), (),
        "padding='same' becomes an explicit F.pad of dilation * (kernel - 1) zeros (the smaller "
        "half on the left, as torch) and padding=0; other calls are torch's conv1d unchanged.",
    ),
)
