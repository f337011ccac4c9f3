"""ONX201's fix for a tensor rebuilt from numbers taken out of tensors:
`torch.tensor([x.item() + y.item()])` -> `(x + y).detach().reshape(1)`."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk

ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)
ROUNDING = {"math.ceil": "ceil", "math.floor": "floor"}
REBUILT_UNSAFE = (
    "the result keeps the tensors' dtype and device where `torch.tensor` picked the default dtype "
    "(int64 for ints) and the CPU, and a chain of float operations rounds at each step in that dtype"
)


def rebuilt_tensor_fix(item: ast.Call, ctx: FunctionContext) -> Fix | None:
    """The fix replacing the `torch.tensor(...)` that ``item`` (an `.item()` call) feeds, when its
    data is `E` or `[E]` and `E` is made only of `.item()` of names, number literals, `+ - * /`
    and unary minus, or is `math.ceil(...)` / `math.floor(...)` of such: the same arithmetic on
    the tensors, detached (the rebuilt tensor had no autograd history) and reshaped to the rebuilt
    shape. Unsafe always (REBUILT_UNSAFE); one fix shared by every `.item()` of the expression."""
    node: ast.AST = item
    parent = ctx.parent(node)
    while isinstance(parent, (ast.BinOp, ast.UnaryOp)) or _rounding(parent, ctx):
        node, parent = parent, ctx.parent(parent)
    shape = "()"
    if isinstance(parent, ast.List) and len(parent.elts) == 1:
        node, parent, shape = parent, ctx.parent(parent), "1"
    if not (
        isinstance(parent, ast.Call) and ctx.qualname(parent.func) == "torch.tensor"
        and parent.args == [node] and not parent.keywords
    ):
        return None
    element = node.elts[0] if isinstance(node, ast.List) else node
    rounding = _rounding(element, ctx)
    inner = element.args[0] if rounding else element
    text = _tensor_text(inner, ctx)
    if text is None:
        return None
    torch_name, imports = ctx.torch_name()
    if rounding:
        text = f"{torch_name}.{rounding}({text}).detach().long()"
    else:
        text = f"{text}.detach()" if isinstance(inner, ast.Call) else f"({text}).detach()"
    start = ctx.file.source.span(parent)[0]
    return Fix(
        "Compute with the tensors instead of their numbers", (ctx.replace(parent, f"{text}.reshape({shape})"),),
        safe=False, imports=imports, group=f"rebuilt:{ctx.file.display_path}:{start}",
    )


def _rounding(node: ast.AST | None, ctx: FunctionContext) -> str | None:
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        return ROUNDING.get(ctx.qualname(node.func) or "")
    return None


def _tensor_text(node: ast.AST, ctx: FunctionContext) -> str | None:
    """The source of ``node`` with every `.item()` dropped, or None when ``node`` holds anything
    but `.item()` of names (not known to be non-tensors), number literals, `+ - * /` and unary
    minus (and at least one `.item()`)."""
    items = []
    receivers = set()  # names and attributes only as `x.item`
    for sub in walk(node):
        if isinstance(sub, (ast.Name, ast.Attribute)):
            if id(sub) not in receivers:
                return None
        elif isinstance(sub, ast.Call):
            func = sub.func
            if not (
                isinstance(func, ast.Attribute) and func.attr == "item" and not sub.args and not sub.keywords
                and isinstance(func.value, ast.Name) and ctx.tensors.is_tensor(func.value) is not False
            ):
                return None
            items.append(sub)
            receivers |= {id(func), id(func.value)}
        elif isinstance(sub, ast.BinOp) and not isinstance(sub.op, ARITHMETIC):
            return None
        elif isinstance(sub, ast.UnaryOp) and not isinstance(sub.op, ast.USub):
            return None
        elif isinstance(sub, ast.Constant) and type(sub.value) not in (int, float):
            return None
        elif not isinstance(sub, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.expr_context, ast.operator, ast.unaryop)):
            return None
    if not items:
        return None
    source = ctx.file.source
    start, end = source.span(node)
    pieces, position = [], start
    for call in sorted(items, key=lambda c: source.span(c)[0]):
        call_end = source.span(call)[1]
        receiver_end = source.span(call.func.value)[1]
        pieces.append(source.text[position:receiver_end])
        position = call_end
    pieces.append(source.text[position:end])
    return "".join(pieces)
