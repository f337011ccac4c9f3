"""Export-time settings for torch.nn's own layers, whose inference shortcuts the exporters cannot
follow (export_repairs.py names them; decompose.py enters them while exporting). Eager PyTorch is
untouched: each is undone when the export ends."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch
from torch.nn.modules import transformer


@contextmanager
def mha_fastpath_off(model=None) -> Iterator[None]:
    """nn.MultiheadAttention and nn.TransformerEncoderLayer call fused kernels
    (`torch._native_multi_head_attention`, `torch._transformer_encoder_layer_fwd`) in eval mode
    without gradients; with the fast path off they run their composite path, the same math
    (the layers' training path), which both exporters translate."""
    enabled = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        yield
    finally:
        torch.backends.mha.set_fastpath_enabled(enabled)


@contextmanager
def causal_mask_check_off(model=None) -> Iterator[None]:
    """nn.Transformer, nn.TransformerEncoder and nn.TransformerDecoder given a mask and no
    `is_causal` hint compare the mask's values with a causal one (`_detect_is_causal_mask`), a
    branch on tensor values that torch.export cannot follow. While exporting the hint is what the
    caller passed (None: not causal), so the layers apply the mask they were given, which their
    documentation says is always right (a causal hint only selects a faster kernel)."""
    detect = transformer._detect_is_causal_mask

    def given_hint(mask, is_causal=None, size=None) -> bool:
        return is_causal is True

    transformer._detect_is_causal_mask = given_hint
    try:
        yield
    finally:
        transformer._detect_is_causal_mask = detect
