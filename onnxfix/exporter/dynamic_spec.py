"""The module-level ``DYNAMIC`` literal of a model file: which input dims are dynamic.

Read from the syntax tree, never run. Two forms, per input (forward's parameter name or index):

    DYNAMIC = {"x": {0: "batch", 1: "seq"}}   # dims with names; one name = one size
    DYNAMIC = {0: [0, 2, 3]}                  # a list (or tuple) of dims, each its own size

Anything else is an error naming the file and line: a spec that cannot be read must not turn
into a static export that "passes" on inputs of the example's sizes.
"""

from __future__ import annotations

import ast
from pathlib import Path

FORMS = '{input: {dim: "name", ...}} or {input: [dim, ...]}'


class DynamicSpecError(ValueError):
    pass


def read(path: Path, node: ast.Assign | ast.AnnAssign) -> dict[str, dict[int, str]]:
    """``{input: {dim: name}}`` from the DYNAMIC assignment ``node`` of ``path``."""
    where = f"{path}:{node.lineno}: DYNAMIC"
    try:
        value = ast.literal_eval(node.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise DynamicSpecError(f"{where} must be a literal {FORMS}, got `{ast.unparse(node.value)[:80]}`") from None
    if not isinstance(value, dict):
        raise DynamicSpecError(f"{where} must be a dict {FORMS}, got {type(value).__name__} {value!r:.80}")
    return {_key(k, where): _dims(k, v, where) for k, v in value.items()}


def _key(key, where: str) -> str:
    if isinstance(key, bool) or not (isinstance(key, int) and key >= 0 or isinstance(key, str) and key.isidentifier()):
        raise DynamicSpecError(f"{where}: input {key!r} must be forward's parameter name or an input index >= 0")
    return str(key)


def _dims(key, dims, where: str) -> dict[int, str]:
    if isinstance(dims, (list, tuple)):
        return {_dim(key, d, where): default_name(str(key), d) for d in dims}
    if isinstance(dims, dict):
        result = {}
        for dim, name in dims.items():
            if not isinstance(name, str) or not name.isidentifier():
                raise DynamicSpecError(f"{where}: input {key!r} dim {dim!r}: the name must be an identifier string, got {name!r}")
            result[_dim(key, dim, where)] = name
        return result
    raise DynamicSpecError(f"{where}: input {key!r}: expected a list of dims or a dict {{dim: \"name\"}}, got {dims!r:.80}")


def _dim(key, dim, where: str) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise DynamicSpecError(f"{where}: input {key!r}: dim {dim!r} is not an integer")
    return dim


def default_name(key: str, dim: int) -> str:
    """Same as ``--dynamic``: ``<input>_dim<d>``, ``input<i>_dim<d>`` for an index."""
    return f"{key if key.isidentifier() else 'input' + key}_dim{dim}".replace("-", "m")
