"""Ops the dynamo exporter fails on where a size is dynamic or read from the data (ONX515), found in
the source as well as by the run's error (their records are export-time ones):

- `t % n` (`torch.remainder(t, n)`, `t.remainder(n)`) with `n` a size: the function for aten.remainder.Scalar builds a constant from the divisor
  and fails on a symbolic one ("int() argument must be ... not 'SymbolicTensor'"): SLEAP's peak
  finder `indices % width`, TimesFM's `(idx_range - indices) % num_seq`;
- `F.cross_entropy` / `F.nll_loss` of rows a mask selected: torch's reference nll_loss asks whether
  they are empty, which torch.export cannot decide (AdaptSegNet's CrossEntropy2d).

The helpers keep the op in eager (they run only under export), so the fixes are safe."""

from __future__ import annotations

import ast

from onnxfix.decompositions import BY_KEY, helper_chain, helper_source
from onnxfix.rewriter.bindings import reaching_value
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.datadep import is_data_sized
from onnxfix.rewriter.rule import Fix, Helper

KEY = "remainder_symbolic"
MESSAGE = ("`{spelled}` of a tensor by the size `{size}`: the dynamo exporter's function for aten.remainder.Scalar "
           "needs a constant divisor and fails on a dynamic size (ConversionError: int() of a SymbolicTensor); "
           "`{helper}` keeps the op in eager and, while exporting, writes an integer tensor's remainder with a floor "
           "division (a float tensor's keeps the op)")
REMAINDERS = frozenset({"torch.remainder", "Tensor.remainder"})


def size_remainder_finding(rule, node: ast.BinOp | ast.Call, ctx: FunctionContext):
    """The finding for aten.remainder.Scalar by a size however it is spelled: `t % n`,
    `torch.remainder(t, n)`, `t.remainder(n)`, with `t` a tensor and `n` read from a tensor's shape."""
    operands = _remainder_operands(node, ctx)
    if operands is None:
        return
    tensor, divisor, spelled = operands
    if isinstance(divisor, ast.Constant) or ctx.tensors.is_tensor(tensor) is not True or not ctx.sizes.is_size(divisor):
        return
    message = MESSAGE.format(spelled=spelled, size=ctx.segment(divisor), helper=BY_KEY[KEY].helper)
    yield ctx.report(rule, node, message, fix=_helper_fix(KEY, node, [tensor, divisor], ctx), exporters=("dynamo",))


def _remainder_operands(node: ast.BinOp | ast.Call, ctx: FunctionContext) -> tuple[ast.expr, ast.expr, str] | None:
    """(dividend, divisor, how the source spells the op) of a remainder with no keywords."""
    if isinstance(node, ast.BinOp):
        return (node.left, node.right, "%") if isinstance(node.op, ast.Mod) else None
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if ctx.qualname(node.func) == "torch.remainder" and len(node.args) == 2:
        return node.args[0], node.args[1], "torch.remainder"
    method = isinstance(node.func, ast.Attribute) and node.func.attr == "remainder" and ctx.qualname(node.func) is None
    return (node.func.value, node.args[0], "Tensor.remainder") if method and len(node.args) == 1 else None


def _helper_fix(key: str, node: ast.expr, arguments: list[ast.expr], ctx: FunctionContext) -> Fix:
    """`node` replaced by record ``key``'s helper called on ``arguments`` (safe: a guarded helper)."""
    helper = BY_KEY[key].helper
    helpers = tuple(Helper(f"_onnx_{k}", helper_source(k)) for k in helper_chain(key))
    call = f"{helper}({', '.join(ctx.segment(a) for a in arguments)})"
    return Fix(f"Rewrite to `{call}`", (ctx.replace(node, call),), True, imports=("torch",), helpers=helpers)


LOSSES = {"torch.nn.functional.cross_entropy": "cross_entropy_rows", "torch.nn.functional.nll_loss": "nll_rows"}
LOSS_MESSAGE = ("`{name}` of rows read from the data (`{rows}`): torch's reference nll_loss asks whether they are "
                "empty, which torch.export cannot decide on an unbacked count (the dynamo exporter fails in its "
                "decomposition step); `{helper}` keeps the op in eager and, while exporting, computes the loss "
                "without that question")


def data_rows_loss_finding(rule, node: ast.Call, ctx: FunctionContext):
    """The finding for `F.cross_entropy(x, t, ...)` / `F.nll_loss(...)` with `x` a selection of rows."""
    key = LOSSES.get(ctx.qualname(node.func) or "")
    if key is None or not node.args or any(isinstance(a, ast.Starred) for a in node.args) \
            or len(node.args) > 7 or any(k.arg in ("label_smoothing", None) for k in node.keywords):
        return  # label smoothing is ONX516's (and the helper runs the op for it)
    rows = _before_log_softmax(node.args[0], ctx)
    reaching = reaching_value(rows, ctx) if isinstance(rows, ast.Name) else None  # `x = x[mask]` rebinds x
    if not is_data_sized(reaching if isinstance(reaching, ast.expr) else rows, ctx):
        return
    helper = BY_KEY[key].helper
    helpers = tuple(Helper(f"_onnx_{k}", helper_source(k)) for k in helper_chain(key))
    fix = Fix(f"Rewrite to `{helper}(...)`", (ctx.replace(node.func, helper),), True, imports=("torch",),
              helpers=helpers)  # the call's own arguments kept, keywords too: only the function changes
    message = LOSS_MESSAGE.format(name=ctx.segment(node.func), rows=ctx.segment(node.args[0]), helper=helper)
    yield ctx.report(rule, node, message, fix=fix, exporters=("dynamo",))


LOG_SOFTMAX = frozenset({"torch.log_softmax", "torch.nn.functional.log_softmax"})


def _before_log_softmax(rows: ast.expr, ctx: FunctionContext) -> ast.expr:
    """The rows `F.nll_loss` takes through a log_softmax (`torch.log_softmax(x[keep], -1)`): x's."""
    if isinstance(rows, ast.Call) and rows.args and ctx.qualname(rows.func) in LOG_SOFTMAX:
        return rows.args[0]
    if isinstance(rows, ast.Call) and isinstance(rows.func, ast.Attribute) and rows.func.attr == "log_softmax" \
            and ctx.qualname(rows.func) is None:
        return rows.func.value
    return rows
