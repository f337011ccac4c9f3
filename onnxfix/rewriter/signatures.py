"""Which positional argument of a torch call is which parameter, from the signatures read off the
installed torch by bench/torch_signatures.py (onnxfix/data/torch_signatures.json): the static
path binds `F.group_norm(x, heads)` to `num_groups` without importing torch."""

from __future__ import annotations

import ast
import json
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "torch_signatures.json"


@lru_cache(maxsize=1)
def _table() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def _signatures() -> dict[str, list[list[str]]]:
    return _table()["functions"]


def is_random(qualname: str) -> bool:
    """A torch function ATen tags nondeterministic_seeded (`torch.randint`): its output cannot be
    compared with eager's, so a run cannot check an argument it was given."""
    return qualname in _table()["random"]


def passed_argument(call: ast.Call, positional: list[str], name: str) -> ast.expr | None:
    """The argument ``call`` passes for the parameter ``name`` of a function whose positional
    parameters are ``positional``: by keyword or by position; None when not passed (or spread)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    if name in positional:
        position = positional.index(name)
        if position < len(call.args):
            return call.args[position]
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None  # the default: not passed


def bound_argument(call: ast.Call, qualname: str, name: str, receiver: ast.expr | None = None) -> ast.expr | None:
    """The argument ``call`` (of the torch function ``qualname``) passes for parameter ``name``: its
    keyword, else the positional argument at the parameter's position in the overloads that take
    exactly that many positional arguments, or else in every one that takes as many
    (`torch.randint(0, n, size)` binds `high` to `n`); None when the overloads disagree or the call
    spreads `*args`. ``receiver``: the tensor of a method call (`x.movedim(-1, 0)` binds as
    `torch.movedim(x, -1, 0)`)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    arguments = [receiver, *call.args] if receiver is not None else call.args
    if any(isinstance(a, ast.Starred) for a in arguments):
        return None
    taking = [o for o in _signatures().get(qualname, ()) if len(o) >= len(arguments)]
    # an overload with exactly as many positional parameters first: `randint(n, size)` is
    # randint(high, size), not randint(low, high, size) with a size missing
    overloads = [o for o in taking if len(o) == len(arguments)] or taking
    positions = {o.index(name) if name in o else None for o in overloads}
    if len(positions) != 1:
        return None
    (position,) = positions
    return arguments[position] if position is not None and position < len(arguments) else None


# torch functions that convert an argument themselves, taking a list, an array or a tensor alike:
# (parameter, position). pack_padded_sequence makes its `lengths` `torch.as_tensor(lengths,
# dtype=torch.int64, device="cpu")`, or `lengths.to(torch.int64)` of a tensor (which must then be
# on the CPU already): Tacotron2's and Kokoro's `.cpu().numpy()`, T2Vec's `.tolist()`.
CONVERTED_ARGUMENTS = {"torch.nn.utils.rnn.pack_padded_sequence": ("lengths", 1)}


def converts_argument(call: ast.Call, node: ast.AST, qualname: str | None) -> bool:
    """``node`` is the argument of ``call`` (of the torch function ``qualname``) that the function
    converts to a tensor itself (CONVERTED_ARGUMENTS), by position or by keyword."""
    if qualname not in CONVERTED_ARGUMENTS:
        return False
    name, position = CONVERTED_ARGUMENTS[qualname]
    return call.args[position:position + 1] == [node] or any(k.arg == name and k.value is node for k in call.keywords)
