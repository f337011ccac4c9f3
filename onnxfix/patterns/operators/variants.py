"""Which calls of a decomposed op are the failing variant: the arguments a record selects on
(Decomposition.when_present, when_literals), read from the call's source."""

from __future__ import annotations

import ast

from onnxfix.decompositions import Decomposition
from onnxfix.decompositions.base import literal_matches
from onnxfix.patterns.operators.arguments import NOT_LITERAL, argument, literal
from onnxfix.patterns.operators.module_calls import UNKNOWN

_OMITTED = object()


def selected_variant(decomposition: Decomposition, node: ast.Call, method: bool = False) -> bool:
    """Calls whose arguments make the op fail (sort only with stable=True, scatter with reduce).
    Positions count the torch function's arguments, the tensor first: a Tensor method's call
    (``method``) passes it as its receiver, one argument fewer (`x.repeat_interleave(2, -1)`)."""
    if decomposition.when_present:
        name, position = decomposition.when_present
        if not _passed(argument(node, name, position, method)):
            return False
    for name, position, expected in decomposition.when_literals:
        given = _literal_argument(node, name, position, method)
        if given is NOT_LITERAL or not literal_matches(expected, None if given is _OMITTED else given):
            return False
    return True


def _literal_argument(node: ast.Call, name: str, position: int | None, method: bool):
    """The literal passed by keyword or at ``position`` (None: keyword-only), _OMITTED when not
    given and no `**kwargs` could pass it, NOT_LITERAL for another expression."""
    given = argument(node, name, -1 if position is None else position, method)
    if given is None:
        return NOT_LITERAL if any(k.arg is None for k in node.keywords) else _OMITTED
    return literal(given)


def _passed(given: ast.expr | None) -> bool:
    """The argument is given as something other than None (a layer's constructor argument not
    known, `UNKNOWN`, counts as not given: its default)."""
    if given is None or (isinstance(given, ast.Constant) and given.value is None):
        return False
    return not (isinstance(given, ast.Name) and given.id == UNKNOWN)
