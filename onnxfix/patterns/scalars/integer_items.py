"""`int()` of an integer tensor, read as `.item()` instead.

`Tensor.item()` of an integer dtype is already a Python int, the one `int(t)` / `int(t.item())`
returns (both raise alike on a tensor of more than one element). Under torch.export the two
differ: `.item()` of a value computed from the data is an unbacked SymInt the graph keeps, while
`int()` asks for its concrete value and stops the export ("Could not extract specialized integer
from data-dependent expression u0": FastPitch's `max_len = int(lens.max().item())`, TFT's
`int(encoder_lengths.max())`, torchani's `int(counts.max())`; measured on torch 2.13). So the
rewrite is exact in eager by construction and can only take torch.export further.

Proof of an integer dtype: a cast in the expression (`.long()`, `.int()`, `.to(torch.int64)`), an op
whose result is int64 whatever its input (`argmax`, `nonzero`, `searchsorted`, ...), a sum of a bool
tensor (`(x > 0).sum()`), or a name a recorded run (`onnxfix export --fix`) saw hold integer tensors
only, through the methods and arithmetic that keep an integer dtype. Never a bool tensor: its
`.item()` is True, not 1.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix

INTEGER_DTYPES = frozenset({"int64", "int32", "int16", "int8", "uint8"})
INTEGER_CASTS = frozenset({"long", "int", "short"})
TORCH_INTEGER_DTYPES = frozenset(f"torch.{name}" for name in (*INTEGER_DTYPES, "long", "int", "short"))
# methods whose result keeps an integer receiver's integer dtype (a full max/min reduction: with a
# dim they return a (values, indices) pair)
KEEPS_INTEGER = frozenset({
    "max", "min", "amax", "amin", "sum", "prod", "abs", "neg", "squeeze", "unsqueeze", "flatten", "reshape",
    "view", "clone", "detach", "cpu", "contiguous", "cumsum",
})
INTEGER_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
# ops whose result is int64 whatever their input (torch.x or Tensor.x)
INDEX_RESULTS = frozenset({"argmax", "argmin", "argsort", "nonzero", "count_nonzero", "bucketize", "searchsorted"})
# ops whose result is a bool tensor: a sum or count of it is int64
BOOL_RESULTS = frozenset({"bool", "isnan", "isinf", "isfinite", "logical_not", "logical_and", "logical_or",
                          "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "isin"})


def integer_item_text(cast: ast.Call, ctx: FunctionContext) -> str | None:
    """For `int(t)` or `int(t.item())` of a tensor `t` proven integer: `t.item()`, the same int
    in eager that torch.export keeps symbolic; None otherwise (and in code TorchScript compiles,
    where `.item()` is typed a number, not an int)."""
    if ctx.compiled_by_torchscript or builtin_call(cast, ctx, frozenset({"int"})) is None:
        return None
    if len(cast.args) != 1 or cast.keywords:
        return None
    argument = cast.args[0]
    if _item_call(argument):
        return ctx.segment(argument) if integer_tensor(argument.func.value, ctx) else None
    if ctx.tensors.is_tensor(argument) and integer_tensor(argument, ctx):
        return f"{operand(ctx.segment(argument), argument, ATOM)}.item()"
    return None


def integer_item_fix(cast: ast.AST, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """The fix reading `int(t)` / `int(t.item())` of an integer tensor as `t.item()` (safe: the
    same int), and the words the finding adds, where the legacy exporter has no fix of its own."""
    if not isinstance(cast, ast.Call):
        return None
    text = integer_item_text(cast, ctx)
    if text is None:
        return None
    fix = Fix("Read the integer with `.item()`", (ctx.replace(cast, text),), safe=True)
    return fix, ("; torch.export stops on `int()` of a value from the data (\"Could not extract specialized "
                 f"integer\"): `{text}` is the same int and stays symbolic")


def integer_tensor(node: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
    """``node`` is a tensor of an integer dtype: cast to one, or computed by dtype-keeping
    methods, indexing and integer arithmetic from a name the run saw hold integer tensors only."""
    if depth > 12:
        return False
    if isinstance(node, ast.Name):
        return ctx.tensors.dtype(node) in INTEGER_DTYPES
    if isinstance(node, ast.Subscript):
        return integer_tensor(node.value, ctx, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, INTEGER_ARITHMETIC):
        sides = (node.left, node.right)
        return (any(integer_tensor(side, ctx, depth + 1) for side in sides)
                and all(_int_literal(side) or integer_tensor(side, ctx, depth + 1) for side in sides))
    if isinstance(node, ast.Call) and (ctx.qualname(node.func) or "").rpartition(".")[0] == "torch":
        name = ctx.qualname(node.func).rpartition(".")[2]  # torch.argmax(x), torch.sum(x > 0)
        if name in INDEX_RESULTS and not any(k.arg == "dtype" for k in node.keywords):
            return True
        return name == "sum" and len(node.args) >= 1 and not node.keywords and _bool_tensor(node.args[0], ctx)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    method, receiver = node.func.attr, node.func.value
    if method in INDEX_RESULTS and ctx.tensors.is_tensor(receiver):
        return True  # `logits.argmax()`, `(x > 0).nonzero()`
    if method == "sum" and not node.keywords and _bool_tensor(receiver, ctx):
        return True  # `(lengths > 0).sum()`, `mask.bool().sum()`: a bool sum is int64
    if ctx.tensors.is_tensor(receiver) is False:
        return False  # a NumPy array's `.max()`
    if method in INTEGER_CASTS and not node.args and not node.keywords:
        return True
    if method == "to" and node.args and not node.keywords and ctx.qualname(node.args[0]) in TORCH_INTEGER_DTYPES:
        return True
    if method in ("max", "min") and (node.args or node.keywords):
        return False
    if any(k.arg == "dtype" for k in node.keywords) or any(ctx.qualname(a) for a in node.args):
        return False  # `t.sum(dtype=torch.float32)`, `t.view(torch.float32)`: another dtype
    return method in KEEPS_INTEGER and integer_tensor(receiver, ctx, depth + 1)


def _bool_tensor(node: ast.expr, ctx: FunctionContext) -> bool:
    """A comparison of a tensor, a bool op on one (`~m`, `m & n`, `.isnan()`), or a name the run saw
    hold bool tensors only."""
    if isinstance(node, ast.Name):
        return ctx.tensors.dtype(node) == "bool"
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and not isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
        return bool(ctx.tensors.is_tensor(node.left) or ctx.tensors.is_tensor(node.comparators[0]))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _bool_tensor(node.operand, ctx)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _bool_tensor(node.left, ctx) and _bool_tensor(node.right, ctx)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in BOOL_RESULTS:
        return bool(ctx.tensors.is_tensor(node.func.value))
    if isinstance(node, ast.Call) and (ctx.qualname(node.func) or "").rpartition(".")[::2] in (
            ("torch", name) for name in BOOL_RESULTS):
        return True
    return False


def _item_call(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item"
            and not node.args and not node.keywords)


def _int_literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int
