"""What the ONX2xx rules ask of a Python value taken out of a tensor: whether keeping the tensor
instead computes the same where it is used (uses.py tells how it is used)."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.patterns.scalars.clamp_bounds import CLAMP_UNSAFE
from onnxfix.patterns.scalars.integer_items import integer_item_text
from onnxfix.patterns.scalars.uses import CONDITION_PARENTS, is_none_test, item_use, scalar_size
from onnxfix.rewriter.config_numbers import is_config_number
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import in_place_of, precedence
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import enclosing_statement
from onnxfix.rewriter.tree_walk import walk
from onnxfix.rewriter.type_tests import runs_later


# Elementwise math that keeps "a tensor of Python values" one (``torch.tensor(r).log2().round()``).
ELEMENTWISE_MATH = frozenset({
    "log", "log2", "log10", "exp", "sqrt", "round", "floor", "ceil", "abs", "neg", "float", "double", "int",
    "long", "to", "reciprocal", "sigmoid", "clamp", "pow",
})


def python_values_tensor(node: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
    """A tensor built in this expression from Python values (``torch.tensor(approx_scale)``,
    torchvision's pooler scale), then elementwise math on it: taking the number back out with
    `.item()`/`float()` returns a Python value computed from Python values, so there is nothing
    left to bake in here (a size among those values is reported where it is taken)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and depth <= 8:
        return python_values_tensor(node.operand, ctx, depth + 1)
    if depth > 8 or not isinstance(node, ast.Call):
        return False
    qualname = ctx.qualname(node.func) or ""
    if qualname in ("torch.tensor", "torch.as_tensor"):
        return bool(node.args) and not _mentions_tensor(node.args[0], ctx)
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("new_tensor", "new_full"):  # `x.new_tensor(v)`
        return bool(node.args) and all(not _mentions_tensor(a, ctx) for a in node.args)
    if qualname.startswith("torch."):  # torch.log2(t): a function, not a method of `torch`
        return (
            qualname.rsplit(".", 1)[-1] in ELEMENTWISE_MATH and bool(node.args)
            and all(not _mentions_tensor(a, ctx) for a in node.args[1:])
            and python_values_tensor(node.args[0], ctx, depth + 1)
        )
    if isinstance(node.func, ast.Attribute) and node.func.attr in ELEMENTWISE_MATH:
        return all(not _mentions_tensor(a, ctx) for a in node.args) and python_values_tensor(node.func.value, ctx, depth + 1)
    return False


def _mentions_tensor(node: ast.expr, ctx: FunctionContext) -> bool:
    """Any part of ``node`` that is (or may be) a tensor: only literals, Python names the oracle
    does not take for tensors, and arithmetic on those are Python values."""
    for part in walk(node):
        if isinstance(part, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and ctx.tensors.is_tensor(part):
            return True
        if isinstance(part, ast.Call) and not (isinstance(part.func, ast.Name) and part.func.id in ("float", "int")):
            return True  # a call we cannot see into
    return False


# Run-time evidence (rewriter/evidence.py) can prove that a 0-d tensor in place of the Python
# number it holds computes the same. Only these dtypes: the number round-trips exactly, and
# the operators below compute with it the same way whether it is a wrapped Python scalar or a
# 0-d tensor (both are CPU scalars of the kernel).
EXACT_SCALAR_DTYPES = frozenset({"float32", "float64", "int64"})
EXACT_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def tensor_operand_is_exact(receiver: ast.expr, use: ast.expr, ctx: FunctionContext) -> bool:
    """``use`` (a Python number taken out of the tensor ``receiver``) is an operand of tensor
    arithmetic, and the recorded run proves that the tensor in its place gives the same result:
    ``receiver`` was always a 0-d tensor of dtype D, the other operand a tensor, and the other
    operand or the result always of dtype D (so type promotion picks D either way)."""
    dtype = ctx.tensors.scalar_dtype(receiver)
    parent = ctx.parent(use)
    if dtype not in EXACT_SCALAR_DTYPES or not isinstance(parent, ast.BinOp) or not isinstance(parent.op, EXACT_OPERATORS):
        return False
    if isinstance(parent.op, ast.Div) and parent.left is use:
        return False  # `number / t` runs as `t.reciprocal() * number`: other rounding
    other = parent.right if parent.left is use else parent.left
    return bool(ctx.tensors.is_tensor(other)) and dtype in (ctx.tensors.dtype(other), ctx.tensors.dtype(parent))


EXACT, UNSAFE = "exact", "unsafe"
# Reductions that return a 0-d tensor when called with no argument (`lengths.max()`).
FULL_REDUCTIONS = frozenset({
    "max", "min", "sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "all", "any", "norm",
    "count_nonzero", "median", "nansum", "nanmean", "logsumexp",
})
# Integer arithmetic that keeps a size a size: `target - x.shape[-1]`, `n // 2`.
SIZE_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)
UNSAFE_BECAUSE = {
    "scalar size": "`torch.arange` takes a 0-d tensor but not a one-element tensor of higher rank",
    "tensor operand": "a 0-d tensor takes part in type promotion differently from a Python number",
    "size arithmetic": "arithmetic on the tensor keeps its dtype, and a narrow integer such as uint8 wraps where a Python int does not",
    "clamp bound": CLAMP_UNSAFE,
}


def python_use(node: ast.expr, kind: str, ctx: FunctionContext) -> str:
    """What a use of a Python number that no tensor can take the place of does, for the
    message: "returned", "passed to `print`", ..."""
    if kind == "condition":
        return "used in a condition or loop bound"
    parent = ctx.parent(node)
    if isinstance(parent, ast.Tuple) and isinstance(ctx.parent(parent), ast.Return):
        parent = ctx.parent(parent)
    if isinstance(parent, ast.Return):
        return "returned"
    if isinstance(parent, ast.Compare):
        return "compared"
    if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.AugAssign)):
        return "used in arithmetic with a value not known to be a tensor"
    if isinstance(parent, ast.keyword):
        parent = ctx.parent(parent)
    if isinstance(parent, ast.Call) and node is not parent.func:
        return f"passed to `{ctx.segment(parent.func)}`"
    if isinstance(parent, ast.Tuple) and isinstance(ctx.parent(parent), ast.Assign) and ctx.parent(parent).value is parent:
        return "unpacked into names"
    if isinstance(parent, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return "put in a container"
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        return f"stored in `{', '.join(ctx.segment(t) for t in targets)}`"
    return "used where a tensor may not act as the number does"


def is_zero_dim(node: ast.expr, ctx: FunctionContext) -> bool:
    """``node`` is a 0-d tensor (or a NumPy scalar) whatever the input: a full reduction with no
    argument (`lengths.max()`), or a recorded run saw only 0-d tensors there."""
    if ctx.tensors.scalar_dtype(node) is not None:
        return True
    if not isinstance(node, ast.Call) or node.args or node.keywords:
        return False
    func = node.func
    return (
        isinstance(func, ast.Attribute) and func.attr in FULL_REDUCTIONS and ctx.qualname(func) is None
        and ctx.tensors.is_tensor(func.value) is not False
    )


def tensor_in_place(use: ast.expr, receiver: ast.expr, ctx: FunctionContext, depth: int = 0) -> tuple[str | None, str]:
    """Whether the tensor ``receiver`` in place of ``use`` (the Python number taken out of it)
    computes the same there: (EXACT, UNSAFE or None, the kind of use)."""
    if is_none_test(use, ctx):
        return EXACT, "none test"  # a tensor is no more None than a number is
    kind = item_use(use, ctx)
    if kind == "size":
        if scalar_size(use, ctx) and not is_zero_dim(receiver, ctx):
            return UNSAFE, "scalar size"
        return EXACT, "size"  # an int argument takes a 0-d or one-element integer tensor
    if kind == "arithmetic":
        return (EXACT if tensor_operand_is_exact(receiver, use, ctx) else UNSAFE), "tensor operand"
    if kind == "clamp bound":
        return UNSAFE, kind  # clamp_min(Tensor) then clamp_max(Scalar): other overloads, other promotion
    parent = ctx.parent(use)
    if kind == "other" and isinstance(parent, ast.BinOp) and isinstance(parent.op, NUMBER_ARITHMETIC) and depth < 4 \
            and _plain_number(parent.right if parent.left is use else parent.left, ctx):
        # `x - (x.max().item() - self.floor)`: the tensor minus the number is the operand of tensor
        # arithmetic, computed in the tensor's dtype where Python computed in double: unsafe. As
        # one bound of a clamp beside a number (torchlibrosa's `clamp(x, min=t - top_db,
        # max=np.inf)`), the clamp is split (clamp_bounds.py)
        outer = tensor_in_place(parent, receiver, ctx, depth + 1)[1]
        if outer == "clamp bound" or (outer == "tensor operand" and isinstance(ctx.parent(parent), ast.BinOp)):
            return UNSAFE, outer
    if kind == "other" and isinstance(parent, ast.BinOp) and isinstance(parent.op, SIZE_ARITHMETIC) and depth < 4:
        other = parent.right if parent.left is use else parent.left
        if ctx.ints.is_int(other) and tensor_in_place(parent, receiver, ctx, depth + 1)[1] in (
            "size", "scalar size", "size arithmetic"
        ):
            # a Python int stays a Python int; the tensor keeps its dtype (and can wrap)
            return (EXACT if ctx.tensors.scalar_dtype(receiver) == "int64" else UNSAFE), "size arithmetic"
    return None, kind


NUMBER_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _plain_number(node: ast.expr, ctx: FunctionContext) -> bool:
    """A number literal, or a number the module's `__init__` configured (`self.top_db`)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    return is_config_number(node, ctx)


def assigned_name(value: ast.expr, ctx: FunctionContext) -> str | None:
    """The name ``value`` is assigned to: `n = value`, or `n = a if c else value` (WeNet's
    `max_len = max_len if max_len > 0 else lengths.max().item()`)."""
    node, parent = value, ctx.parent(value)
    while (isinstance(parent, ast.IfExp) and node is not parent.test) or shifted_by_int(parent, node):
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1:
        target = parent.targets[0]
        if isinstance(target, ast.Name):
            return target.id
    return None


def shifted_by_int(parent: ast.AST | None, node: ast.AST) -> bool:
    """`value + 1`, `1 + value`, `value - 1`: torch-dftd's `n_graphs = int(batch[-1]) + 1`, where
    the tensor plus an int literal stands in for the number plus it."""
    if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub))):
        return False
    other = parent.right if parent.left is node else parent.left
    return isinstance(other, ast.Constant) and type(other.value) is int and (
        parent.left is node or isinstance(parent.op, ast.Add))


def name_as_tensor(call: ast.expr, receiver: ast.expr, ctx: FunctionContext,
                   while_traced: bool = False) -> tuple[str | None, str]:
    """``name = t.item()`` (or ``float(t)``, ``int(t)``): whether ``name = t`` computes the
    same at every use of ``name`` in the function: (EXACT or UNSAFE, why unsafe) or (None, why
    no fix). Uses inside the assigned expression see the name's previous value and are skipped;
    every other use is checked, including those that may see another assignment's value (each
    must accept the tensor in place of the number anyway). ``while_traced``: the tensor stands in
    only while the legacy exporter traces, so the uses it never runs are skipped too (HSTU's
    `if torch.compiler.is_compiling(): torch._check_is_size(max_len)`)."""
    name = assigned_name(call, ctx)
    if name is None:
        return None, ""
    statement = enclosing_statement(call, ctx)
    inside = {id(n) for n in walk(statement)}
    inside |= {id(n) for n in _reads_before(statement, ctx)}  # NeMo's `if not max_len:` before it is bound
    uses = []
    for node in walk(ctx.fn.node):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return None, f"`{name}` is declared {type(node).__name__.lower()}"
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return None, f"`{name}` is updated in place at line {node.lineno}"
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and id(node) not in inside \
                and not (while_traced and LEGACY in ctx.exporters_skipping(node)):
            uses.append(node)
    if not uses:
        return None, f"`{name}` is not used"
    unsafe = ""
    for use in sorted(uses, key=lambda u: (u.lineno, u.col_offset)):
        verdict, kind = tensor_in_place(use, receiver, ctx)
        if verdict is None:
            return None, f"`{name}` at line {use.lineno} is {python_use(use, kind, ctx)}"
        if verdict == UNSAFE and not unsafe:
            unsafe = f"at line {use.lineno}, {UNSAFE_BECAUSE[kind]}"
    return (UNSAFE, unsafe) if unsafe else (EXACT, "")


def _reads_before(statement: ast.stmt, ctx: FunctionContext) -> list[ast.AST]:
    """Everything before ``statement`` when no loop holds it: those reads see earlier values of
    the name only (the parameter NeMo's `if not max_len:` tests before `max_len = ....item()`)."""
    if any(isinstance(a, (ast.For, ast.AsyncFor, ast.While)) for a in ctx.ancestors(statement)):
        return []
    start = (statement.lineno, statement.col_offset)
    # a lambda, a nested def or a generator before the binding may run after it: its reads stay
    return [n for n in walk(ctx.fn.node) if hasattr(n, "lineno") and (n.lineno, n.col_offset) < start
            and (getattr(n, "end_lineno", n.lineno), getattr(n, "end_col_offset", 0)) <= start
            and not runs_later(n, ctx)]


def is_condition_test(node: ast.AST, ctx: FunctionContext) -> bool:
    """``node`` decides a branch: the test of if/while/assert/x-if-else, or inside its and/or/not."""
    child: ast.AST = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, CONDITION_PARENTS) and getattr(ancestor, "test", None) is child:
            return True
        if not isinstance(ancestor, (ast.BoolOp, ast.UnaryOp)):
            return False
        child = ancestor
    return False


def in_error_message(node: ast.AST, ctx: FunctionContext) -> bool:
    """Inside an f-string or a `raise`: runs only to word an error, not to compute outputs."""
    return any(isinstance(a, (ast.JoinedStr, ast.Raise)) for a in ctx.ancestors(node))


def replace_call_by_argument(node: ast.Call, ctx: FunctionContext):
    """An edit replacing ``f(arg)`` by ``arg``, parenthesized where the context needs it."""
    argument = node.args[0]
    text = in_place_of(ctx.parent(node), node, ctx.segment(argument), precedence(argument))
    return ctx.replace(node, text)


TRACING_ONLY = "Keep the tensor while tracing"


def while_tracing(node: ast.expr, kept: str, ctx: FunctionContext) -> Fix:
    """`(t if torch.jit.is_tracing() else int(t))`: the tensor ``kept`` only where the legacy
    exporter traces (its graph then computes the value), ``node`` (the number) everywhere else:
    eager computes what it computed (safe by construction), and torch.export keeps the number,
    which it exports where a tensor in a size argument fails (RLlib's `torch.ones((B, maxlen))`).
    `int()` of an integer tensor is written `t.item()` there: the same int, which torch.export
    keeps symbolic where `int()` of a value from the data stops it (integer_items.py)."""
    torch_name, imports = ctx.torch_name()
    number = integer_item_text(node, ctx) if isinstance(node, ast.Call) else None
    text = f"({kept} if {torch_name}.jit.is_tracing() else {number or ctx.segment(node)})"
    return Fix(TRACING_ONLY, (ctx.replace(node, text),), safe=True, imports=imports)
