"""ONX203's `int()` of float math on sizes (`int(n ** 0.5)`, julius's `int(new_sr * length /
old_sr)`) -> `torch.sym_int(...)`, or `_onnx_sym_int(...)` where the project targets the legacy
exporter too."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.decompositions import by_target, helper_binding, helper_source
from onnxfix.patterns.scalars.uses import CONDITION_PARENTS, item_use, name_reads
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper
from onnxfix.rewriter.tree_walk import walk

SYM_INT = Helper("_onnx_sym_int", helper_source("sym_int"))
SIZE_EXTREME = "_onnx_size_extreme"
# ops whose decomposition helper computes with an integer argument (a 0-d tensor serves)
TENSOR_ARGUMENTS = {target: d for target, d in by_target().items() if d.tensor_arguments}
TENSOR_ARGUMENTS.update({f"_onnx_{d.key}": d for d in list(TENSOR_ARGUMENTS.values())})  # already rewritten


def sym_int_fix(node: ast.Call, ctx: FunctionContext, legacy: bool = True) -> Fix | None:
    """`int(x)` -> `torch.sym_int(x)`: `int()` for every Python number and tensor, a SymInt kept
    symbolic under torch.export. Only the callee is replaced (comments inside the call stay).
    Its `for_legacy` form calls `_onnx_sym_int`, which is `torch.sym_int` but while the legacy
    exporter traces (the float a 0-d tensor, cast to int64: the same truncation, a graph value
    where `int()` records a constant). None where TorchScript compiles the function: it has no
    `torch.sym_int` and no tracing state. Without ``legacy`` (a value only some caller passes as a
    size, maybe a tensor or a number while tracing) no `for_legacy` form."""
    if ctx.compiled_by_torchscript:
        return None
    torch_name, imports = ctx.torch_name()
    if not legacy or not takes_the_traced_tensor(node, ctx):
        return Fix("Use `torch.sym_int`", (ctx.replace(node.func, f"{torch_name}.sym_int"),), safe=True, imports=imports)
    for_legacy = Fix("Use `_onnx_sym_int` (`torch.sym_int`, a graph value while the legacy exporter traces)",
                     (ctx.replace(node.func, "_onnx_sym_int"),), safe=True, imports=("torch",), helpers=(SYM_INT,))
    return Fix("Use `torch.sym_int`", (ctx.replace(node.func, f"{torch_name}.sym_int"),), safe=True, imports=imports,
               for_legacy=for_legacy)


def takes_math_sqrt(argument: ast.expr, ctx: FunctionContext) -> bool:
    """`math.sqrt` in the expression or in a binding of a name it reads: torch.onnx cannot convert
    it on a symbolic size, with or without `torch.sym_int`."""
    values = [argument, *(v for n in walk(argument) if isinstance(n, ast.Name)
                          for v in ctx.assignments(n.id) if isinstance(v, ast.expr))]
    return any(isinstance(n, ast.Call) and ctx.qualname(n.func) == "math.sqrt" for v in values for n in walk(v))


def branch_frozen_on_same_sizes(argument: ast.expr, ctx: FunctionContext) -> bool:
    """A Python `if`/`while`/conditional in the function whose test reads size math on a name the
    argument reads (through one binding: `m = tsz / multiple` then `math.ceil(m)` reads `tsz`),
    run by the legacy exporter: its trace keeps the export-time side of that branch, and a value
    the helper keeps live beside it can disagree with that side (fairseq's pad_to_multiple:
    `if tsz % multiple == 0: return x, 0` frozen on the padding side while the live pad amount
    drops to 0 left an exported model that had been right, by its constant padding and mask,
    failing in onnxruntime). The legacy forms are withheld there."""
    names = _names_read(argument, ctx)
    for node in walk(ctx.fn.node):
        if not isinstance(node, (ast.If, ast.IfExp, ast.While)) or LEGACY in ctx.exporters_skipping(node):
            continue
        if any(ctx.sizes.is_size(part) and _plain_names(part) & names for part in walk(node.test)):
            return True
    return False


def _names_read(argument: ast.expr, ctx: FunctionContext) -> set[str]:
    names = _plain_names(argument)
    for name in list(names):
        for value in ctx.assignments(name):
            if isinstance(value, ast.expr):
                names |= _plain_names(value)
    return names


def _plain_names(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def takes_the_traced_tensor(call: ast.Call, ctx: FunctionContext) -> bool:
    """Whether the legacy forms (`_onnx_sym_int`, `_onnx_size_round`), which return a 0-d int64
    tensor while the legacy exporter traces where the call gave an int, export no worse than the
    int: every use of the value (through the names it is assigned to) takes the tensor as it took
    the int, and no frozen branch on the same sizes sits beside it. Taken: a slice bound, a size
    argument (`view`, `new_zeros`, `F.pad`, `interpolate(size=)`, ...), `range()`, a comparison
    in a test (frozen either way), `max`/`min` with ints, `+`, `-`, `*` with what is no tensor, `//`
    and `%` of a value proven >= 0 by a positive int, on the way to one of those. Not: `//` and `%`
    otherwise
    (the legacy exporter truncates a negative tensor quotient), other call arguments
    (`F.unfold(kernel_size=)`, `pixel_shuffle`, `groups=`, `dim=` need Python ints), `str()`,
    dict keys, `isinstance`, a returned value (its uses are the caller's)."""
    return not branch_frozen_on_same_sizes(call.args[-1], ctx) and _taken(call, ctx)


def takes_traced_value(use: ast.expr, ctx: FunctionContext) -> bool:
    """Whether this read of a Python int takes, in its place, the 0-d int64 tensor a legacy form gives
    while the legacy exporter traces, as it took the int (see takes_the_traced_tensor)."""
    return _taken(use, ctx)


def _taken(use: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
    parent = ctx.parent(use)
    if depth > 6:
        return False
    if isinstance(parent, ast.Slice) or item_use(use, ctx) == "size":
        return True
    if isinstance(parent, ast.Assign) and parent.value is use:
        return _name_taken(parent, ctx, depth)
    if isinstance(parent, ast.Tuple) and (target := _unpacked_target(parent, use, ctx)) is not None:
        return _names_taken(ctx.parent(parent), {target}, ctx, depth)  # Florence-2's `h, w = int(n ** 0.5), int(n ** 0.5)`
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and ctx.is_builtin(parent.func.id):
        if parent.func.id == "range":
            return True  # a loop bound: unrolled either way
        if parent.func.id in ("max", "min") and not parent.keywords:
            return all(a is use or ctx.ints.is_int(a) for a in parent.args) and _taken(parent, ctx, depth + 1)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == SIZE_EXTREME:
        # ONX403's max()/min() of sizes, a later round's text: a graph value while the legacy
        # exporter traces, as the builtin's was
        return all(a is use or ctx.ints.is_int(a) for a in parent.args[1:]) and _taken(parent, ctx, depth + 1)
    if isinstance(parent, ast.Call) and _helper_computes_with(parent, use, ctx):
        return True
    if isinstance(parent, ast.Compare) and isinstance(ctx.parent(parent), CONDITION_PARENTS):
        return True  # `if n > 0:`: bool() of the tensor freezes the branch as the int's did
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub, ast.Mult)):
        other = parent.right if parent.left is use else parent.left
        return ctx.tensors.is_tensor(other) is not True and _taken(parent, ctx, depth + 1)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.FloorDiv, ast.Mod)) and parent.left is use:
        return (ctx.ints.is_nonnegative_int(use) and ctx.ints.is_nonnegative_int(parent.right)
                and _taken(parent, ctx, depth + 1))
    return False


def _helper_computes_with(call: ast.Call, use: ast.expr, ctx: FunctionContext) -> bool:
    """`use` is an integer argument of an op whose ONX5xx helper, which replaces every call of it
    under the legacy exporter, only computes with that argument (`torch.kthvalue(x, k)`: the
    helper compares ranks with `k - 1`), so the 0-d tensor a legacy form gives serves as the int."""
    qualname = ctx.qualname(call.func)
    if qualname is None and isinstance(call.func, ast.Name):
        qualname = call.func.id
    method = qualname is None and isinstance(call.func, ast.Attribute)
    decomposition = TENSOR_ARGUMENTS.get(f"Tensor.{call.func.attr}" if method else qualname or "")
    if decomposition is None:
        return False
    bound = helper_binding(decomposition.key, call, method)
    return bound is not None and any(bound.get(name) is use for name in decomposition.tensor_arguments)


def _unpacked_target(values: ast.Tuple, use: ast.expr, ctx: FunctionContext) -> str | None:
    """The name `a, b = x, y` binds to ``use``, an item of its value ``values`` (one target)."""
    assign = ctx.parent(values)
    if not (isinstance(assign, ast.Assign) and assign.value is values and len(assign.targets) == 1):
        return None
    target = assign.targets[0]
    if not (isinstance(target, ast.Tuple) and len(target.elts) == len(values.elts)):
        return None
    element = target.elts[next(i for i, v in enumerate(values.elts) if v is use)]
    return element.id if isinstance(element, ast.Name) else None


def _name_taken(assign: ast.Assign, ctx: FunctionContext, depth: int) -> bool:
    """Every use of the names ``assign`` binds (`n = ...`, or InternVL's chained `h = w = ...`; each
    bound nowhere else) takes the value."""
    if not all(isinstance(t, ast.Name) for t in assign.targets):
        return False
    return _names_taken(assign, {t.id for t in assign.targets}, ctx, depth)


def _names_taken(assign: ast.Assign, names: set[str], ctx: FunctionContext, depth: int) -> bool:
    for name in names:
        uses = name_reads(name, ctx, only_binding=assign)  # None: rebound or updated, another value at some use
        if not uses or not all(_taken(use, ctx, depth + 1) for use in uses):
            return False
    return True
