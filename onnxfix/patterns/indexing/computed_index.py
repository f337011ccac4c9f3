"""ONX703's second form: a write through an index the data selected (`output[inds] = pooled`,
`inds` from `nonzero()`: detectron2's ROIPooler, pytorch#49852). The legacy exporter writes the value
with a Reshape to the indexed shape it saw while tracing: an export example that selects one row
bakes that one row in, and onnxruntime fails for any other count ("The input tensor cannot be
reshaped"). `index_put_` with the same index is exported with the count kept (measured on torch
2.13: a one-row example fails with the subscript write and is OK with `index_put_`)."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk

# calls whose result is an integer index the data chose, and methods that keep a tensor one
SELECTING = frozenset({"nonzero", "argwhere"})
KEEPING = frozenset({"squeeze", "view", "reshape", "flatten", "long", "to", "contiguous", "clone"})
NUMBER_CALLS = frozenset({"float", "int", "abs", "min", "max", "round", "len", "sum", "item", "tolist", "finfo",
                          "iinfo"})


def index_form(node: ast.expr, ctx: FunctionContext, depth: int = 3) -> str | None:
    """'tensor' for one integer index tensor the data selected (`m.nonzero().squeeze(1)`,
    `nonzero_tuple(m)[0]`, `torch.where(m)[0]`), 'tuple' for a tuple of them (`unbind`,
    `as_tuple=True`), None for anything else (an int, a list, a size, an unknown value)."""
    if depth < 0:
        return None
    if isinstance(node, ast.Name):
        values = ctx.assignments(node.id)
        if len(values) != 1 or isinstance(values[0], ast.stmt) or ctx.is_parameter(node.id):
            return None
        return index_form(values[0], ctx, depth - 1)
    if isinstance(node, ast.Subscript):
        inner = index_form(node.value, ctx, depth)
        if inner == "tuple":
            return "tensor" if isinstance(node.slice, ast.Constant) and type(node.slice.value) is int else None
        return "tensor" if inner == "tensor" and not isinstance(node.slice, ast.Tuple) else None
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in SELECTING:
        return "tuple" if any(k.arg == "as_tuple" for k in node.keywords) else "tensor"
    if ctx.qualname(func) == "torch.where" and len(node.args) == 1 and not node.keywords:
        return "tuple"
    if isinstance(func, ast.Attribute) and name in KEEPING | {"unbind"}:
        inner = index_form(func.value, ctx, depth)
        return None if inner != "tensor" else "tuple" if name == "unbind" else "tensor"
    if isinstance(func, ast.Name):
        return _returned_form(func.id, ctx, depth - 1)
    return None


def _returned_form(name: str, ctx: FunctionContext, depth: int) -> str | None:
    """The one form every `return` of the file's function ``name`` gives (detectron2's
    `nonzero_tuple(x)`: `x.nonzero().unbind(1)`; its own names are not followed)."""
    for node in ctx.file.module.tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            returns = [n.value for n in walk(node) if isinstance(n, ast.Return) and n.value is not None]
            forms = {_local_form(r, depth) for r in returns}
            return forms.pop() if len(forms) == 1 else None
    return None


def _local_form(node: ast.expr, depth: int) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in SELECTING:
            return "tuple" if any(k.arg == "as_tuple" for k in node.keywords) else "tensor"
        if node.func.attr in KEEPING | {"unbind"} and depth >= 0:
            inner = _local_form(node.func.value, depth - 1)
            return None if inner != "tensor" else "tuple" if node.func.attr == "unbind" else "tensor"
    return None


def tensor_value(value: ast.expr, ctx: FunctionContext) -> bool:
    """A value index_put_ takes as it is: a tensor by the oracle, or the result of a call of a
    layer or a function (`pooler(x[level], boxes)`), not a number (`float(...)`, `.item()`, a
    constant, `self.fill`)."""
    known = ctx.tensors.is_tensor(value)
    if known is not None:
        return known
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    qualname = ctx.qualname(func) or ""
    return name not in NUMBER_CALLS and not qualname.startswith(("math.", "numpy.", "builtins."))


def computed_index_fix(node: ast.Assign, target: ast.Subscript, ctx: FunctionContext) -> Fix | None:
    """`out[inds] = value` -> `out.index_put_((inds,), value)`: unsafe (index assignment also takes a
    value with extra leading dimensions of size 1, which index_put_ refuses, and a value whose
    tensor-ness static analysis only guessed from a call)."""
    if isinstance(target.slice, ast.Tuple) or not isinstance(target.value, ast.Name):
        return None
    if index_form(target.slice, ctx) != "tensor" or ctx.tensors.is_tensor(target.value) is not True:
        return None
    if not tensor_value(node.value, ctx):
        return None
    text = f"{target.value.id}.index_put_(({ctx.segment(target.slice)},), {ctx.segment(node.value)})"
    return Fix("Write with `index_put_`", (ctx.replace(node, text),), safe=False)
