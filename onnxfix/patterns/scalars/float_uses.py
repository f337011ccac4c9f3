"""`float()` of a size (ONX203): where dropping it gives the same float, and where a Python float
computed from sizes must stay a Python number.

`F.interpolate(x, scale_factor=(float(h0) / float(h1), ...))` (mmdetection's FPN, mmcv#690): the
resize takes Python numbers for `scale_factor`. Without `float()` the legacy tracer's sizes (tensors)
make the quotient a tensor, which `upsample_nearest2d` refuses: an export that failed in
onnxruntime would then fail in the exporter. ONX203 leaves such casts alone.
"""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.patterns.scalars.sym_int import branch_frozen_on_same_sizes
from onnxfix.patterns.scalars.uses import name_reads
from onnxfix.patterns.scalars.values import replace_call_by_argument
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.rule import Fix, Helper
from onnxfix.rewriter.tree_walk import walk

CASTS = frozenset({"int", "float", "bool"})
SYM_FLOAT = Helper("_onnx_sym_float", helper_source("sym_float"))

# keywords of torch calls that take Python numbers only, and the resizes taking one by position
NUMBER_KEYWORDS = frozenset({"scale_factor"})
POSITIONAL = {"torch.nn.functional.interpolate": 2, "torch.nn.functional.upsample": 2,
              "torch.nn.Upsample": 1, "torch.nn.UpsamplingNearest2d": 1, "torch.nn.UpsamplingBilinear2d": 1}
_CARRIERS = (ast.BinOp, ast.UnaryOp, ast.Tuple, ast.List, ast.Call, ast.IfExp, ast.Dict, ast.keyword)


def feeds_number_keyword(node: ast.expr, ctx: FunctionContext, depth: int = 3) -> str | None:
    """The keyword (`scale_factor`) the value of ``node`` reaches: in the argument itself (by name
    or by position, inside a tuple, a conditional, a `**dict(...)`), or through names assigned
    from it (a few hops); None otherwise."""
    current, parent = node, ctx.parent(node)
    while isinstance(parent, _CARRIERS):
        if isinstance(parent, ast.keyword) and parent.arg in NUMBER_KEYWORDS:
            return None if _symbolic_resize(ctx.parent(parent)) else parent.arg
        if isinstance(parent, ast.Dict) and any(v is current for v in parent.values):
            key = parent.keys[next(i for i, v in enumerate(parent.values) if v is current)]
            if isinstance(key, ast.Constant) and key.value in NUMBER_KEYWORDS:
                return key.value  # `kw = {"scale_factor": ...}` then `F.interpolate(y, **kw)`
        if isinstance(parent, ast.Call) and current is not parent.func and _positional(parent, current, ctx):
            return "scale_factor"
        if isinstance(parent, ast.Call) and current is parent.func:
            break
        current, parent = parent, ctx.parent(parent)
    if depth <= 0 or not isinstance(parent, (ast.Assign, ast.AnnAssign)):
        return None
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    names = {t.id for t in targets if isinstance(t, ast.Name)}
    for use in (n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id in names
                and isinstance(n.ctx, ast.Load)):
        found = feeds_number_keyword(use, ctx, depth - 1)
        if found:
            return found
    return None


def _symbolic_resize(call: ast.AST | None) -> bool:
    """ONX404's `_onnx_interpolate_scaled(...)`: it takes a scale kept symbolic (a SymFloat, or the
    legacy tracer's tensor), so a `float()` feeding it is droppable like any other."""
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "_onnx_interpolate_scaled"


def _positional(call: ast.Call, argument: ast.AST, ctx: FunctionContext) -> bool:
    index = POSITIONAL.get(ctx.qualname(call.func) or "")
    return index is not None and len(call.args) > index and call.args[index] is argument


def float_of_size_fix(node: ast.Call, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why none) for `float(size)`: dropped where the float it gives is the same."""
    keyword = feeds_number_keyword(node, ctx)
    if keyword is not None:
        return None, f"; no automatic fix: the value is `{keyword}=`, which takes Python numbers"
    if _true_division_operand(node, ctx):
        return Fix("Drop `float()`: `/` of ints already gives the float", (replace_call_by_argument(node, ctx),),
                   safe=True), ""
    if _float_power_base(node, ctx):
        return Fix("Drop `float()`: an int to a float power is the float's power",
                   (replace_call_by_argument(node, ctx),), safe=True), ""
    return _sym_float_fix(node, ctx)


def _sym_float_fix(node: ast.Call, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """`float(size)` -> `torch.sym_float(size)` where dropping `float()` could change the result (an
    int, or an int tensor's dtype): it is `float()` for every Python number and tensor (eager: the same
    float, by construction) and a SymFloat kept symbolic under torch.export (timm's DINOv3 RoPE,
    `h_denom = float(height)`). The legacy exporter still records the number. TorchScript has no
    `torch.sym_float`."""
    if ctx.compiled_by_torchscript:
        return None, "; no automatic fix: TorchScript compiles the function and has no `torch.sym_float`"
    torch_name, imports = ctx.torch_name()
    for_legacy = None
    if _divides_tensors_only(node, ctx):
        for_legacy = Fix("Use `_onnx_sym_float` (`torch.sym_float`, a graph value while the legacy exporter traces)",
                         (ctx.replace(node.func, "_onnx_sym_float"),), safe=True, imports=("torch",),
                         helpers=(SYM_FLOAT,))
    fix = Fix("Use `torch.sym_float`", (ctx.replace(node.func, f"{torch_name}.sym_float"),), safe=True,
              imports=imports, for_legacy=for_legacy)
    if for_legacy is None:
        return fix, "; `torch.sym_float` keeps it symbolic under torch.export (the legacy exporter still records it)"
    return fix, "; `torch.sym_float` keeps it symbolic under torch.export (`_onnx_sym_float` under the legacy exporter)"


_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _divides_tensors_only(node: ast.Call, ctx: FunctionContext) -> bool:
    """Whether the legacy form (a 0-d float32 tensor while the legacy exporter traces, where
    `float()` gave a number) exports no worse: the float, directly or through the one name it is
    assigned to, only meets tensors in `+`, `-`, `*`, `/` (DINOv3's `coords_h / h_denom`), where a
    0-d tensor computes as the number did; and no frozen branch reads the same sizes."""
    if branch_frozen_on_same_sizes(node.args[0], ctx):
        return False
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return _meets_a_tensor(node, ctx)
    # every read of the name (its other bindings, DINOv3's `h_denom = denom`, are read alike)
    uses = name_reads(parent.targets[0].id, ctx)
    return bool(uses) and all(_meets_a_tensor(n, ctx) for n in uses)


def _meets_a_tensor(node: ast.expr, ctx: FunctionContext) -> bool:
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, _ARITHMETIC)):
        return False
    other = parent.right if parent.left is node else parent.left
    return ctx.tensors.is_tensor(other) is True


def _true_division_operand(node: ast.Call, ctx: FunctionContext) -> bool:
    """`float(a) / float(b)` (either side) with `a` an int size and the other operand an int size,
    `float()` of one, or a number literal: Python's `/` converts an int operand to float exactly
    below 2**53, and int / int is the correctly rounded quotient, as float / float is, so dropping
    the cast gives the same float (tests/test_values_exactness.py)."""
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div)):
        return False
    other = parent.right if parent.left is node else parent.left
    if _python_float(other, ctx):  # int / float converts the int exactly; float(a float) is itself
        return True
    if not ctx.ints.is_int(node.args[0]):
        return False
    if isinstance(other, ast.Call) and builtin_call(other, ctx, CASTS) == "float" and len(other.args) == 1:
        other = other.args[0]
    return ctx.ints.is_int(other) or (isinstance(other, ast.Constant) and type(other.value) in (int, float))


MATH_FLOATS = frozenset({"sqrt", "log", "log2", "log10", "exp", "pow", "cos", "sin", "tan", "atan2", "hypot"})


def _python_float(node: ast.expr, ctx: FunctionContext, depth: int = 2) -> bool:
    """A Python float: a float literal, `math.sqrt(...)` and the like, or a name every binding of
    which is one (`sqrt_N = math.sqrt(N)`). Dividing by it, an int size is converted exactly (below
    2**53) and a float computed from sizes is itself: `float()` of either changes nothing."""
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    if isinstance(node, ast.Call):
        qualname = ctx.qualname(node.func) or ""
        return qualname.startswith("math.") and qualname[len("math."):] in MATH_FLOATS
    if isinstance(node, ast.Name) and depth > 0 and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        return bool(values) and all(isinstance(v, ast.expr) and _python_float(v, ctx, depth - 1) for v in values)
    return False


def _float_power_base(node: ast.Call, ctx: FunctionContext) -> bool:
    """`float(n) ** -0.5` with `n` an int size and a float literal exponent (DaViT's `q * float(N) **
    -0.5`): `int.__pow__` declines a float exponent and `float.__rpow__` converts the int exactly
    (below 2**53), so `n ** -0.5` is `float(n) ** -0.5`, bit for bit."""
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Pow) and parent.left is node):
        return False
    exponent = parent.right.operand if isinstance(parent.right, ast.UnaryOp) and isinstance(
        parent.right.op, (ast.USub, ast.UAdd)) else parent.right
    return ctx.ints.is_int(node.args[0]) and isinstance(exponent, ast.Constant) and type(exponent.value) is float
