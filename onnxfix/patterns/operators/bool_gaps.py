"""ONX528: bool tensors through ONNX ops that have no bool form (a dtype gap of ONNX / onnxruntime).

Eager PyTorch computes `mask_a + mask_b` on bool tensors (a logical or), `torch.where(c, a, b)`
on bool branches, and `mask.cumsum(-1)` (promoted to int64). Their ONNX translations keep the
bool dtype: Add has no bool type in ONNX (both exporters: "Type 'tensor(bool)' of input
parameter ... is invalid", the model does not load), onnxruntime has no Where kernel for bool
branches (both exporters: NOT_IMPLEMENTED), and the legacy exporter's CumSum takes the bool input
as it is (invalid model; the dynamo exporter casts first). Measured on torch 2.13 and onnxruntime
1.23; PARSeq's `((tgt_in == eos).cumsum(-1) > 0)` padding mask is the public report.

Each has a form with ops that do take bools, computing the same values in the same dtype.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.names import dotted_parts
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk

class BoolKernelGap(Rule):
    code = "ONX528"
    name = "bool-kernel-gap"
    summary = "A bool tensor through an op ONNX has no bool form for (`+`, `torch.where` branches, legacy `cumsum`)"
    fix_availability = "always"
    default_safety = "safe"
    triggers = ("+", "where", "cumsum", "eye", "max", "min")
    doc = RuleDoc(
        what="Finds, on tensors statically known to be bool (comparisons, `~`/`&`/`|`, bool "
        "methods, `dtype=torch.bool`, names bound to those; or bool in a recorded run): "
        "`a + b` of two bool tensors, `torch.where(c, a, b)` with bool branches, and `cumsum` of "
        "a bool tensor without `dtype=`; `torch.eye(n, dtype=torch.bool)` (legacy: a bool EyeLike, "
        "MossFormer's diagonal mask); and the indices of a bool tensor's `max(dim)`/`min(dim)` (`[1]`, "
        "`.indices`, `_, index = ...` with the values never read; ABINet's first-True length decoder, kornia's "
        "rgb_to_hsv).",
        why="Eager PyTorch computes them (a logical or, a select, an int64 running count); the "
        "exported ops keep the bool dtype, which they do not take: ONNX's Add has no bool type "
        "(both exporters: the model does not load, \"Type 'tensor(bool)' ... is invalid\"), "
        "onnxruntime has no Where kernel for bool branches (both: NOT_IMPLEMENTED), and the legacy "
        "exporter feeds the bool to CumSum (invalid model; dynamo casts first), and the ArgMax / ArgMin "
        "of a max's indices take no bool (both: the model does not load). Measured on torch "
        "2.13, onnxruntime 1.23 (PARSeq's `(tgt_in == eos).cumsum(-1) > 0`).",
        example="def forward(self, tokens: torch.Tensor, extra: torch.Tensor):\n    mask = (tokens == 0) + (extra > 0)\n"
        "    seen = (tokens == 2).cumsum(-1) > 0\n    return torch.where(seen, mask, tokens > 5)",
        use_instead="def forward(self, tokens: torch.Tensor, extra: torch.Tensor):\n    mask = (tokens == 0) | (extra > 0)\n"
        "    seen = (tokens == 2).long().cumsum(-1) > 0\n"
        "    return ((seen & mask) | (~seen & (tokens > 5)))",
        fix_safety="Safe: the same values in the same dtype by construction. `+` of two bool "
        "tensors is True where either is (bool addition saturates), which is `|`; `cumsum` of a "
        "bool tensor promotes it to int64 first, as `.long()` does (exact integer counts); "
        "`torch.eye(n, dtype=torch.bool)` is `torch.eye(n).bool()` (ones on the diagonal, zeros elsewhere); "
        "max / min's indices are the first extreme's, at the same index on the mask "
        "as int64 (False < True as 0 < 1; a max's values, whose dtype the cast would change, are not offered); "
        "`torch.where(c, a, b)` on bools is `(c & a) | (~c & b)` elementwise, broadcast alike "
        "(offered when `c` is a name or attribute, read twice), bracketed as a whole; `a | b` is "
        "bracketed where an operator binding tighter than `|` holds it (`m & a + b`). A tensor "
        "counts as bool only where its dtype cannot be another: `any()`/`all()` of a bool (on "
        "uint8 they give uint8), no `view(dtype)`, no `is`/`in` comparison, a `self.` attribute "
        "assigned once in the class.",
        references=("https://github.com/baudm/parseq/issues/66",
                    "https://onnx.ai/onnx/operators/onnx__Add.html"),
    )

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        if not isinstance(node.op, ast.Add) or not (is_bool_tensor(node.left, ctx) and is_bool_tensor(node.right, ctx)):
            return
        source = ctx.file.source
        left_end = source.span(node.left)[1]
        right_start = source.span(node.right)[0]
        between = source.text[left_end:right_start]
        fix = None
        if between.count("+") == 1 and "#" not in between:
            plus = left_end + between.index("+")
            edits = [Edit(plus, plus + 1, "|")]
            if _binds_tighter_than_or(ctx.parent(node), node):  # `m & a + b`: `|` would split it
                start, end = source.span(node)
                edits = [Edit(start, start, "("), *edits, Edit(end, end, ")")]
            fix = Fix("Combine the masks with `|` (what bool `+` computes)", tuple(edits), safe=True)
        yield ctx.report(self, node, "`+` of two bool tensors: ONNX's Add takes no bool (the exported model does not "
                         "load); `|` is what bool addition computes", fix=fix)

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        qualname = ctx.qualname(node.func)
        if qualname == "torch.where" and len(node.args) == 3 and not node.keywords:
            yield from self._where(node, ctx)
        elif _is_cumsum(node, qualname):
            yield from self._cumsum(node, qualname, ctx)
        elif qualname == "torch.eye" and _bool_dtype(node, ctx) is not None:
            yield from self._eye(node, ctx)
        elif _indices_of_extreme(node, qualname, ctx):
            yield from self._extreme_index(node, qualname, ctx)

    def _extreme_index(self, node: ast.Call, qualname: str | None, ctx: FunctionContext):
        """`mask.max(dim)[1]` (the first True along dim, ABINet's length decoder): its ArgMax / ArgMin
        take no bool (the model does not load, both exporters); on the mask as int64 the same
        first index."""
        tensor = node.func.value if qualname is None else node.args[0]
        if not is_bool_tensor(tensor, ctx):
            return
        if qualname is None:
            dot = ctx.dot_span(node.func)[0]
            edits = (Edit(dot, dot, ".long()"),)
        else:
            edits = (ctx.replace(tensor, f"{_atom(tensor, ctx)}.long()"),)
        yield ctx.report(self, node, "the index of a bool tensor's max or min: ONNX's ArgMax / ArgMin take no bool (the "
                         "exported model does not load); on the mask as int64 the first extreme is at the same index",
                         fix=Fix("Cast to int64 before taking the index", edits, safe=True))

    def _eye(self, node: ast.Call, ctx: FunctionContext):
        keyword = _bool_dtype(node, ctx)
        others = [ctx.segment(a) for a in node.args] + [ctx.segment(k) for k in node.keywords if k is not keyword]
        text = f"{ctx.segment(node.func)}({', '.join(others)}).bool()"
        yield ctx.report(self, node, "`torch.eye(..., dtype=torch.bool)`: the legacy exporter writes a bool EyeLike, "
                         "which onnxruntime has no kernel for (NOT_IMPLEMENTED); the float identity cast to bool is "
                         "the same mask", fix=Fix("Cast the float identity to bool", (ctx.replace(node, text),), safe=True),
                         exporters=("legacy",))

    def _where(self, node: ast.Call, ctx: FunctionContext):
        condition, a, b = node.args
        if not (is_bool_tensor(a, ctx) and is_bool_tensor(b, ctx)):
            return
        fix = None
        if dotted_parts(condition) is not None:  # a name or attribute chain: read twice alike
            c = ctx.segment(condition)
            text = f"(({c} & {_atom(a, ctx)}) | (~{c} & {_atom(b, ctx)}))"
            fix = Fix("Select bools with `&` and `|`", (ctx.replace(node, text),), safe=True)
        yield ctx.report(self, node, "`torch.where` with bool branches: onnxruntime has no Where kernel for bool "
                         "(NOT_IMPLEMENTED); `(c & a) | (~c & b)` selects the same bools", fix=fix)

    def _cumsum(self, node: ast.Call, qualname: str | None, ctx: FunctionContext):
        tensor = node.func.value if qualname is None else node.args[0]
        if not is_bool_tensor(tensor, ctx):
            return
        if qualname is None:  # `mask.cumsum(-1)`, `(a == b).cumsum(-1)`: before the method's dot
            dot = ctx.dot_span(node.func)[0]
            edits = (Edit(dot, dot, ".long()"),)
        else:
            edits = (ctx.replace(tensor, f"{_atom(tensor, ctx)}.long()"),)
        yield ctx.report(self, node, "`cumsum` of a bool tensor: the legacy exporter feeds the bool to CumSum, "
                         "which takes no bool (invalid model); eager counts in int64, as `.long()` first does",
                         fix=Fix("Cast to int64 before the running sum", edits, safe=True), exporters=("legacy",))


EXTREMES = frozenset({"max", "min"})


def _indices_of_extreme(node: ast.Call, qualname: str | None, ctx: FunctionContext) -> bool:
    """The indices only of `t.max(dim)` / `torch.max(t, dim)` (`[1]`, `.indices`; min alike): a
    max's values would change dtype with the cast (eager's argmax / argmin refuse bool inputs)."""
    if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
        return False
    name = qualname.removeprefix("torch.") if qualname and qualname.count(".") == 1 else (
        node.func.attr if qualname is None and isinstance(node.func, ast.Attribute) else None)
    if qualname is not None and not node.args:
        return False
    dim_given = len(node.args) > (0 if qualname is None else 1) or any(k.arg == "dim" for k in node.keywords)
    if name not in EXTREMES or not dim_given:
        return False
    parent = ctx.parent(node)
    return (isinstance(parent, ast.Subscript) and isinstance(parent.slice, ast.Constant) and parent.slice.value == 1) or (
        isinstance(parent, ast.Attribute) and parent.attr == "indices") or _values_discarded(parent, node, ctx)


def _values_discarded(parent: ast.AST, node: ast.Call, ctx: FunctionContext) -> bool:
    """`_, index = mask.max(dim)` (kornia's rgb_to_hsv): unpacked, the values bound to a name the
    function never reads."""
    if not (isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1):
        return False
    target = parent.targets[0]
    if not (isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)):
        return False
    name = target.elts[0].id
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in walk(ctx.fn.node)):
        return False  # read elsewhere
    return not any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store)
                   for n in walk(ctx.fn.node))


def _bool_dtype(node: ast.Call, ctx: FunctionContext) -> ast.keyword | None:
    """The call's `dtype=torch.bool` keyword (no `**kwargs` beside it)."""
    if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    return next((k for k in node.keywords if k.arg == "dtype" and ctx.qualname(k.value) == "torch.bool"), None)


def _is_cumsum(node: ast.Call, qualname: str | None) -> bool:
    if any(k.arg == "dtype" or k.arg is None for k in node.keywords):
        return False
    if qualname == "torch.cumsum":
        return bool(node.args) and not isinstance(node.args[0], ast.Starred)
    return qualname is None and isinstance(node.func, ast.Attribute) and node.func.attr == "cumsum" and len(node.args) <= 1


def _binds_tighter_than_or(parent: ast.AST | None, node: ast.expr) -> bool:
    """The `+` expression sits where an operator binding tighter than `|` holds it (another
    operator but `|`, a unary operator, `.attr`, `[...]`, `**`, `await`)."""
    if isinstance(parent, ast.BinOp):
        return not isinstance(parent.op, ast.BitOr)
    return isinstance(parent, (ast.UnaryOp, ast.Attribute, ast.Subscript, ast.Await)) and getattr(parent, "value", getattr(parent, "operand", None)) is node


def _atom(node: ast.expr, ctx: FunctionContext) -> str:
    """The source of ``node``, bracketed unless it binds tighter than any operator."""
    text = ctx.segment(node)
    return text if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) else f"({text})"


RULES = [BoolKernelGap]
