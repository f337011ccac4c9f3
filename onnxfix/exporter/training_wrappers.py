"""Export-time repairs of training-time wrappers left in a model being exported: an
`nn.DataParallel` (the legacy exporter refuses it: "torch.nn.DataParallel is not supported by ONNX
exporter") and activation checkpointing left on in eval (`torch.utils.checkpoint.checkpoint` with
use_reentrant=True is an autograd.Function the legacy tracer fails in: "unordered_map::at").
Both compute what they wrap, so exporting through it is the same computation."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch
import torch.utils.checkpoint


class _NoDataParallel:
    """What `torch.nn.DataParallel` names while exporting: no model is an instance of it."""


@contextmanager
def data_parallel_unwrapped(model) -> Iterator[None]:
    """Within the block, every `nn.DataParallel` submodule is replaced by the module it wraps, and
    the legacy exporter's own check on the model it is given (`isinstance(model,
    torch.nn.DataParallel)`) sees no DataParallel: with no device_ids (cleared here, as on a CPU)
    its forward calls the wrapped module, which the tracer follows. Everything is put back
    afterwards."""
    restore = []
    for module in list(model.modules()) if isinstance(model, torch.nn.Module) else []:
        if isinstance(module, torch.nn.DataParallel):  # no scatter to devices: its forward calls the module
            restore.append((vars(module), "device_ids", module.device_ids))
            vars(module)["device_ids"] = []
        for name, child in list(module._modules.items()):
            if isinstance(child, torch.nn.DataParallel):
                restore.append((module._modules, name, child))
                module._modules[name] = child.module
    original = torch.nn.DataParallel
    torch.nn.DataParallel = _NoDataParallel  # the name the legacy exporter's check reads, for this block only
    try:
        yield
    finally:
        torch.nn.DataParallel = original
        for holder, name, value in reversed(restore):
            holder[name] = value


def _run_inline(function, preserve_rng_state, *args):
    return function(*args)


@contextmanager
def checkpoint_inlined(model) -> Iterator[None]:
    """Within the block, a checkpointed call (reentrant: CheckpointFunction) runs its function
    directly. In a forward the checkpoint returns exactly what the function returns (it only
    drops the activations, recomputed for a backward pass that an export never runs)."""
    function = torch.utils.checkpoint.CheckpointFunction
    own = function.__dict__.get("apply")  # None: autograd.Function's classmethod, which this shadows
    function.apply = staticmethod(_run_inline)
    try:
        yield
    finally:
        if own is None:
            del function.apply
        else:
            function.apply = own
