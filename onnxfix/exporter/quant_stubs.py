"""Export-time repair: torch.ao fake-quantize modules whose observer is off, exported as the
fake quantization they compute with their current scale and zero point.

A QAT model is exported with its observers disabled (`torch.ao.quantization.disable_observer`),
but `FakeQuantize.forward` still reads its flags out of buffers (`if self.fake_quant_enabled[0]
== 1:`): torch.export cannot guard on a buffer's value ("Could not guard on data-dependent
expression Eq(u0, 1)"), and `FusedMovingAvgObsFakeQuantize` calls
`torch.fused_moving_avg_obs_fake_quant`, which neither exporter translates. With the observer
off the module's output is `fake_quantize_per_{tensor,channel}_affine` of its input with its
current qparams (or the input itself with fake quantization off): read here, on the real
buffers, before tracing, and traced instead of the module's forward. A module whose observer is
on updates its statistics on every call: left as it is. Eager never sees this (export only).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch

_PER_TENSOR = (torch.per_tensor_affine, torch.per_tensor_symmetric)
_PER_CHANNEL = (torch.per_channel_affine, torch.per_channel_symmetric, torch.per_channel_affine_float_qparams)


def _constant_forward(module):
    """The forward the module computes with its flags as they are now, or None (observer on,
    or a scheme not known here)."""
    if bool(module.observer_enabled[0] == 1):
        return None
    if not bool(module.fake_quant_enabled[0] == 1):
        return lambda X: X
    qmin, qmax = module.quant_min, module.quant_max
    if module.qscheme in _PER_TENSOR and module.scale.numel() == 1:
        scale, zero_point = float(module.scale), int(module.zero_point)
        return lambda X: torch.fake_quantize_per_tensor_affine(X, scale, zero_point, qmin, qmax)
    if module.qscheme in _PER_CHANNEL:
        scale, zero_point, axis = module.scale.detach().clone(), module.zero_point.detach().clone(), module.ch_axis
        return lambda X: torch.fake_quantize_per_channel_affine(X, scale, zero_point, axis, qmin, qmax)
    return None


@contextmanager
def fake_quant_constants(model) -> Iterator[None]:
    """Within the block, each fake-quantize module of ``model`` whose observer is off runs the
    fake quantization it computes, with its flags read as Python values."""
    patched = []
    for module in model.modules() if isinstance(model, torch.nn.Module) else ():
        if isinstance(module, torch.ao.quantization.FakeQuantize) and "forward" not in vars(module):
            forward = _constant_forward(module)
            if forward is not None:
                module.forward = forward
                patched.append(module)
    try:
        yield
    finally:
        for module in patched:
            del module.forward

