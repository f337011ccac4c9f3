"""The model's Python state around an export: torch.export runs forward on fake tensors, and what
a forward stores on the module (or on a plain object it holds) stays fake afterwards."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


@contextlib.contextmanager
def attributes_kept(model: torch.nn.Module) -> Iterator[None]:
    """Each module's plain attributes as they were before the export: a forward that stores a
    value on the module (`self.range = torch.tensor(self.range)`) stores torch.export's fake
    tensor there, and every later eager call (the reference onnxruntime is compared with) would
    compute on it."""
    saved = [(o, dict(vars(o))) for o in _stateful_objects(model)]
    # containers held in attributes are filled in place (`self.cache[key] = value`): their contents too
    contents = [(value, dict(value) if isinstance(value, dict) else list(value))
                for _, attributes in saved for value in attributes.values() if type(value) in (dict, list)]
    try:
        yield
    finally:
        for module, attributes in saved:
            current = vars(module)
            for name in [n for n in current if n not in attributes]:
                del current[name]
            current.update(attributes)
        for container, before in contents:
            container.clear()
            container.update(before) if isinstance(container, dict) else container.extend(before)


def _stateful_objects(model: torch.nn.Module) -> list[object]:
    """The modules, and the plain objects they hold (mmdet's bbox coders are not modules), two
    levels deep."""
    found = {id(m): m for m in model.modules()}
    frontier = list(found.values())
    for _ in range(2):
        frontier = [value for owner in frontier for value in vars(owner).values()
                    if hasattr(value, "__dict__") and not isinstance(value, (torch.Tensor, type))
                    and type(value).__module__ not in ("builtins", "torch") and id(value) not in found]
        found.update((id(v), v) for v in frontier)
    return list(found.values())


@contextlib.contextmanager
def state_dict_standard(model: torch.nn.Module) -> Iterator[dict[str, int]]:
    """nn.Module's state_dict on every module of the model whose class overrides it (KonfAI's
    `def state_dict(self)` returning one dict per sub-network, behind a `*args, **kwargs` decorator:
    "state_dict() got an unexpected keyword argument 'destination'"): the legacy exporter collects
    the tensors to trace by calling `state_dict(keep_vars=True)` on the model, and nn.Module's
    passes `destination`, `prefix` and `keep_vars` to every submodule. Named only by that error
    (a signature cannot tell: the decorator's accepts anything). Set on the instances while
    exporting, removed afterwards; yields how many modules it changed."""
    used: dict[str, int] = {}
    patched = [m for m in model.modules()
               if type(m).state_dict is not torch.nn.Module.state_dict and "state_dict" not in vars(m)]
    for module in patched:
        module.state_dict = torch.nn.Module.state_dict.__get__(module)
    if patched:
        used[STATE_DICT_KEY] = len(patched)
    try:
        yield used
    finally:
        for module in patched:
            del module.state_dict


STATE_DICT_KEY = "state_dict_standard"
