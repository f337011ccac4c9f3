"""Which inputs of a module's ``forward`` are tensors by how forward uses them: it reads their size or
calls a tensor-only method on them (the exported forward's inputs are tensors, or containers of
them), itself or in a function of the file it hands them to, unchanged there. Part of the tensor
oracle (tensors.py)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.opdb_catalog import tensor_first_functions
from onnxfix.rewriter.bindings import parameter_reaches
from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.none_defaults import is_none_literal
from onnxfix.rewriter.returned import callee_context

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

INPUT_TYPE_TESTS = frozenset({"isinstance", "type", "is_tensor", "hasattr", "getattr"})

# Reductions: called on a value, evidence enough that it is a tensor wherever onnxfix would
# rewrite it as one (`.item()` of `x.sum()`); also part of TENSOR_EVIDENCE_METHODS below.
REDUCTION_METHODS = frozenset(
    {"sum", "max", "min", "mean", "any", "all", "argmax", "argmin", "norm", "abs", "prod", "numel"}
)


# Tensor methods that are evidence of a tensor receiver when called on an input of forward: none
# is a method of Python's numbers, strings or containers, of PackedSequence, of transformers'
# caches and model outputs, or of detectron2/torchvision box and image-list structures (those
# share `to`, `cpu`, `float`, `clone`, `clip`, `split`, `sort`, `get`, ... with tensors: left out).
# Some are NumPy methods too (`sum`, `mean`, `reshape`): an exported forward never receives a
# NumPy array (torch.export and the legacy exporter take tensors).
TENSOR_EVIDENCE_METHODS = (REDUCTION_METHODS - {"max", "min"}) | frozenset({
    "amax", "amin", "std", "var", "cumsum",
    "softmax", "log_softmax", "sigmoid", "relu", "tanh", "exp", "log", "abs", "sqrt", "rsqrt", "pow",
    "unsqueeze", "squeeze", "permute", "transpose", "view", "view_as", "reshape", "reshape_as", "flatten",
    "unflatten", "contiguous", "expand", "expand_as", "repeat_interleave", "masked_fill", "masked_fill_",
    "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "size", "dim", "numel", "matmul", "bmm",
    "type_as", "narrow", "index_select", "gather", "flip", "roll", "detach",
    # tensor-only too (a PackedSequence also has .to()/.float()/.cpu(), a NumPy array .copy())
    "clone", "chunk", "unbind", "masked_select", "index_fill", "scatter", "scatter_add",
    # comparisons as methods (fairseq's `src_tokens.eq(self.padding_idx)`): NumPy and lists compare
    # with operators only
    "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "isnan", "isinf", "isfinite",
})


def forward_input_used_as_tensor(ctx: "FunctionContext", name: str, read: ast.Name | None = None) -> bool:
    """``x`` is a parameter of a module's ``forward`` (the exported one's inputs are tensors, or lists,
    tuples or dicts of tensors), never rebound but to arithmetic on itself, never tested by type (``isinstance``, ``type``,
    ``torch.is_tensor``, ``hasattr``, ``getattr``) or against None, and forward reads its size
    (``x.shape``, ``x.ndim``, ``x.size()``, ``x.dim()``: of those inputs only a tensor has one) or,
    for a parameter without a default, calls a tensor-only method on it (``x.sum()``,
    ``x.permute(...)``): ``def forward(self, x): if x.sum() > 0: return self.mlp(x)``. An inner
    module's forward too (fairseq's encoder, called by the exported wrapper with its own input):
    the same uses tell a tensor there (the corpus' findings did not change).

    A name forward rebinds to something else (`x = self._abs(x)`, `x = x.numpy()`) is the input
    only where ``read`` sees the value passed in (`parameter_reaches`), and then only the uses that
    see it count as evidence: pnnx's `x = self._abs(x)` hands the input to a function that sums it."""
    fn = ctx.fn
    if fn.cls is None or fn.node.name != "forward" or name == ctx.self_name:
        return False
    if name not in _kept_inputs(ctx) and not (read is not None and parameter_reaches(read, ctx)):
        return False  # rebound to something else (`x = x.numpy()`): not the input any more
    if any(_converted_to_tensor(value, name, ctx) for value in ctx.assignments(name)):
        return False  # `img = torch.from_numpy(img)`: forward itself makes the input a tensor
    inputs = ctx.cache.get("forward_tensor_inputs")
    if inputs is None:
        inputs = ctx.cache["forward_tensor_inputs"] = _inputs_used_as_tensors(fn.node, ctx, counts=_input_read(ctx))
    return name in inputs


CONVERSIONS = frozenset({"torch.from_numpy", "torch.as_tensor", "torch.tensor", "torch.Tensor"})


def _converted_to_tensor(value: ast.AST, name: str, ctx: "FunctionContext") -> bool:
    """`name = torch.from_numpy(name)` (or `torch.as_tensor(name, ...)`, `torch.tensor(name)`)."""
    return (isinstance(value, ast.Call) and ctx.qualname(value.func) in CONVERSIONS and bool(value.args)
            and isinstance(value.args[0], ast.Name) and value.args[0].id == name)


def _kept_inputs(ctx: "FunctionContext") -> frozenset[str]:
    """Forward's parameters never rebound but to arithmetic on themselves: the input wherever read."""
    kept = ctx.cache.get("forward_kept_inputs")
    if kept is None:
        args = ctx.fn.node.args
        names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
        kept = ctx.cache["forward_kept_inputs"] = frozenset(
            n for n in names if all(_arithmetic_of(value, n, ctx) for value in ctx.assignments(n)))
    return kept


def _input_read(ctx: "FunctionContext"):
    """Which reads of a name tell what the input passed in was: any read of a kept input, a read
    of another that sees the value passed in."""
    kept = _kept_inputs(ctx)
    return lambda read: read.id in kept or parameter_reaches(read, ctx)


# methods a tensor has that return a tensor again (a view, a copy, a cast): an input rebound to one
# of them is still an input tensor (a NumPy array or a list has none of them, or not all)
_SAME_KIND_METHODS = frozenset({"transpose", "permute", "contiguous", "float", "half", "double", "flatten",
                                "unsqueeze", "squeeze", "clone", "detach", "view_as", "reshape_as", "type_as",
                                "movedim", "unflatten"})


def _arithmetic_of(value: ast.AST, name: str, ctx: "FunctionContext") -> bool:
    """`b = b * -1`, `x = -x`, `x += 1`, and ONX601's `b = torch.where(c, b * -1, b)` of those:
    arithmetic on the name itself, a tensor again wherever the name held one."""
    if isinstance(value, ast.AugAssign):
        return not isinstance(value.op, ast.MatMult)
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        return isinstance(value.operand, ast.Name) and value.operand.id == name
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _SAME_KIND_METHODS
            and isinstance(value.func.value, ast.Name) and value.func.value.id == name):
        return True  # `x = x.transpose(1, -1)` (SpeechBrain's PCEN): a tensor's view or copy is a tensor
    if isinstance(value, ast.Call) and ctx.qualname(value.func) == "torch.where" and len(value.args) == 3 and not value.keywords:
        return all(_arithmetic_of(side, name, ctx) or (isinstance(side, ast.Name) and side.id == name)
                   for side in value.args[1:])
    return isinstance(value, ast.BinOp) and not isinstance(value.op, ast.MatMult) and any(
        isinstance(side, ast.Name) and side.id == name for side in (value.left, value.right))


def _inputs_used_as_tensors(fn: ast.AST, ctx: "FunctionContext", callees: bool = True,
                            counts=lambda read: True) -> frozenset[str]:
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    without_default = {a.arg for a in positional[: len(positional) - len(args.defaults)]}
    without_default |= {a.arg for a, default in zip(args.kwonlyargs, args.kw_defaults) if default is None}
    # `attention_mask=None`: an optional tensor input, tested against None before it is used
    optional = {a.arg for a, default in zip(positional[len(positional) - len(args.defaults):], args.defaults)
                if is_none_literal(default)} | {a.arg for a, default in zip(args.kwonlyargs, args.kw_defaults) if is_none_literal(default)}
    sized, used, doubtful = set(), set(), set()

    def own(name: ast.expr) -> bool:  # the function's name, not a comprehension's (`for x in ...`)
        return isinstance(name, ast.Name) and ctx.inner_scope(name) is None and counts(name)

    for node, _ in walk_function_body(fn):
        if isinstance(node, ast.Attribute) and own(node.value) and node.attr in ("shape", "ndim"):
            sized.add(node.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and own(node.func.value):
            if node.func.attr in ("size", "dim", "ndimension"):
                sized.add(node.func.value.id)
            elif node.func.attr in TENSOR_EVIDENCE_METHODS or _split_by_int(node):
                used.add(node.func.value.id)
        if _tensor_first_argument(node, ctx) and own(node.args[0]):  # `torch.softmax(logits, -1)`, `F.pad(x, p)`, `self.proj(x)`
            used.add(node.args[0].id)
        if _joined_by_torch(node):  # `torch.cat((V, M), dim=1)`: each item a tensor (chemprop's atoms)
            used.update(item.id for item in node.args[0].elts if own(item))
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if called in INPUT_TYPE_TESTS:
                doubtful.add(node.args[0].id)
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            if not (node.left.id in optional if isinstance(node.left, ast.Name) else False) or not all(
                    is_none_literal(c) for c in node.comparators):  # `mask is not None`: the optional input's test
                doubtful.update(o.id for o in [node.left, *node.comparators] if isinstance(o, ast.Name))
    if callees:  # forward's own; a callee asked below answers from its body alone (no recursion)
        used |= _used_as_tensors_by_callees(fn, ctx, without_default, counts)
    return frozenset((sized | (used & (without_default | optional))) - doubtful)


def _used_as_tensors_by_callees(fn: ast.AST, ctx: "FunctionContext", inputs: set[str], counts) -> set[str]:
    """Inputs forward hands to a function or method of the file (`mask_matrix_nms(masks, cls_labels,
    ...)`) whose parameter there is used as a tensor as forward's would be (`labels.new_zeros(0)`,
    `labels.expand(n, n)`): the same evidence, one call away."""
    found = set()
    for node, _ in walk_function_body(fn):
        if not isinstance(node, ast.Call):
            continue
        passed = {name: parameter for name, parameter in _parameters_bound(node, ctx, counts).items() if name in inputs}
        callee = callee_context(ctx, node) if passed else None
        if callee is None:
            continue
        used_there = _inputs_used_as_tensors(callee.fn.node, callee, callees=False)
        found.update(name for name, parameter in passed.items() if parameter in used_there
                     and all(_kept_kind(v, parameter, callee) for v in callee.assignments(parameter)))
    return found


def _kept_kind(value: ast.AST, name: str, ctx: "FunctionContext") -> bool:
    """A callee's rebinding of its parameter that keeps a tensor a tensor and makes nothing else
    one (`labels = labels[sort_inds]`, arithmetic on it; not `labels = torch.as_tensor(labels)`)."""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == name:
        return True
    return _arithmetic_of(value, name, ctx)


def _parameters_bound(call: ast.Call, ctx: "FunctionContext", counts) -> dict[str, str]:
    """{argument name: the callee's parameter it binds} for the plain-name arguments of a call of
    the file's own function (positional up to the first starred one, and keywords) that ``counts``."""
    callee = callee_context(ctx, call)
    if callee is None:
        return {}
    args = callee.fn.node.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if callee.self_name is not None and isinstance(call.func, ast.Attribute):
        positional = positional[1:]  # self
    bound = {}
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred) or index >= len(positional):
            break
        if isinstance(argument, ast.Name) and ctx.inner_scope(argument) is None and counts(argument):  # not a comprehension's own
            bound[argument.id] = positional[index]
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    for keyword in call.keywords:
        if keyword.arg in names and isinstance(keyword.value, ast.Name) and ctx.inner_scope(keyword.value) is None \
                and counts(keyword.value):
            bound[keyword.value.id] = keyword.arg
    return bound


def _tensor_first_argument(node: ast.AST, ctx: "FunctionContext") -> bool:
    """`torch.softmax(x, dim=-1)`: a name passed first to a torch function that takes only a tensor
    there (op_db's samples all start with one and eager refuses a number or a list: not
    `torch.pow(2, t)`, `torch.cat([a, b])`), or to one of torch's layers held by the module."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name)):
        return False
    if isinstance(node.func, ast.Attribute) and ctx.tensors._tensor_layer_call(node.func):
        return True  # `self.proj(x)` with `self.proj = nn.Linear(...)`: torch's layers take a tensor
    return ctx.qualname(node.func) in tensor_first_functions()


def _split_by_int(call: ast.Call) -> bool:
    """`z.split(1)`: a tensor's split into parts of a size (`str.split` takes a separator string)."""
    return (call.func.attr == "split" and bool(call.args) and isinstance(call.args[0], ast.Constant)
            and type(call.args[0].value) is int)


# torch functions joining a sequence of tensors: a displayed item of it can only be a tensor
JOINING = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack"})


def _joined_by_torch(node: ast.AST) -> bool:
    """`torch.cat((a, b), ...)`: a `torch.` joining call whose first argument is a tuple or list display."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in JOINING
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
            and bool(node.args) and isinstance(node.args[0], (ast.Tuple, ast.List)))
