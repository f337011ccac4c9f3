"""ONX530: `torch.arange(start, end)` with an int and a float bound and no `dtype=`.

mmcv's GeneralizedAttention writes `torch.arange(0, feat_dim / 4)`: eager infers the default
float dtype from the float bound. torch.onnx's function for `aten.arange.start` with no dtype
builds its ONNX Range from the two bounds as they come, an int64 start beside a float end, and
the exported model fails to load in onnxruntime ("Type parameter (T) of Optype (Mul) bound to
different types (tensor(int64) and tensor(float))"), wherever the range goes next. A float start
with a dynamic size as the end (`torch.arange(0.5, x.shape[0])`) fails the same way; the legacy
exporter casts both bounds and is fine. The overloads with one bound or with a step are not
affected (measured on torch 2.13).

Passing the dtype eager infers, `dtype=torch.get_default_dtype()`, is what torch does with a
float bound, so the range is the same tensor: a safe fix. With a dtype, torch.onnx casts both
bounds to it.
"""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.edits import appended_keyword
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

# math functions whose result is a float whatever they are given (math.ceil/floor/gcd/prod and
# the like give ints)
FLOAT_MATH = frozenset({"math.sqrt", "math.exp", "math.log", "math.log2", "math.log10", "math.log1p", "math.pow",
                        "math.sin", "math.cos", "math.tan", "math.atan", "math.atan2", "math.hypot", "math.fsum",
                        "math.radians", "math.degrees", "math.expm1", "math.fabs", "math.copysign"})
FLOAT_CONSTANTS = frozenset({"math.pi", "math.e", "math.tau", "math.inf", "math.nan"})


def provably_float(node: ast.AST, ctx: FunctionContext, depth: int = 0) -> bool:
    """True only where the value is a float (or a floating tensor, which arange reads as a float)
    whatever the names in it hold: a float literal, a true division, arithmetic with a float
    operand, `float(...)`, math's float functions and constants, a local name every binding of
    which is one of those."""
    if depth > 4:
        return False
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Div):
            return True
        return any(provably_float(side, ctx, depth + 1) for side in (node.left, node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return provably_float(node.operand, ctx, depth + 1)
    if isinstance(node, ast.Call):
        return ctx.qualname(node.func) in FLOAT_MATH or (
            isinstance(node.func, ast.Name) and node.func.id == "float" and ctx.is_builtin("float"))
    if isinstance(node, ast.Attribute):
        return ctx.qualname(node) in FLOAT_CONSTANTS
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id) and ctx.inner_scope(node) is None \
            and not ctx.declared_outer(node.id):  # a comprehension's, a lambda's or a global name is not this one
        values = ctx.assignments(node.id)
        return bool(values) and all(isinstance(v, ast.expr) and provably_float(v, ctx, depth + 1) for v in values)
    return False


def _bounds(node: ast.Call) -> tuple[ast.expr, ast.expr] | None:
    """(start, end) of `arange(start, end)` without a step, positional or by keyword."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    named = {k.arg: k.value for k in node.keywords}
    if "dtype" in named or "out" in named or "step" in named:
        return None
    given = dict(zip(("start", "end", "step"), node.args))
    if "step" in given:
        return None
    start, end = named.get("start", given.get("start")), named.get("end", given.get("end"))
    return (start, end) if start is not None and end is not None else None


class MixedBoundsArange(Rule):
    code = "ONX530"
    name = "mixed-bounds-arange"
    summary = "`torch.arange(start, end)` with an int and a float bound: the dynamo export's Range mixes int64 and float"
    fix_availability = "always"
    default_safety = "safe"
    exporters = (DYNAMO,)
    triggers = ("arange",)
    doc = RuleDoc(
        what="Finds `torch.arange(start, end)` calls without `dtype=` where one bound is a float "
        "(a float literal, a true division, float math) and the other may be an int.",
        why="Eager infers the default float dtype from the float bound. torch.onnx's function for "
        "`aten.arange.start` without a dtype writes an ONNX Range of the bounds as they are, an "
        "int64 beside a float, and onnxruntime refuses to load the model (\"Type parameter (T) of "
        "Optype (Mul) bound to different types (tensor(int64) and tensor(float))\", at whatever "
        "uses the range). A float start fails so only with a dynamic end (measured on torch 2.13).",
        example="def forward(self, x):\n    feat_range = torch.arange(0, self.dim / 4)\n    return x * feat_range",
        use_instead="def forward(self, x):\n    feat_range = torch.arange(0, self.dim / 4, dtype=torch.get_default_dtype())\n"
        "    return x * feat_range",
        fix_safety="Safe: with a float bound torch.arange's dtype is `torch.get_default_dtype()`; "
        "passing it gives the same tensor, and torch.onnx then casts both bounds to it.",
        references=("https://github.com/open-mmlab/mmdeploy/issues/662",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if ctx.qualname(node.func) != "torch.arange":
            return
        bounds = _bounds(node)
        if bounds is None:
            return
        start, end = bounds
        start_float, end_float = provably_float(start, ctx), provably_float(end, ctx)
        int_literal_end = isinstance(end, ast.Constant) and type(end.value) is int
        if start_float == end_float or (start_float and int_literal_end):
            return  # both floats, or a float start before a constant end: translated as one dtype
        fix = None
        if not ctx.compiled_by_torchscript:  # TorchScript has no torch.get_default_dtype
            torch_name, imports = ctx.torch_name()
            edit = appended_keyword(node, f"dtype={torch_name}.get_default_dtype()", ctx)
            fix = Fix("Pass the dtype eager infers", (edit,), safe=True, imports=imports)
        message = ("`torch.arange` with an int and a float bound and no `dtype=`: the dynamo export writes a Range "
                   "of int64 and float that onnxruntime refuses; pass `dtype=torch.get_default_dtype()`, the dtype "
                   "eager infers")
        yield ctx.report(self, node, message, fix=fix)


RULES = [MixedBoundsArange]
