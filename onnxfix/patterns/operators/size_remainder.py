"""`t % n` with `n` a size (ONX515): the dynamo exporter's function for aten.remainder.Scalar builds
a constant from the divisor and fails on a symbolic one ("int() argument must be ... not
'SymbolicTensor'"): SLEAP's peak finder `indices % width`, TimesFM's `(idx_range - indices) % num_seq`.
`_onnx_remainder_symbolic` keeps the op in eager (the helper runs only under export), so the fix is
safe; `onnxfix export` applies the same record where the run names the error."""

from __future__ import annotations

import ast

from onnxfix.decompositions import BY_KEY, helper_chain, helper_source
from onnxfix.rewriter.context import FunctionContext
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
