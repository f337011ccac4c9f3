"""ONX201's fix for a tensor rebuilt from numbers taken out of tensors:
`torch.tensor([x.item() + y.item()])` -> `(x + y).detach().reshape(1)`."""

from __future__ import annotations

import ast

from onnxfix.rewriter.config_numbers import is_config_number
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk

ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)
FULL_REDUCTIONS = frozenset({"max", "min", "sum", "mean", "amax", "amin", "prod"})
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
        and parent.args == [node] and all(k.arg in ("dtype", "device") for k in parent.keywords)
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
    converted = f".to({', '.join(ctx.segment(k) for k in parent.keywords)})" if parent.keywords else ""
    return Fix(
        "Compute with the tensors instead of their numbers",
        (ctx.replace(parent, f"{text}.reshape({shape}){converted}"),),
        safe=False, imports=imports, group=f"rebuilt:{ctx.file.display_path}:{start}",
    )


def _rounding(node: ast.AST | None, ctx: FunctionContext) -> str | None:
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        return ROUNDING.get(ctx.qualname(node.func) or "")
    return None


def _tensor_text(node: ast.AST, ctx: FunctionContext) -> str | None:
    """The source of ``node`` with every `.item()` and `float()` of a tensor dropped, or None when
    ``node`` holds anything but `.item()` of names (not known to be non-tensors), `float()` of a
    tensor (SpeechBrain's `float(x_db.max())`), number literals, numbers the module configures
    (`self.top_db`), `+ - * /` and unary minus (and at least one `.item()` or `float()`)."""
    items = []
    receivers = set()  # names and attributes only as `x.item`, inside `float(...)`, or configured numbers
    for sub in walk(node):
        if id(sub) in receivers:
            continue
        if isinstance(sub, (ast.Name, ast.Attribute)):
            if not is_config_number(sub, ctx):
                return None
            receivers |= {id(part) for part in walk(sub)}
        elif isinstance(sub, ast.Call):
            func = sub.func
            if _float_of_tensor(sub, ctx):
                items.append(sub)
                receivers |= {id(part) for part in walk(sub) if part is not sub}
                continue
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
        call_start, call_end = source.span(call)
        if isinstance(call.func, ast.Name):  # `float(t)` -> `t`
            pieces += [source.text[position:call_start], ctx.segment(call.args[0])]
        else:  # `t.item()` -> `t`
            pieces.append(source.text[position:source.span(call.func.value)[1]])
        position = call_end
    pieces.append(source.text[position:end])
    return "".join(pieces)


def _float_of_tensor(call: ast.Call, ctx: FunctionContext) -> bool:
    """`float(t)` or `float(t.max())` (a full reduction, no arguments) of a name the oracle does not
    rule out as a tensor: the number `t.item()` gives for a floating tensor."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "float" and ctx.is_builtin("float")
            and len(call.args) == 1 and not call.keywords):
        return False
    argument = call.args[0]
    if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Attribute) and not argument.args \
            and not argument.keywords and argument.func.attr in FULL_REDUCTIONS:
        argument = argument.func.value
    return isinstance(argument, ast.Name) and ctx.tensors.is_tensor(argument) is not False
