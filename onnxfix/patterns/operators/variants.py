"""Which calls of a decomposed op are the failing variant: the arguments a record selects on
(Decomposition.when_present, when_literals), read from the call's source."""

from __future__ import annotations

import ast

from onnxfix.decompositions import Decomposition
from onnxfix.decompositions.base import literal_matches
from onnxfix.patterns.operators.module_calls import UNKNOWN


def selected_variant(decomposition: Decomposition, node: ast.Call, method: bool = False) -> bool:
    """Calls whose arguments make the op fail (sort only with stable=True, scatter with reduce).
    Positions count the torch function's arguments, the tensor first: a Tensor method's call
    (``method``) passes it as its receiver, one argument fewer (`x.repeat_interleave(2, -1)`)."""
    keywords = {k.arg: k.value for k in node.keywords if k.arg}
    shift = 1 if method else 0
    if decomposition.when_present:
        name, position = decomposition.when_present
        if not _passed(node, keywords, name, position - shift):
            return False
    return all(found != () and literal_matches(value, found[0])
               for name, position, value in decomposition.when_literals
               for found in [_literal_argument(node, keywords, name, None if position is None else position - shift)])


def _literal_argument(node: ast.Call, keywords: dict[str, ast.expr], name: str, position: int | None) -> tuple:
    """(the literal,) passed by keyword or at ``position`` ((None,) when omitted and no `**kwargs`
    could pass it), () for another expression."""
    at = node.args[position] if position is not None and position < len(node.args) else None
    given = keywords.get(name, at)
    if given is None:
        return () if any(k.arg is None for k in node.keywords) else (None,)
    if isinstance(given, ast.UnaryOp) and isinstance(given.op, ast.USub) and isinstance(given.operand, ast.Constant):
        return (-given.operand.value,) if isinstance(given.operand.value, (int, float)) else ()  # `-1`
    return (given.value,) if isinstance(given, ast.Constant) else ()


def _passed(node: ast.Call, keywords: dict[str, ast.expr], name: str, position: int) -> bool:
    """The argument is given, by keyword or at its position, as something other than None (a
    layer's constructor argument not known, `UNKNOWN`, counts as not given: its default)."""
    given = keywords.get(name)
    if given is None and position < len(node.args):
        given = node.args[position]
    if given is None or (isinstance(given, ast.Constant) and given.value is None):
        return False
    return not (isinstance(given, ast.Name) and given.id == UNKNOWN)
