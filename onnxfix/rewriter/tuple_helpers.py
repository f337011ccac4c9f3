"""Calls that make a tuple of one number repeated: `to_2tuple(patch_size)`, torch's `_pair(k)`,
a file's own `to_3tuple` (`tuple(x) if isinstance(x, (list, tuple)) else (x, x, x)`).

Configuration sizes pass through them (Swin's, nnFormer's `self.patch_size = to_3tuple(patch_size)`):
given a number, every item is that number. Torch-free: the helpers are known by name (torch's,
timm's) or read from the file's own function.
"""

from __future__ import annotations

import ast
from onnxfix.rewriter.tree_walk import walk
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxfix.rewriter.module_index import ModuleIndex

# torch.nn.modules.utils and timm's layer helpers: their length
KNOWN = {f"{module}.{name}": n for module in ("torch.nn.modules.utils",) for name, n in
         (("_single", 1), ("_pair", 2), ("_triple", 3), ("_quadruple", 4))} | {
    f"{module}.to_{n}tuple": n for module in ("timm.layers", "timm.layers.helpers", "timm.models.layers",
                                              "timm.models.layers.helpers") for n in (1, 2, 3, 4)}


def repeated_length(call: ast.AST, module: "ModuleIndex", caller: ast.FunctionDef | None = None) -> int | None:
    """n when ``call`` is `helper(x)` returning `(x,) * n`-like tuples for a number x; else None.
    ``caller``: the function making the call, which must not bind the helper's name itself."""
    if not (isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords
            and not isinstance(call.args[0], ast.Starred)):
        return None
    if caller is not None and isinstance(call.func, ast.Name) and _binds(caller, call.func.id):
        return None  # a local of that name (`to_3tuple = lambda v: ...` in __init__)
    qualname = module.scope.qualname(call.func)
    if qualname in KNOWN:
        return KNOWN[qualname]
    if isinstance(call.func, ast.Name) and module.scope.lookup(call.func.id) is None and module.bound_once(call.func.id):
        function = module.functions.get(call.func.id)
        if isinstance(function, ast.FunctionDef) and not function.decorator_list:  # a decorator may wrap it
            return _own_helper_length(function)
    return None


def _binds(function: ast.FunctionDef, name: str) -> bool:
    return any((isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store))
               or (isinstance(n, ast.arg) and n.arg == name)
               or (isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name and n is not function)
               or (isinstance(n, ast.alias) and (n.asname or n.name) == name) for n in walk(function))


def _own_helper_length(function: ast.FunctionDef) -> int | None:
    """A one-parameter function whose body is returns of the parameter repeated in a tuple (one
    length), where an `isinstance(x, <not a number type>)` test (an `if` statement or expression)
    passes a sequence on as itself or its tuple/list."""
    args = function.args
    if len(args.args) != 1 or args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        return None
    name, lengths = args.args[0].arg, set()
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    for statement in body:
        if isinstance(statement, ast.If) and _excludes_numbers(statement.test, name) and len(statement.body) == 1 \
                and isinstance(statement.body[0], ast.Return) and _passed_on(statement.body[0].value, name):
            returns = statement.orelse
        else:
            returns = [statement]
        for returned in returns:
            if not isinstance(returned, ast.Return):
                return None
            found = _repeats(returned.value, name)
            if found is None:
                return None
            lengths |= found
    return lengths.pop() if len(lengths) == 1 else None


def _repeats(value: ast.expr | None, name: str) -> set[int] | None:
    """The repeat lengths a return value gives a number: `(x, x)`, or an `if isinstance(...)`
    expression passing a sequence on and repeating otherwise; None for anything else."""
    if isinstance(value, ast.IfExp) and _excludes_numbers(value.test, name) and _passed_on(value.body, name):
        return _repeats(value.orelse, name)
    if isinstance(value, ast.Tuple) and value.elts and all(isinstance(e, ast.Name) and e.id == name for e in value.elts):
        return {len(value.elts)}
    return None


def _passed_on(value: ast.expr | None, name: str) -> bool:
    if isinstance(value, ast.Name) and value.id == name:
        return True
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("tuple", "list")
            and len(value.args) == 1 and isinstance(value.args[0], ast.Name) and value.args[0].id == name)


NUMBER_TYPES = frozenset({"int", "float", "Number", "numbers.Number", "complex", "bool", "object"})


def _excludes_numbers(test: ast.expr, name: str) -> bool:
    """`isinstance(x, (list, tuple))`, `isinstance(x, Iterable)`: false for a number."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == name):
        return False
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    return all(isinstance(k, (ast.Name, ast.Attribute)) and ast.unparse(k) not in NUMBER_TYPES for k in kinds)
