"""ONX516's epsilons: an add or subtract of a float within 1e-8 of 0, a multiply or divide by one
within a relative 1e-5 of 1 (`torch.log(d + 1e-9)`, `x / (n + self.eps)` with `self.eps = 1e-10`,
`p * (1 - 1e-6)`). torch.onnx.export(dynamo=True) runs onnxscript's graph optimizer, whose no-op
rules (`x + 0`, `x - 0`, `x * 1`, `x / 1`) compare scalar constants with math.isclose (abs_tol=1e-8,
rel_tol=1e-5) and delete the node: the exported model takes log(0), 1/0 where eager took the
epsilon (TPS motion's kernel: NaN everywhere downstream). Found wherever the tensor operand is known
to be a tensor and the number is a literal or a name holding one (a local, a parameter's default,
`self.<attr>` set in __init__); the fix (`_onnx_kept_constant`, the export-time record's helper)
keeps the op in eager, so it is safe."""

from __future__ import annotations

import ast
import operator
import struct

from onnxfix.decompositions import BY_KEY, helper_chain, helper_source
from onnxfix.patterns.operators.arguments import held_literal
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper

KEY = "kept_constant"
BINARY = {ast.Add: "torch.add", ast.Sub: "torch.sub", ast.Mult: "torch.mul", ast.Div: "torch.div"}
ADDITIVE = frozenset({"torch.add", "torch.sub"})  # the ops whose identity is 0 (the others': 1)
COMMUTATIVE = frozenset({"torch.add", "torch.mul"})  # `1e-9 + x` is `x + 1e-9`, exactly
MESSAGE = ("`{spelled}`: the dynamo exporter's graph optimizer (onnxscript's no-op rules) takes {number!r} for the "
           "{identity} of this {name} and deletes the node, so the exported model computes without it (-inf, inf or "
           "NaN where it kept a log or a division of 0 finite); `{helper}` keeps the op in eager and, while "
           "exporting, gives the number as a one-element tensor the optimizer keeps")


def kept_constant_finding(rule, node: ast.BinOp | ast.Call, ctx: FunctionContext):
    """The finding for a tensor's add / sub of a float the optimizer takes for 0, or mul / div by one
    it takes for 1, however spelled: an operator, `torch.add(x, c)`, `x.add(c)`."""
    found = _operands(node, ctx)
    if found is None:
        return
    function, tensor, number_node, number = found
    additive = function in ADDITIVE
    if not _dropped(number, additive) or ctx.tensors.is_tensor(tensor) is not True:
        return
    helper = BY_KEY[KEY].helper
    call = f"{helper}({function}, {ctx.segment(tensor)}, {ctx.segment(number_node)})"
    helpers = tuple(Helper(f"_onnx_{k}", helper_source(k)) for k in helper_chain(KEY))
    fix = Fix(f"Rewrite to `{call}`", (ctx.replace(node, call),), True, imports=("torch",), helpers=helpers)
    message = MESSAGE.format(spelled=ctx.segment(node), number=number, identity="0" if additive else "1",
                             name=function.removeprefix("torch."), helper=helper)
    yield ctx.report(rule, node, message, fix=fix, exporters=("dynamo",))


def _operands(node: ast.BinOp | ast.Call, ctx: FunctionContext) -> tuple[str, ast.expr, ast.expr, object] | None:
    """(torch function, tensor operand, number operand, its value) of a binary arithmetic op."""
    if isinstance(node, ast.BinOp):
        function = BINARY.get(type(node.op))
        pairs = [(node.left, node.right)] + ([(node.right, node.left)] if function in COMMUTATIVE else [])
    elif node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    elif ctx.qualname(node.func) in BINARY.values() and len(node.args) == 2:
        function, pairs = ctx.qualname(node.func), [(node.args[0], node.args[1])]
    elif isinstance(node.func, ast.Attribute) and ctx.qualname(node.func) is None and len(node.args) == 1 \
            and f"torch.{node.func.attr}" in BINARY.values():
        function, pairs = f"torch.{node.func.attr}", [(node.func.value, node.args[0])]
    else:
        return None
    for tensor, number_node in pairs if function else ():
        number = _number(number_node, ctx)
        if isinstance(number, float):
            return function, tensor, number_node, number
    return None


def _dropped(number: float, additive: bool) -> bool:
    """What the rule's math.isclose takes for the identity, and is not exactly it: compared as the
    float32 constant the exporter writes for a float32 model (1.000000035e-8 rounds to within 1e-8,
    `1 - 1e-5` to just outside 1e-5 of 1)."""
    number = struct.unpack("f", struct.pack("f", number))[0] if abs(number) < 3e38 else number
    if additive:
        return number != 0.0 and abs(number) <= 1e-8
    return number != 1.0 and abs(number - 1.0) <= 1e-5 * max(abs(number), 1.0)


FOLDED = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
          ast.Pow: operator.pow}


def _number(node: ast.expr, ctx: FunctionContext, depth: int = 0):
    """The number a literal, a constant expression (`1 - 1e-6`, `-1e-9`, `1 / 1e9`) or a name holding
    one is; None otherwise."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, (int, float)) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and depth < 8:
        value = _number(node.operand, ctx, depth + 1)
        return None if value is None else (-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BinOp) and type(node.op) in FOLDED and depth < 8:
        left, right = _number(node.left, ctx, depth + 1), _number(node.right, ctx, depth + 1)
        if isinstance(node.op, ast.Pow) and not (isinstance(right, (int, float)) and abs(right) <= 64):
            return None  # `10 ** -9` folds; `9 ** 9 ** 9` is no epsilon, and would not finish
        try:
            return None if left is None or right is None else FOLDED[type(node.op)](left, right)
        except (ArithmeticError, ValueError):
            return None
    if isinstance(node, (ast.Name, ast.Attribute)) and depth == 0:
        value = held_literal(node, ctx)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None  # or unresolved
    return None
