"""Export-time repair: functions and submodules wrapped by `torch.compile`, which the legacy
tracer refuses ("Detected that you are using FX to torch.jit.trace a dynamo-optimized
function"): exported through the functions and modules they wrap."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch


@contextmanager
def compiled_unwrapped(model) -> Iterator[None]:
    """Within the block, every `torch.compile` wrapper the model holds runs what it wraps: an
    instance attribute set to a compiled function (pi0.5's `self.forward = torch.compile(
    self.forward)`) is set to the original, a compiled submodule (`self.backbone =
    torch.compile(backbone)`) is replaced by its `_orig_mod`. The same computation (the compiled
    one is a faithful capture of it); everything is put back afterwards."""
    restore = []
    for module in list(model.modules()) if isinstance(model, torch.nn.Module) else []:
        for name, value in list(vars(module).items()):
            original = getattr(value, "_torchdynamo_orig_callable", None)
            if callable(value) and original is not None:
                restore.append((vars(module), name, value))
                vars(module)[name] = original
        for name, child in list(module._modules.items()):
            if isinstance(child, torch._dynamo.eval_frame.OptimizedModule):
                restore.append((module._modules, name, child))
                module._modules[name] = child._orig_mod
    try:
        yield
    finally:
        for holder, name, value in reversed(restore):
            holder[name] = value
