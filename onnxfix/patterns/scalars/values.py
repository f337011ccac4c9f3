"""What the ONX2xx rules ask of a Python value taken out of a tensor: where it is used (a size, a
tensor operand, a condition), and whether keeping the tensor instead is exact."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import in_place_of, precedence
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import enclosing_statement
from onnxfix.rewriter.tree_walk import walk


# Methods whose positional arguments are sizes (accept 0-d integer tensors in eager).
SHAPE_ARGUMENT_METHODS = frozenset(
    {"reshape", "view", "expand", "repeat", "new_zeros", "new_ones", "new_empty", "narrow", "tile", "unflatten"}
)
# torch functions whose positional arguments are sizes.
SHAPE_ARGUMENT_FUNCTIONS = frozenset(
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
# A list of split sizes too: `torch.split(x, [t0, t1])` runs split_with_sizes on the tensors'
# values, as on their `.item()`s (a float tensor raises either way).
SIZE_ARGUMENT_METHODS = {"topk": (0, "k"), "split": (0, "split_size"), "split_with_sizes": (0, "split_sizes")}
SIZE_ARGUMENT_FUNCTIONS = {"torch.topk": (1, "k"), "torch.nn.functional.pad": (1, "pad"),
                           "torch.split": (1, "split_size_or_sections")}
# Size functions whose arguments are Scalars, not ints: they take a 0-d tensor but not a
# one-element tensor of higher rank (`torch.arange(torch.tensor([3]))` raises, measured).
SCALAR_SIZE_FUNCTIONS = frozenset({"torch.arange"})
SPLIT_PLACES = (SIZE_ARGUMENT_METHODS["split"], SIZE_ARGUMENT_METHODS["split_with_sizes"],
                SIZE_ARGUMENT_FUNCTIONS["torch.split"])


def size_argument(holder: ast.Call, container: ast.AST, ctx: FunctionContext) -> bool:
    """``container`` (the value or the tuple/list holding it) is a size argument of ``holder``."""
    func = holder.func
    qualname = ctx.qualname(func)
    if container in holder.args:
        if isinstance(func, ast.Attribute) and func.attr in SHAPE_ARGUMENT_METHODS:
            return True
        if qualname in SHAPE_ARGUMENT_FUNCTIONS:
            return True
    place = SIZE_ARGUMENT_FUNCTIONS.get(qualname or "")
    if place is None and isinstance(func, ast.Attribute) and qualname is None and ctx.tensors.is_tensor(func.value) is not False:
        place = SIZE_ARGUMENT_METHODS.get(func.attr)
    if place is None:
        return False
    if place in SPLIT_PLACES:
        # split sizes as a list only (one split size is `int()`-ed: a float tensor would truncate where
        # its `.item()` raised), and `.split` of a value known to be a tensor (a `str.split`, a
        # user object's `split` would be handed the tensor)
        split_method = isinstance(func, ast.Attribute) and qualname is None
        if not isinstance(container, (ast.List, ast.Tuple, ast.ListComp)) or (
                split_method and ctx.tensors.is_tensor(func.value) is not True):
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
    if isinstance(parent, ast.Slice) or _stored_in_size_list(node, parent, ctx):
        return "size"
    # the value, or the list holding it: a display, or a comprehension it is the element of
    # (Mask2Former's `torch.split(x, [size.item() for size in split_sizes], dim=1)`)
    held = isinstance(parent, (ast.Tuple, ast.List)) or (isinstance(parent, ast.ListComp) and parent.elt is node)
    container = parent if held else node
    holder = ctx.parent(container)
    if isinstance(holder, ast.keyword):
        holder = ctx.parent(holder)
    if isinstance(holder, ast.Call) and size_argument(holder, container, ctx):
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


def _stored_in_size_list(node: ast.expr, parent: ast.AST | None, ctx: FunctionContext) -> bool:
    """`size[dim] = node` into a list this function builds and then reads only whole, as a size
    argument (PyG's `scatter`: `size = list(src.size()); size[dim] = dim_size; src.new_zeros(size)`):
    the element is a size like any other element of it (not where TorchScript types the list
    List[int])."""
    if ctx.compiled_by_torchscript or not (isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1):
        return False
    target = parent.targets[0]
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return False
    name, built = target.value.id, False
    for mention in walk(ctx.fn.node):
        if isinstance(mention, (ast.Global, ast.Nonlocal)) and name in mention.names:
            return False
        if not (isinstance(mention, ast.Name) and mention.id == name):
            continue
        holder = ctx.parent(mention)
        if isinstance(mention.ctx, ast.Store):
            if not (isinstance(holder, ast.Assign) and holder.targets == [mention] and _new_list(holder.value, ctx)):
                return False  # bound by a loop, an unpacking, a walrus, or to a list someone else holds
            built = True
        elif isinstance(holder, ast.Subscript) and holder.value is mention:
            if not isinstance(holder.ctx, ast.Store):
                return False  # an element read back as a number
        elif not (isinstance(holder, ast.Call) and size_argument(holder, mention, ctx)):
            return False
    return built


def _new_list(value: ast.expr, ctx: FunctionContext) -> bool:
    """A list made here: a display, `[...] * n`, or `list(...)`."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return isinstance(value.left, ast.List) or isinstance(value.right, ast.List)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list":
        return ctx.is_builtin("list")
    return isinstance(value, ast.List)


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


def is_none_test(node: ast.expr, ctx: FunctionContext) -> bool:
    """``node is None`` / ``node is not None`` (RLlib's and ESPnet's `if maxlen is None: maxlen =
    int(lengths.max())`): the same answer for a tensor as for the number it holds."""
    parent = ctx.parent(node)
    return (
        isinstance(parent, ast.Compare) and len(parent.ops) == 1 and isinstance(parent.ops[0], (ast.Is, ast.IsNot))
        and isinstance(parent.comparators[0], ast.Constant) and parent.comparators[0].value is None
        and parent.left is node
    )


def tensor_in_place(use: ast.expr, receiver: ast.expr, ctx: FunctionContext, depth: int = 0) -> tuple[str | None, str]:
    """Whether the tensor ``receiver`` in place of ``use`` (the Python number taken out of it)
    computes the same there: (EXACT, UNSAFE or None, the kind of use)."""
    if is_none_test(use, ctx):
        return EXACT, "none test"  # a tensor is no more None than a number is
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
    while (isinstance(parent, ast.IfExp) and node is not parent.test) or _shifted_by_int(parent, node):
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1:
        target = parent.targets[0]
        if isinstance(target, ast.Name):
            return target.id
    return None


def _shifted_by_int(parent: ast.AST | None, node: ast.AST) -> bool:
    """`value + 1`, `1 + value`, `value - 1`: torch-dftd's `n_graphs = int(batch[-1]) + 1`, where
    the tensor plus an int literal stands in for the number plus it."""
    if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub))):
        return False
    other = parent.right if parent.left is node else parent.left
    return isinstance(other, ast.Constant) and type(other.value) is int and (
        parent.left is node or isinstance(parent.op, ast.Add))


def name_as_tensor(call: ast.expr, receiver: ast.expr, ctx: FunctionContext) -> tuple[str | None, str]:
    """``name = t.item()`` (or ``float(t)``, ``int(t)``): whether ``name = t`` computes the
    same at every use of ``name`` in the function: (EXACT or UNSAFE, why unsafe) or (None, why
    no fix). Uses inside the assigned expression see the name's previous value and are skipped;
    every other use is checked, including those that may see another assignment's value (each
    must accept the tensor in place of the number anyway)."""
    name = assigned_name(call, ctx)
    if name is None:
        return None, ""
    statement = enclosing_statement(call, ctx)
    inside = {id(n) for n in walk(statement)}
    uses = []
    for node in walk(ctx.fn.node):
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
    eager computes what it computed (safe by construction), and torch.export keeps `int()`'s or
    `.item()`'s unbacked size, which it exports where a tensor in a size argument fails (RLlib's
    `torch.ones((B, maxlen))`)."""
    torch_name, imports = ctx.torch_name()
    text = f"({kept} if {torch_name}.jit.is_tracing() else {ctx.segment(node)})"
    return Fix(TRACING_ONLY, (ctx.replace(node, text),), safe=True, imports=imports)
