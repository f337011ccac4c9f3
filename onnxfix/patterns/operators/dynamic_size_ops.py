"""Ops the dynamo exporter fails on where a size is dynamic or read from the data (ONX515), found in
the source as well as by the run's error (their records are export-time ones):

- `t % n` with `n` a size: the function for aten.remainder.Scalar builds a constant from the divisor
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
MESSAGE = ("`%` of a tensor by the size `{size}`: the dynamo exporter's function for aten.remainder.Scalar needs a "
           "constant divisor and fails on a dynamic size (ConversionError: int() of a SymbolicTensor); "
           "`{helper}` keeps the op in eager and, while exporting, writes an integer tensor's remainder with a floor "
           "division (a float tensor's keeps the op)")


def size_remainder_finding(rule, node: ast.BinOp, ctx: FunctionContext):
    """The finding for `t % n`, `t` a tensor and `n` a size read from a tensor's shape."""
    if not isinstance(node.op, ast.Mod) or isinstance(node.right, ast.Constant):
        return
    if ctx.tensors.is_tensor(node.left) is not True or not ctx.sizes.is_size(node.right):
        return
    helper = BY_KEY[KEY].helper
    helpers = tuple(Helper(f"_onnx_{k}", helper_source(k)) for k in helper_chain(KEY))
    call = f"{helper}({ctx.segment(node.left)}, {ctx.segment(node.right)})"
    fix = Fix(f"Rewrite to `{call}`", (ctx.replace(node, call),), True, imports=("torch",), helpers=helpers)
    message = MESSAGE.format(size=ctx.segment(node.right), helper=helper)
    yield ctx.report(rule, node, message, fix=fix, exporters=("dynamo",))


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
              helpers=helpers)
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
