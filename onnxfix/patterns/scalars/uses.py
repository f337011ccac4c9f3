"""How the ONX2xx rules see a use of a Python value taken out of a tensor: a size (an argument of
a size-taking call, an element of a list passed whole as a size, an argument bound to a parameter
the called function reads only as a size), a tensor operand, a condition, or something else."""

from __future__ import annotations

import ast

from onnxfix.patterns.scalars.clamp_bounds import beside_a_number_bound
from onnxfix.rewriter.context import FunctionContext
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
# And the size of a filled tensor (`torch.full(size, v)`, `t.new_full(size, v)`).
SIZE_ARGUMENT_METHODS = {"topk": (0, "k"), "split": (0, "split_size"), "split_with_sizes": (0, "split_sizes"),
                         "new_full": (0, "size")}
SIZE_ARGUMENT_FUNCTIONS = {"torch.topk": (1, "k"), "torch.nn.functional.pad": (1, "pad"),
                           "torch.split": (1, "split_size_or_sections"), "torch.full": (0, "size")}
# interpolate's output size: an int or a tuple of them, each also a 0-d or one-element integer
# tensor (measured); the legacy exporter takes traced sizes there as a dynamic Resize. ONX519's
# helper passes its `size` on to the op (or builds its weights from it): a later round's text.
SIZE_ARGUMENT_FUNCTIONS.update({name: (1, "size") for name in (
    "torch.nn.functional.interpolate", "torch.nn.functional.upsample", "torch.nn.functional.upsample_bilinear",
    "torch.nn.functional.upsample_nearest", "_onnx_interpolate")})
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
    helper = func.id if isinstance(func, ast.Name) and func.id.startswith("_onnx_") else ""
    place = SIZE_ARGUMENT_FUNCTIONS.get(qualname or helper)
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
    """How the Python number ``node`` is used: 'condition', 'size', 'arithmetic', 'clamp bound'
    (one bound of a clamp beside a number bound) or 'other'. A branch of a conditional expression
    is used as the expression is (`size[dim] = dim_size if dim_size is not None else
    int(index.max()) + 1`, a torch_scatter port's output size)."""
    while isinstance(ctx.parent(node), ast.IfExp) and ctx.parent(node).test is not node:
        node = ctx.parent(node)
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
    if isinstance(parent, ast.Slice) or _stored_in_size_list(node, parent, ctx) or _passed_as_size(node, parent, ctx):
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
            # a tensor bound beside a number one is refused while tracing: clamp by each in turn
            return "clamp bound" if beside_a_number_bound(parent, node, ctx) else "arithmetic"
    return "other"


def _stored_in_size_list(node: ast.expr, parent: ast.AST | None, ctx: FunctionContext) -> bool:
    """`size[dim] = node` into a list this function builds and then reads only whole, as a size
    argument (PyG's `scatter`: `size = list(src.size()); size[dim] = dim_size; src.new_zeros(size)`):
    the element is a size like any other element of it (not where TorchScript types the list
    List[int])."""
    if ctx.compiled_by_torchscript or not (isinstance(parent, ast.Assign) and parent.value is node
                                           and len(parent.targets) == 1):
        return False
    target = parent.targets[0]
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return False
    name, built = target.value.id, False
    if ctx.is_parameter(name):
        return False  # the caller's list, holding the element after the call
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


def scalar_size(node: ast.expr, ctx: FunctionContext) -> bool:
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


def _passed_as_size(node: ast.expr, parent: ast.AST | None, ctx: FunctionContext) -> bool:
    """``node`` is an argument of a function of this file (`f(...)`, `self.m(...)`) whose parameter
    the function reads only as a size, or tests against None (PyG's `global_mean_pool` passing
    `size = int(batch.max()) + 1` on to `scatter(..., dim_size=size)`): a size, through the call.
    A function calling itself back with the value proves nothing."""
    call, keyword = (ctx.parent(parent), parent.arg) if isinstance(parent, ast.keyword) else (parent, None)
    if not isinstance(call, ast.Call) or node is call.func or ctx.file.calls is None:
        return False
    callee, name = _bound_parameter(call, node, keyword, ctx)
    if callee is None or name is None or callee.compiled_by_torchscript:
        return False
    progress = ctx.file.calls.in_progress
    key = ("size parameter", id(callee.fn.node), name)
    if key in progress:
        return False
    progress.add(key)
    try:
        return _read_only_as_size(callee, name)
    finally:
        progress.discard(key)


def _bound_parameter(call: ast.Call, node: ast.expr, keyword: str | None,
                     ctx: FunctionContext) -> tuple[FunctionContext | None, str | None]:
    """The context of the function ``call`` calls (a module-level function of this file, or a
    method of this class through `self`) and the name of the parameter ``node`` binds."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == ctx.self_name \
            and ctx.fn.cls is not None:
        target, skip = ctx.fn.cls.methods.get(func.attr), 1
    elif isinstance(func, ast.Name) and not ctx.scope.is_local(func.id):  # not a local shadowing it
        target, skip = ctx.file.module.functions.get(func.id), 0
    else:
        return None, None
    callee = ctx.file.calls.contexts.get(id(target)) if target is not None else None
    if callee is None:
        return None, None
    callee.with_parents()
    arguments = target.args
    if keyword is not None:
        names = [a.arg for a in [*arguments.args[skip:], *arguments.kwonlyargs]]
        return callee, keyword if keyword in names else None
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]][skip:]
    index = next(i for i, a in enumerate(call.args) if a is node)
    if index >= len(positional) or any(isinstance(a, ast.Starred) for a in call.args[: index + 1]):
        return callee, None
    return callee, positional[index]


def _read_only_as_size(callee: FunctionContext, name: str) -> bool:
    """Every read of parameter ``name`` in ``callee`` is a size or a None test; it is not updated
    in place nor declared global."""
    reads = 0
    for mention in walk(callee.fn.node):
        if isinstance(mention, (ast.Global, ast.Nonlocal)) and name in mention.names:
            return False
        if isinstance(mention, ast.AugAssign) and isinstance(mention.target, ast.Name) and mention.target.id == name:
            return False
        if isinstance(mention, ast.Name) and mention.id == name and isinstance(mention.ctx, ast.Load):
            if not (is_none_test(mention, callee) or (item_use(mention, callee) == "size"
                                                       and not scalar_size(mention, callee))):
                return False
            reads += 1
    return reads > 0


def name_reads(name: str, ctx: FunctionContext, *, only_binding: ast.AST | None = None) -> list[ast.Name] | None:
    """Every read of ``name`` in the function, or None where a read could see a value the caller did
    not follow: the name is updated in place (`n += 1`), or, given ``only_binding`` (the assignment
    whose value is followed), it is bound anywhere else too."""
    inside = {id(n) for n in walk(only_binding)} if only_binding is not None else set()
    names = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and id(n) not in inside]
    if any(isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name
           for n in walk(ctx.fn.node)):
        return None
    if only_binding is not None and (any(not isinstance(n.ctx, ast.Load) for n in names)
                                     or len(ctx.assignments(name)) != 1):
        return None
    return [n for n in names if isinstance(n.ctx, ast.Load)]
