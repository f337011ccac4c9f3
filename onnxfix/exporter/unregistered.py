"""Export-time repairs for tensors a model holds outside its registered parameters and buffers:
weights kept in a plain list, dict or Python object, which the legacy tracer records as constants
and refuses while they require grad; and plain tensor attributes a forward reassigns or writes
(a KV cache), which torch.export refuses to mutate."""

from __future__ import annotations

import functools
import types
from contextlib import contextmanager
from typing import Iterator

import torch


@contextmanager
def gradients_off(model) -> Iterator[None]:
    """Within the block, no tensor reachable from ``model`` requires grad: its registered
    parameters, and the weights of modules it holds in plain lists, dicts or Python objects (RIFE's
    `Model` class holding `self.flownet`) or through a bound method or a partial (CED's wrapper
    storing `self.forward_head = cedmodel.forward_head`), which the legacy tracer records as constants and
    refuses while they require grad ("Cannot insert a Tensor that requires grad as a constant").
    The values are the same; the flags are restored afterwards."""
    held = _held_tensors(model)
    changed = list({id(t): t for _, _, t in held if t.requires_grad and t.is_leaf}.values())
    # a tensor computed from weights is no leaf: its flag cannot be switched off, so it is detached
    # while exporting where a dict or list holds it: an attribute (Chatterbox's `self.cond_spkr =
    # self.spkr_enc(emb)` in __init__, through the instance's own dict: no __setattr__ or property
    # runs) or a cache entry (GPyTorch's fantasy strategy, `self._memoize_cache["covar_cache"]`)
    attached = [(holder, key, t) for holder, key, t in held
                if t.requires_grad and not t.is_leaf and isinstance(holder, (dict, list))]
    detached: list[tuple[dict | list, object, torch.Tensor, torch.Tensor]] = []
    try:
        for tensor in changed:
            tensor.requires_grad_(False)
        for holder, key, value in attached:
            holder[key] = value.detach()
            detached.append((holder, key, value, holder[key]))
        yield
    finally:
        for tensor in changed:
            tensor.requires_grad_(True)
        for holder, key, value, put in detached:
            # only where the holder still holds what was put there (a streaming cache the forward
            # popped from or appended to holds other tensors at that key now)
            if _holds(holder, key, put):
                holder[key] = value


def _holds(holder: dict | list, key, value: torch.Tensor) -> bool:
    try:
        return holder[key] is value
    except (IndexError, KeyError):
        return False


def _held_tensors(root, depth_limit: int = 6) -> list[tuple[object, object, torch.Tensor]]:
    """(holder, key, tensor) for every tensor reachable from ``root``: ``holder[key]`` is the tensor,
    the holder a dict (a module's or a plain object's ``__dict__`` too), a list, or another container
    (a tuple, a set, a partial's arguments: key None, not written)."""
    seen: set[int] = set()
    found: dict[tuple[int, object], tuple[object, object, torch.Tensor]] = {}
    stack = [(root, 0)]
    while stack:
        value, depth = stack.pop()
        if id(value) in seen or depth > depth_limit:
            continue
        seen.add(id(value))
        holder, items, next_depth = _contents(value, depth)
        for key, child in items:
            if isinstance(child, torch.Tensor):
                found.setdefault((id(child), id(holder), key), (holder, key, child))
            else:
                stack.append((child, next_depth))
    return list(found.values())


def _contents(value, depth: int) -> tuple[object, list, int]:
    """(holder, [(key, child)], the children's depth) of one reachable value."""
    if isinstance(value, (list, dict)):
        return value, list(value.items() if isinstance(value, dict) else enumerate(value)), depth
    if isinstance(value, (tuple, set, frozenset)):
        return value, [(None, v) for v in value], depth
    if isinstance(value, torch.nn.Module):
        return vars(value), list(vars(value).items()), depth
    if isinstance(value, types.MethodType):  # CED's `self.forward_head = model.forward_head`
        return value, [(None, value.__self__)], depth
    if isinstance(value, functools.partial):
        return value, [(None, v) for v in (value.func, *value.args, *value.keywords.values())], depth
    if _plain_object(value):  # only chains of the user's own objects are bounded
        return vars(value), list(vars(value).items()), depth + 1
    return value, [], depth


def _plain_object(value) -> bool:
    """An instance of a user's class (not a module, function, class or torch internal)."""
    kind = type(value)
    return (hasattr(value, "__dict__") and not isinstance(value, type) and not callable(value)
            and not kind.__module__.startswith(("torch", "builtins", "numpy")))


@contextmanager
def attributes_as_buffers(model) -> Iterator[dict]:
    """Within the block, the plain tensor attributes of ``model``'s modules are non-persistent
    buffers: LLaMA's reference attention keeps its KV cache as `self.cache_k = torch.zeros(...)`,
    reassigns it (`self.cache_k = self.cache_k.to(xq)`) and writes the new keys into it, and
    torch.export refuses to mutate a module attribute ("Mutating module attribute cache_k during
    export") where it takes a buffer's mutation. The exported model computes what the call computes
    from the state it starts with (the state it leaves is not an output). The same tensor objects are
    attributes again afterwards."""
    registered = {id(t) for t in (*model.parameters(), *model.buffers())}
    moved = []
    try:
        for module in model.modules():
            for name, value in list(vars(module).items()):
                if not isinstance(value, torch.Tensor) or id(value) in registered or hasattr(type(module), name):
                    continue  # a parameter or buffer under another name, or a name the class defines too
                del module.__dict__[name]
                moved.append((module, name, value))
                module.register_buffer(name, value, persistent=False)
        yield {"attributes_as_buffers": len(moved)}
    finally:
        for module, name, value in moved:
            module._buffers.pop(name, None)
            module._non_persistent_buffers_set.discard(name)
            module.__dict__[name] = value
