"""ONX2xx: tensors turned into Python values (`.item()`, ...)."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import ATOM, TERM, UNARY, in_place_of, operand, precedence
from onnxfix.rewriter.rule import DYNAMO, LEGACY, Fix, Rule, RuleDoc
from onnxfix.rewriter.tensors import is_whole_shape

# Methods whose positional arguments are sizes (accept 0-d integer tensors in eager).
SIZE_METHODS = frozenset(
    {"reshape", "view", "expand", "repeat", "new_zeros", "new_ones", "new_empty", "narrow", "tile", "unflatten"}
)
# torch functions whose positional arguments are sizes.
SIZE_FUNCTIONS = frozenset(
    {"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.arange", "torch.eye"}
)
# Calls whose scalar arguments also accept a 0-d tensor (with tensor type promotion).
TENSOR_SCALAR_FUNCTIONS = frozenset(
    {"torch.full", "torch.clamp", "torch.clip", "torch.where", "torch.pow", "torch.add", "torch.mul", "torch.sub", "torch.div"}
)
TENSOR_SCALAR_METHODS = frozenset({"masked_fill", "clamp", "clip", "fill_", "pow", "add", "mul", "sub", "div", "lerp"})
CONDITION_PARENTS = (ast.If, ast.While, ast.IfExp, ast.Assert)


# Calls with one size argument at a fixed place: (positional index, keyword name). The int
# arguments accept a 0-d (or one-element) integer tensor and mean the same (measured on torch
# 2.13: topk's k, F.pad's amounts).
SIZE_ARGUMENT_METHODS = {"topk": (0, "k")}
SIZE_ARGUMENT_FUNCTIONS = {"torch.topk": (1, "k"), "torch.nn.functional.pad": (1, "pad")}
# Size functions whose arguments are Scalars, not ints: they take a 0-d tensor but not a
# one-element tensor of higher rank (`torch.arange(torch.tensor([3]))` raises, measured).
SCALAR_SIZE_FUNCTIONS = frozenset({"torch.arange"})


def _size_argument(holder: ast.Call, container: ast.AST, ctx: FunctionContext) -> bool:
    """``container`` (the value or the tuple/list holding it) is a size argument of ``holder``."""
    func = holder.func
    qualname = ctx.qualname(func)
    if container in holder.args:
        if isinstance(func, ast.Attribute) and func.attr in SIZE_METHODS:
            return True
        if qualname in SIZE_FUNCTIONS:
            return True
    place = SIZE_ARGUMENT_FUNCTIONS.get(qualname or "")
    if place is None and isinstance(func, ast.Attribute) and qualname is None and ctx.tensors.is_tensor(func.value) is not False:
        place = SIZE_ARGUMENT_METHODS.get(func.attr)
    if place is None:
        return False
    index, keyword = place
    if index < len(holder.args) and holder.args[index] is container:
        return True
    return any(k.arg == keyword and k.value is container for k in holder.keywords)


def item_use(node: ast.expr, ctx: FunctionContext) -> str:
    """How the Python number ``node`` is used: 'condition', 'size', 'arithmetic' or 'other'."""
    child: ast.AST = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, CONDITION_PARENTS) and getattr(ancestor, "test", None) is child:
            return "condition"
        if isinstance(ancestor, ast.stmt):
            break
        child = ancestor
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "range":
        return "condition"  # a loop bound is control flow too
    if isinstance(parent, ast.Slice):
        return "size"
    container = parent if isinstance(parent, (ast.Tuple, ast.List)) else node
    holder = ctx.parent(container)
    if isinstance(holder, ast.keyword):
        holder = ctx.parent(holder)
    if isinstance(holder, ast.Call) and _size_argument(holder, container, ctx):
        return "size"
    if isinstance(parent, ast.BinOp):
        other = parent.right if parent.left is node else parent.left
        if ctx.tensors.is_tensor(other):
            return "arithmetic"
    if isinstance(parent, ast.keyword):
        parent = ctx.parent(parent)
    if isinstance(parent, ast.Call) and node is not parent.func:
        func = parent.func
        if ctx.qualname(func) in TENSOR_SCALAR_FUNCTIONS or (
            isinstance(func, ast.Attribute) and func.attr in TENSOR_SCALAR_METHODS and ctx.tensors.is_tensor(func.value)
        ):
            return "arithmetic"
    return "other"


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
    for part in ast.walk(node):
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


def _scalar_size(node: ast.expr, ctx: FunctionContext) -> bool:
    """``node`` (or the tuple/list holding it) is an argument of `torch.arange` (a Scalar)."""
    parent = ctx.parent(node)
    container = parent if isinstance(parent, (ast.Tuple, ast.List)) else node
    holder = ctx.parent(container)
    if isinstance(holder, ast.keyword):
        holder = ctx.parent(holder)
    return isinstance(holder, ast.Call) and ctx.qualname(holder.func) in SCALAR_SIZE_FUNCTIONS


def tensor_in_place(use: ast.expr, receiver: ast.expr, ctx: FunctionContext, depth: int = 0) -> tuple[str | None, str]:
    """Whether the tensor ``receiver`` in place of ``use`` (the Python number taken out of it)
    computes the same there: (EXACT, UNSAFE or None, the kind of use)."""
    kind = item_use(use, ctx)
    if kind == "size":
        if _scalar_size(use, ctx) and not is_zero_dim(receiver, ctx):
            return UNSAFE, "scalar size"
        return EXACT, "size"  # an int argument takes a 0-d or one-element integer tensor
    if kind == "arithmetic":
        return (EXACT if tensor_operand_is_exact(receiver, use, ctx) else UNSAFE), "tensor operand"
    parent = ctx.parent(use)
    if kind == "other" and isinstance(parent, ast.BinOp) and isinstance(parent.op, SIZE_ARITHMETIC) and depth < 4:
        other = parent.right if parent.left is use else parent.left
        if ctx.ints.is_int(other) and tensor_in_place(parent, receiver, ctx, depth + 1)[1] in (
            "size", "scalar size", "size arithmetic"
        ):
            # a Python int stays a Python int; the tensor keeps its dtype (and can wrap)
            return (EXACT if ctx.tensors.scalar_dtype(receiver) == "int64" else UNSAFE), "size arithmetic"
    return None, kind


def assigned_name(value: ast.expr, ctx: FunctionContext) -> str | None:
    """The name ``value`` is assigned to: `n = value`, or `n = a if c else value` (WeNet's
    `max_len = max_len if max_len > 0 else lengths.max().item()`)."""
    node, parent = value, ctx.parent(value)
    while isinstance(parent, ast.IfExp) and node is not parent.test:
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1:
        target = parent.targets[0]
        if isinstance(target, ast.Name):
            return target.id
    return None


def name_as_tensor(call: ast.expr, receiver: ast.expr, ctx: FunctionContext) -> tuple[str | None, str]:
    """``name = t.item()`` (or ``float(t)``, ``int(t)``): whether ``name = t`` computes the
    same at every use of ``name`` in the function: (EXACT or UNSAFE, why unsafe) or (None, why
    no fix). Uses inside the assigned expression see the name's previous value and are skipped;
    every other use is checked, including those that may see another assignment's value (each
    must accept the tensor in place of the number anyway)."""
    name = assigned_name(call, ctx)
    if name is None:
        return None, ""
    statement = next(a for a in ctx.ancestors(call) if isinstance(a, ast.stmt))
    inside = {id(n) for n in ast.walk(statement)}
    uses = []
    for node in ast.walk(ctx.fn.node):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return None, f"`{name}` is declared {type(node).__name__.lower()}"
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return None, f"`{name}` is updated in place at line {node.lineno}"
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and id(node) not in inside:
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


class ItemCall(Rule):
    code = "ONX201"
    python_hazard = True  # scripted code keeps it dynamic (tests/test_export_guards.py)
    triggers = ("item",)
    name = "tensor-item"
    summary = "`.item()` turns a tensor into a Python number"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    doc = RuleDoc(
        what="""
            Finds `tensor.item()` in code that runs under export and classifies the use: as a
            size (`x.reshape(n.item(), -1)`, `torch.zeros(n.item())`, a slice bound, topk's `k`,
            `F.pad`'s amounts), in tensor arithmetic (`x * s.item()`), in a condition
            (`if t.item() > 0:`), or elsewhere. A number assigned to a name (`k = t.item()`,
            also as a branch of `n = n if n > 0 else t.item()`) is classified at every use of
            the name in the function.
            A tensor built in the same expression from Python values and only put through
            elementwise math (`-torch.log2(torch.tensor(scale)).item()`, torchvision's
            poolers) is not reported: the number taken out was computed from Python values.
        """,
        why="""
            The legacy exporter records the Python number as a constant (TracerWarning
            "Converting a tensor to a Python number"): `reshape(n.item(), -1)` exported with
            n=2 always reshapes to 2 rows. Measured on torch 2.13 it is silently wrong on every
            other input. The dynamo exporter handles sizes and arithmetic through unbacked
            SymInts but cannot branch on the value: `if x.sum().item() > 0:` fails with
            `GuardOnDataDependentSymNode`.
        """,
        example="""
            def forward(self, x, n, s):
                return x.reshape(n.item(), -1) * s.item()
        """,
        use_instead="""
            def forward(self, x, n, s):
                return x.reshape(n, -1) * s
        """,
        fix_safety="""
            As a size, dropping `.item()` is safe: int size arguments (reshape/view/expand/zeros
            and the like, topk's `k`, `F.pad`'s amounts) and slice bounds accept a 0-d or
            one-element integer tensor and mean the same (a float raises either way; measured
            on torch 2.13; not checked: a bool tensor, whose `.item()` is a valid size and which
            raises as one). `torch.arange` takes Scalars: a 0-d tensor but not a one-element
            tensor of higher rank, so there it is safe only for a receiver that is 0-d whatever
            the input (a full reduction such as `lengths.max()`), unsafe otherwise. In
            arithmetic with a tensor it is unsafe: a 0-d
            tensor takes part in type promotion differently from a Python number (int32 tensor
            times a 0-d float64 tensor is float64, times a Python float is float32), and a
            one-element tensor of higher rank would broadcast. In conditions and other Python
            uses there is no fix here (see the control-flow rules).
            `name = t.item()` becomes `name = t` when every use of `name` in the function (uses
            inside the assigned expression itself see the previous value and are skipped) takes
            the tensor: the fix is safe when every use is exact as above, unsafe when some use
            is only unsafe as above or is integer arithmetic feeding a size
            (`F.pad(x, (0, target - x.shape[-1]))`: the tensor keeps its dtype, and a uint8
            value wraps where a Python int does not), and absent when `name` is used in a
            condition, updated in place (`name += 1`), declared global, or used anywhere else
            (returned, passed on, compared); the message names the line and the reason.
            With run-time evidence (`onnxfix export --fix`), keeping the tensor is safe where the
            recorded run proves it exact: the receiver was always a 0-d float32/float64/int64
            tensor of dtype D, the number is an operand of `+`, `-`, `*` or `/` (not the
            dividend: `n / t` runs as `t.reciprocal() * n`) with a tensor, and that tensor or
            the result was always of dtype D. `s = t.item()` whose every use is such arithmetic
            (or an exact size) becomes `s = t` safely; integer arithmetic feeding a size is
            exact when the receiver was always a 0-d int64 tensor.
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
            "https://github.com/pytorch/pytorch/issues/42966",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "item" and not node.args and not node.keywords):
            return
        use = item_use(node, ctx)
        if ctx.tensors.is_tensor(func.value) is False or python_values_tensor(func.value, ctx):
            return
        drop = ctx.delete_suffix(func, node)
        verdict, kind = tensor_in_place(node, func.value, ctx)
        if use == "size":
            fix = Fix("Pass the tensor itself as the size", (drop,), safe=verdict == EXACT)
            message = "`.item()` used as a size: the legacy exporter bakes the value in as a constant; pass the tensor"
            if verdict == UNSAFE:
                message += f" (unsafe: {UNSAFE_BECAUSE[kind]})"
            exporters = (LEGACY,)
        elif use == "arithmetic":
            fix = Fix("Keep the value as a 0-d tensor", (drop,), safe=tensor_operand_is_exact(func.value, node, ctx))
            message = "`.item()` as a tensor operand: the legacy exporter bakes the value in as a constant; keep it a tensor"
            exporters = (LEGACY,)
        elif kind == "size arithmetic":  # `F.pad(x, (0, n.item() - w))`
            fix = Fix("Pass the tensor itself into the size", (drop,), safe=verdict == EXACT)
            message = (
                "`.item()` in arithmetic giving a size: the legacy exporter bakes the value in as a constant; "
                "keep it a tensor" + ("" if verdict == EXACT else f" (unsafe: {UNSAFE_BECAUSE[kind]})")
            )
            exporters = (LEGACY,)
        elif use == "condition":
            fix = None
            message = (
                "`.item()` in a condition: the legacy exporter freezes the branch taken at export time "
                "and the dynamo exporter fails (GuardOnDataDependentSymNode)"
            )
            exporters = (LEGACY, DYNAMO)
        else:
            fix = None
            message = "`.item()` turns a tensor into a Python number: the legacy exporter bakes it in as a constant"
            verdict, why = name_as_tensor(node, func.value, ctx)  # `s = t.item()`, then uses of s
            if verdict is not None:
                name = assigned_name(node, ctx)
                fix = Fix(f"Keep `{name}` a 0-d tensor", (drop,), safe=verdict == EXACT)
                message = (
                    f"`.item()` assigned to `{name}`: the legacy exporter bakes the value in as a constant; "
                    f"keep `{name}` a tensor" + (f" (unsafe: {why})" if why else "")
                )
            else:
                message += f" (no fix: {why or 'the number is ' + python_use(node, use, ctx)})"
            exporters = (LEGACY,)
        yield ctx.report(self, node, message, fix=fix, exporters=exporters)



def builtin_call(node: ast.AST, ctx: FunctionContext, names: frozenset[str]) -> str | None:
    """The name of a builtin from ``names`` called with plain positional arguments."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names):
        return None
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if ctx.scope.lookup(node.func.id) is not None or ctx.scope.is_local(node.func.id):
        return None  # shadowed by an import or a local name
    return node.func.id


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


class TolistCall(Rule):
    code = "ONX202"
    name = "tensor-tolist"
    summary = "`.tolist()` turns a tensor into Python numbers"
    fix_availability = "never"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds `tensor.tolist()` in code that runs under export. Seen in the vision towers
            of Qwen2/2.5/3-VL, GLM-4V and others (`torch.split(t, lengths.tolist(), dim=2)`
            over `cu_seqlens`), and in per-image grid loops (`for t, h, w in grid_thw.tolist()`).
        """,
        why="""
            The legacy exporter records the list as constants (TracerWarning "Converting a
            tensor to a Python list might cause the trace to be incorrect"): `k = s.tolist();
            x * k[0] + k[1]` exported with s=[2, 3] always scales by 2 and adds 3. Measured on
            torch 2.13 (tests/test_values_exporters.py): silently wrong on other values. The
            dynamo exporter captures the values as unbacked SymInts/SymFloats and exports
            correctly, so the finding is shown when the project targets the legacy exporter.
        """,
        example="""
            def forward(self, x: torch.Tensor, s: torch.Tensor):
                k = s.tolist()
                return x * k[0] + k[1]
        """,
        use_instead="""
            def forward(self, x: torch.Tensor, s: torch.Tensor):
                return x * s[0] + s[1]
        """,
        fix_safety="""
            No automatic fix: the list can be indexed, iterated, compared or passed on, and
            keeping the tensor changes each of those uses differently (a 0-d tensor promotes
            types differently from a Python float; iterating a tensor yields tensors).
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
            "https://github.com/pytorch/pytorch/issues/42966",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "tolist" and not node.args and not node.keywords):
            return
        if not ctx.tensors.is_tensor(func.value):
            return  # NumPy arrays and lists also have .tolist(); only a known tensor is reported
        yield ctx.report(
            self, node,
            "`.tolist()` turns a tensor into Python numbers: the legacy exporter records them as constants",
        )


CASTS = frozenset({"int", "float", "bool"})


class ScalarCast(Rule):
    code = "ONX203"
    python_hazard = True  # scripted code keeps it dynamic (tests/test_export_guards.py)
    name = "scalar-cast"
    summary = "`int()`, `float()` or `bool()` of a tensor or of a size expression"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    doc = RuleDoc(
        what="""
            Finds `int(...)`, `float(...)` and `bool(...)` applied to a tensor (`int(n)`,
            `float(scale)`, `bool((x > 0).all())`, also a full reduction such as
            `int(lengths.max())` of a value not known to be something else, as in ESPnet's
            `make_pad_mask`) or to a value computed from tensor sizes
            (`int(x.size(0))`, `int(x.shape[1] / 2)`). Conditions (`if bool(t):`) are left to the
            control-flow rules; casts inside f-strings and `raise` statements (error messages)
            are not reported, nor casts of a tensor built in the same expression from Python
            values (`float(torch.tensor(r).log2().round())`, torchvision's poolers), nor
            sizes of the model's own tensors (a position table's side). Seen in ViT-family position interpolation
            (`height = width = int(seq_length ** 0.5)` in DeiT, Aya Vision, SmolVLM),
            Moonshine's `int((input_lengths - 127) / 64 + 1)` (patched by optimum), and
            `range(int(rois.size(0)))` in torchvision's RoI heads.
        """,
        why="""
            Measured on torch 2.13 (tests/test_values_exporters.py):
            - Legacy exporter: the cast is recorded as a constant (TracerWarning "Converting a
              tensor to a Python integer/float/boolean"). `x.view(int(x.size(0)), -1)` with a
              dynamic batch is silently wrong for every other batch size; `x * float(s)` is
              wrong for every other `s`; `x * bool(t)` fails with an internal assert.
            - Dynamo exporter: `int(t)`, `float(t)`, `bool(t)` and `int(size)` export correctly
              (through its strict fallback), but `int(x.size(1) / 2)` is **silently wrong**:
              the float division specializes the slice end to the export-time value while the
              input dimension stays dynamic (other widths give the wrong output shape).
        """,
        example="""
            def forward(self, x):
                half = x[:, : int(x.size(1) / 2)]
                return half.view(int(x.size(0)), -1)
        """,
        use_instead="""
            def forward(self, x):
                half = x[:, : x.size(1) // 2]
                return half.view(x.size(0), -1)
        """,
        fix_safety="""
            - `int(size)` where the size is provably an integer (`x.size(0)`, `x.shape[1] * 2`,
              `len(t)`, integer arithmetic of those): dropping `int()` is safe, it is the
              identity on ints.
            - `int(a / b)` with `a` and `b` provably non-negative integers (sizes, non-negative
              integer constants, sums/products/floor divisions of those) becomes `a // b`:
              safe. Truncation equals flooring for non-negative quotients, and the float
              division is exact enough: for `0 <= a < 2**53` and `b > 0`,
              `int(a / b) == a // b` (a non-integer quotient is at least `1/b` from the next
              integer, more than the division's rounding error; checked exhaustively for
              `0 <= a < 4096`, `1 <= b < 512` and on random pairs up to 2**40 in
              tests/test_values_exactness.py). With `b == 0` both raise ZeroDivisionError.
            - `int(a * c)` with `a` a provably non-negative integer and `c` a literal power of
              one half (0.5, 0.25, ...) becomes `a // 2**m`: safe. For `0 <= a < 2**53` the
              product is exact (a power-of-two scaling) and truncation equals flooring
              (tests/test_values_exactness.py).
            - `int(t)` / `float(t)` of a tensor used as a size or in arithmetic with a tensor,
              directly or through a name whose every use takes the tensor (`maxlen =
              int(lengths.max())` then `torch.arange(0, maxlen)`; the uses are classified as in
              ONX201, and a name used anywhere else gets no fix, with the reason in the
              message): dropping the cast is unsafe. A 0-d tensor takes part in type promotion
              differently from a Python number, a float tensor is no valid size, and
              `int()` truncates. With run-time evidence (`onnxfix export --fix`) it is safe
              where the run proves it exact: `int(n)` as a size of an `n` that was always a
              0-d int64 tensor; `float(t)` of a 0-d float32/float64 (`int(t)` of an int64)
              tensor in arithmetic that ONX201's evidence rule proves.
            - `float(a) / float(b)` (either cast) with `a` an int size and the other operand an
              int size, `float()` of one or a number literal -> the cast dropped: safe; Python's
              `/` converts an int exactly below 2**53 and int / int is correctly rounded, so the
              float is the same (tests/test_values_exactness.py).
            - Anything else (`float(size)`, `bool(t)`, `int()` of a float size expression that
              is not a plain division, such as `int(n ** 0.5)`): no fix. `int(n ** 0.5)` of a
              dynamic size is silently wrong in the dynamo exporter too (measured), and
              `int(math.sqrt(n))` fails there.
        """,
        references=(
            "https://github.com/idiap/coqui-ai-TTS/pull/390",
            "https://github.com/huggingface/transformers/issues/33181",
            "https://github.com/huggingface/transformers/pull/31311",
            "https://github.com/huggingface/optimum-onnx/blob/1939f27a1d04bd9fdf4c3b17eaa70a99dcd380c6/optimum/exporters/onnx/model_patcher.py",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        cast = builtin_call(node, ctx, CASTS)
        if cast is None or len(node.args) != 1 or in_error_message(node, ctx):
            return
        argument = node.args[0]
        # `int(lengths.max())`: a full reduction is a tensor unless the receiver is not one
        if ctx.tensors.is_tensor(argument) or is_zero_dim(argument, ctx):
            yield from self._tensor_cast(node, cast, ctx)
        elif ctx.sizes.is_size(argument) and cast == "int":
            yield self._size_cast(node, argument, ctx)
        elif ctx.sizes.is_size(argument) and cast == "float":
            fix = None
            if _true_division_operand(node, ctx):
                fix = Fix("Drop `float()`: `/` of ints already gives the float",
                          (replace_call_by_argument(node, ctx),), safe=True)
            why = "" if fix else (
                "; no automatic fix: outside a true division by an int or a number, dropping `float()` "
                "can change the result (an int, or an int tensor's dtype)"
            )
            yield ctx.report(
                self, node,
                "`float()` of a size: the legacy exporter records the export-time size as a constant" + why,
                fix=fix, exporters=(LEGACY,),
            )

    def _tensor_cast(self, node: ast.Call, cast: str, ctx: FunctionContext):
        if is_condition_test(node, ctx):
            return  # a branch on a tensor value: the control-flow rules report it
        if python_values_tensor(node.args[0], ctx):
            return
        if cast == "bool":
            yield ctx.report(
                self, node,
                "`bool()` of a tensor: the legacy exporter records the value as a constant "
                "(or fails when the result meets a tensor)",
                exporters=(LEGACY,),
            )
            return
        use = item_use(node, ctx)
        fix = None
        named, why = name_as_tensor(node, node.args[0], ctx) if use == "other" else (None, "")
        if use in ("size", "arithmetic") or named is not None:
            fix = Fix(f"Drop `{cast}()` and keep the tensor", (replace_call_by_argument(node, ctx),),
                      safe=self._exact_without_cast(node, cast, use, named, ctx))
        if use == "condition":  # `range(int(n))`: a loop bound
            yield ctx.report(
                self, node,
                f"`{cast}()` of a tensor in a condition or loop bound: the legacy exporter freezes the "
                f"export-time value and the dynamo exporter fails (GuardOnDataDependentSymNode)",
                exporters=(LEGACY, DYNAMO),
            )
            return
        message = f"`{cast}()` turns a tensor into a Python number: the legacy exporter records it as a constant"
        if named is not None:
            name = assigned_name(node, ctx)
            message = (
                f"`{cast}()` of a tensor assigned to `{name}`: the legacy exporter records it as a constant; "
                f"keep `{name}` a tensor"
            )
            if not fix.safe:
                because = why or (
                    "`int()` truncates a float tensor, which is no valid size" if cast == "int"
                    else "the tensor's dtype is unknown"
                )
                message += f" (unsafe: {because})"
        elif fix is None:
            message += f" (no fix: {why or 'the number is ' + python_use(node, use, ctx)})"
        yield ctx.report(self, node, message, fix=fix, exporters=(LEGACY,))

    @staticmethod
    def _exact_without_cast(node: ast.Call, cast: str, use: str, named: str | None, ctx: FunctionContext) -> bool:
        """Only run-time evidence makes dropping the cast safe: `int(n)` as a size of an n that
        was always a 0-d int64 tensor; `float(t)`/`int(t)` in arithmetic `tensor_operand_is_exact`
        proves (`int()` of an int64 and `float()` of a float tensor only: no truncation), also
        through a name whose every use is exact (``named``, from `name_as_tensor`)."""
        argument = node.args[0]
        dtype = ctx.tensors.scalar_dtype(argument)
        if dtype is None or (cast == "int") != (dtype == "int64"):
            return False
        if use == "size":
            return True
        return tensor_operand_is_exact(argument, node, ctx) or named == EXACT

    def _size_cast(self, node: ast.Call, argument: ast.expr, ctx: FunctionContext):
        ints = ctx.ints
        if ints.is_int(argument):
            fix = Fix("Drop `int()`: the size is already an int", (replace_call_by_argument(node, ctx),), safe=True)
            return ctx.report(
                self, node,
                "`int()` of a size: the legacy exporter records the size as a constant; the size is already an int",
                fix=fix, exporters=(LEGACY,),
            )
        if (
            isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Div)
            and ints.is_nonnegative_int(argument.left) and ints.is_nonnegative_int(argument.right)
        ):
            left = operand(ctx.segment(argument.left), argument.left, TERM)
            right = operand(ctx.segment(argument.right), argument.right, UNARY)
            text = in_place_of(ctx.parent(node), node, f"{left} // {right}", TERM)
            fix = Fix("Use floor division `a // b`", (ctx.replace(node, text),), safe=True)
            return ctx.report(
                self, node,
                "`int(a / b)` on sizes: the legacy exporter records a constant and the dynamo exporter "
                "specializes it to the export-time value (silently wrong for other sizes); use `a // b`",
                fix=fix, exporters=(LEGACY, DYNAMO),
            )
        halved = _halved_size(argument, ints)
        if halved is not None:
            size, divisor = halved
            text = in_place_of(ctx.parent(node), node, f"{operand(ctx.segment(size), size, TERM)} // {divisor}", TERM)
            fix = Fix(f"Use floor division `// {divisor}`", (ctx.replace(node, text),), safe=True)
            return ctx.report(
                self, node,
                f"`int()` of a size times 1/{divisor}: the legacy exporter records the export-time value and "
                f"the dynamo exporter can specialize it; use `// {divisor}`",
                fix=fix, exporters=(LEGACY, DYNAMO),
            )
        return ctx.report(
            self, node,
            "`int()` of a float computed from sizes: the legacy exporter records the export-time value and "
            "the dynamo exporter can specialize it (`onnxfix export` shows which)",
            exporters=(LEGACY, DYNAMO),
        )


def _true_division_operand(node: ast.Call, ctx: FunctionContext) -> bool:
    """`float(a) / float(b)` (either side) with `a` an int size and the other operand an int size,
    `float()` of one, or a number literal: Python's `/` converts an int operand to float exactly
    below 2**53, and int / int is the correctly rounded quotient, as float / float is, so dropping
    the cast gives the same float (tests/test_values_exactness.py)."""
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div)) or not ctx.ints.is_int(node.args[0]):
        return False
    other = parent.right if parent.left is node else parent.left
    if isinstance(other, ast.Call) and builtin_call(other, ctx, CASTS) == "float" and len(other.args) == 1:
        other = other.args[0]
    return ctx.ints.is_int(other) or (isinstance(other, ast.Constant) and type(other.value) in (int, float))


def _halved_size(argument: ast.expr, ints) -> tuple[ast.expr, int] | None:
    """(size, 2**m) for `size * c` or `c * size` with c a literal 2**-m (0.5, 0.25, ...): for a
    non-negative int below 2**53 the product is exact and int() truncates it, which is floor
    division by 2**m."""
    if not (isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Mult)):
        return None
    for size, factor in ((argument.left, argument.right), (argument.right, argument.left)):
        value = factor.value if isinstance(factor, ast.Constant) else None
        if type(value) is float and 0 < value < 1 and (1 / value).is_integer() and ints.is_nonnegative_int(size):
            divisor = int(1 / value)
            if divisor & (divisor - 1) == 0:  # a power of two: 1/value is exact
                return size, divisor
    return None


class LenOfTensor(Rule):
    code = "ONX204"
    name = "len-of-tensor"
    summary = "`len(tensor)` instead of `tensor.shape[0]`"
    fix_availability = "always"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds `len(t)` where `t` is known to be a tensor (a torch call, a tensor method, a
            parameter annotated `Tensor`, a module's weight, ...). Seen in UDOP
            (`range(len(patch_inds))`), LLaVA-OneVision (`len(image_sizes)`), SuperPoint.
        """,
        why="""
            The legacy exporter records `len(t)` as a constant (TracerWarning "Using len to get
            tensor shape might cause the trace to be incorrect"): with a dynamic first
            dimension, `x * len(x)` and `x[: len(x) - 1]` are silently wrong for every other
            size (measured on torch 2.13, tests/test_values_exporters.py). `t.shape[0]` stays
            symbolic. The dynamo exporter handles both. Hugging Face optimum patches
            `Tensor.__len__` to `x.shape[0]` for this reason.
        """,
        example="""
            def forward(self, x: torch.Tensor):
                return x[: len(x) - 1] * len(x)
        """,
        use_instead="""
            def forward(self, x: torch.Tensor):
                return x[: x.shape[0] - 1] * x.shape[0]
        """,
        fix_safety="""
            Safe: for a tensor, `len(t)` is defined as `t.shape[0]` (both raise for a 0-d
            tensor). The rule only reports values known to be tensors; `len()` of a list, tuple
            or of something the analysis cannot type is left alone.
        """,
        references=(
            "https://github.com/huggingface/optimum-onnx/blob/1939f27a1d04bd9fdf4c3b17eaa70a99dcd380c6/optimum/exporters/onnx/model_patcher.py",
            "https://github.com/huggingface/transformers/pull/31311",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if builtin_call(node, ctx, frozenset({"len"})) is None or len(node.args) != 1:
            return
        argument = node.args[0]
        if not ctx.tensors.is_tensor(argument):
            return
        text = operand(ctx.segment(argument), argument, ATOM) + ".shape[0]"
        fix = Fix("Use `.shape[0]`", (ctx.replace(node, text),), safe=True)
        yield ctx.report(
            self, node,
            "`len()` of a tensor: the legacy exporter records the length as a constant; use `.shape[0]`",
            fix=fix,
        )


TENSOR_BUILDERS = frozenset({"torch.tensor", "torch.as_tensor"})
TAKEN_OUT = frozenset({"item", "tolist"})


AS_TENSOR_DYNAMO = ", and the dynamo exporter specializes the sizes (`torch.as_tensor`)"


class TensorFromValues(Rule):
    code = "ONX205"
    name = "tensor-from-python-values"
    summary = "`torch.tensor(...)` built from a shape or from values taken out of tensors"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    exporters = (LEGACY, DYNAMO)  # dynamo: `torch.as_tensor` forms only
    doc = RuleDoc(
        what="""
            Finds `torch.tensor(...)`, `torch.as_tensor(...)` and `t.new_tensor(...)` whose data
            is a shape (`x.shape`, `x.size()`, `x.shape[1:]`), a list or tuple holding sizes
            (`[x.shape[0], x.shape[1]]`), or Python numbers taken out of tensors (`.item()`,
            `.tolist()`, `int(t)`, directly or through a name). Seen in SAM3 and
            PP-DocLayout box scaling (`torch.tensor([width, height, width, height])`) and
            torchvision's anchor generator.
        """,
        why="""
            The legacy exporter registers the result as a constant (TracerWarning "torch.tensor
            results are registered as constants in the trace"): `torch.tensor(x.shape)` and
            `torch.tensor([x.shape[0], x.shape[1]])` give the export-time shape for every input
            (measured on torch 2.13, tests/test_values_exporters.py: silently wrong for other
            sizes). A single size, `torch.tensor(x.shape[0])`, stays dynamic, and so does
            `torch.stack([torch.tensor(d) ...])`. The dynamo exporter handles the `torch.tensor`
            and `new_tensor` forms, but not `torch.as_tensor(x.shape, ...)`: it specializes the
            dynamic dimensions ("Constraints violated ... your code specialized it to be a
            constant"), measured on torch 2.13 by the same test, even for a single size
            (`torch.as_tensor(x.shape[0])`, which is reported for the dynamo exporter only); the
            fixes build the elements with `torch.tensor` for that reason.
        """,
        example="""
            def forward(self, x):
                hw = torch.tensor([x.shape[2], x.shape[3]])
                return x.flatten(2) / hw.prod()
        """,
        use_instead="""
            def forward(self, x):
                hw = torch.stack([torch.tensor(x.shape[2]), torch.tensor(x.shape[3])])
                return x.flatten(2) / hw.prod()
        """,
        fix_safety="""
            - A list or tuple literal of integer sizes and integer constants becomes
              `torch.stack([torch.tensor(a), torch.tensor(b), ...])` (same builder, same
              `dtype=`/`device=` keywords in each call): safe. Each element is an int64 (or the
              requested dtype) 0-d tensor and stacking gives the 1-d tensor `torch.tensor`
              built. For `t.new_tensor([...])` the inner calls are `t.new_tensor(a)`, which
              keep `t`'s dtype and device. For `torch.as_tensor` they are `torch.tensor(a)`
              (for a Python int both build the same new tensor; `as_tensor` of a size
              specializes it in the dynamo exporter).
            - A whole shape (`torch.tensor(x.shape)`, `torch.as_tensor(x.shape)`) becomes
              `torch.stack([torch.tensor(d) for d in x.shape])`: unsafe, because for a 0-d `x`
              the original gives an empty float tensor and `torch.stack([])` raises.
            - `torch.as_tensor(size)` of one size becomes `torch.tensor(size)`: safe (for a
              Python int both build the same new 0-d tensor).
            - Values taken out of tensors: no fix here (keep the tensor; see ONX201/ONX202).
        """,
        references=(
            "https://github.com/pytorch/pytorch/issues/26127",
            "https://github.com/pytorch/pytorch/issues/99701",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        builder = self._builder(node, ctx)
        if builder is None or not node.args:
            return
        data = node.args[0]
        as_tensor = ctx.qualname(node.func) == "torch.as_tensor"
        # as_tensor of sizes also breaks the dynamo exporter (tests/test_values_exporters.py)
        exporters, also = ((LEGACY, DYNAMO), AS_TENSOR_DYNAMO) if as_tensor else ((LEGACY,), "")
        if is_whole_shape(data):
            yield ctx.report(
                self, node,
                "tensor built from a shape: the legacy exporter records the export-time shape as a constant" + also,
                fix=self._stack_fix(node, builder, data, ctx, whole=True), exporters=exporters,
            )
        elif isinstance(data, (ast.List, ast.Tuple)) and any(ctx.sizes.is_size(e) for e in data.elts):
            yield ctx.report(
                self, node,
                "tensor built from a list of sizes: the legacy exporter records the export-time sizes as constants"
                + also,
                fix=self._stack_fix(node, builder, data, ctx, whole=False), exporters=exporters,
            )
        elif as_tensor and ctx.sizes.is_size(data):
            torch, imports = ctx.torch_name()
            fix = Fix("Use `torch.tensor`", (ctx.replace(node.func, f"{torch}.tensor"),), safe=True, imports=imports)
            yield ctx.report(
                self, node, "`torch.as_tensor` of a size: the dynamo exporter specializes the size to its "
                "export-time value; `torch.tensor` keeps it dynamic", fix=fix, exporters=(DYNAMO,),
            )
        elif not ctx.tensors.is_tensor(data) and self._taken_out_of_tensor(data, ctx):
            yield ctx.report(
                self, node,
                "tensor built from Python numbers taken out of a tensor: the legacy exporter records them "
                "as constants; keep the tensor",
            )

    def _builder(self, node: ast.Call, ctx: FunctionContext) -> str | None:
        if ctx.qualname(node.func) in TENSOR_BUILDERS:
            return ctx.segment(node.func)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "new_tensor" and ctx.tensors.is_tensor(func.value):
            return ctx.segment(func)
        return None

    def _stack_fix(self, node: ast.Call, builder: str, data: ast.expr, ctx: FunctionContext, whole: bool):
        if len(node.args) != 1 or any(k.arg not in ("dtype", "device") for k in node.keywords):
            return None
        if not all(isinstance(k.value, (ast.Name, ast.Attribute, ast.Constant)) for k in node.keywords):
            return None  # repeated per element, so only plain names
        extra = "".join(f", {k.arg}={ctx.segment(k.value)}" for k in node.keywords)
        torch, imports = ctx.torch_name()
        if ctx.qualname(node.func) == "torch.as_tensor":
            # as_tensor of a size specializes it in the dynamo exporter, tensor does not (measured,
            # tests/test_values_exporters.py); for a Python int both build the same new 0-d tensor
            builder = f"{torch}.tensor"
        if whole:
            text = f"{torch}.stack([{builder}(d{extra}) for d in {ctx.segment(data)}])"
            return Fix("Stack 0-d tensors built from each size", (ctx.replace(node, text),), safe=False, imports=imports)
        if not data.elts or not all(ctx.ints.is_int(e) for e in data.elts):
            return None
        elements = [f"{builder}({ctx.segment(e)}{extra})" for e in data.elts]
        text = ctx.bracketed(node, f"{torch}.stack([", elements, "])")
        return Fix("Stack 0-d tensors built from each size", (ctx.replace(node, text),), safe=True, imports=imports)

    def _taken_out_of_tensor(self, data: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
        for sub in ast.walk(data):
            if isinstance(sub, ast.Call):
                func = sub.func
                if isinstance(func, ast.Attribute) and func.attr in TAKEN_OUT and not sub.args:
                    if ctx.tensors.is_tensor(func.value):
                        return True
                cast = builtin_call(sub, ctx, frozenset({"int", "float"}))
                if cast and len(sub.args) == 1 and ctx.tensors.is_tensor(sub.args[0]):
                    return True
            if isinstance(sub, ast.Name) and depth < 3:
                for value in ctx.assignments(sub.id):
                    if isinstance(value, ast.expr) and self._taken_out_of_tensor(value, ctx, depth + 1):
                        return True
        return False


RULES = [ItemCall, TolistCall, ScalarCast, LenOfTensor, TensorFromValues]
