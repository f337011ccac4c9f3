"""What ONX603 counts as a loop over a dynamic size: a range over a tensor size, the rows of a
tensor, the parts of a split along dim 0, a list built with one element per step of such a range."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.chunk_loop import batch_split_parts
from onnxfix.patterns.control_flow.loop_parts import range_count
from onnxfix.patterns.control_flow.model_tables import model_tensor
from onnxfix.rewriter.context import FunctionContext

FIXED_COUNT_SPLITS = frozenset({"split", "chunk", "tensor_split", "split_with_sizes"})


def dynamic_iteration(iterable: ast.expr, ctx: FunctionContext) -> str | None:
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and ctx.is_builtin(iterable.func.id):
        name = iterable.func.id
        if name == "range" and iterable.args and not iterable.keywords:
            if any(is_size_bound(arg, ctx) for arg in iterable.args):
                return f"`{ctx.segment(iterable)}`, a tensor size"
            return None
        if name in ("enumerate", "reversed") and iterable.args:
            return tensor_iterable(iterable.args[0], ctx)
        if name == "zip" and iterable.args:
            # zip stops at its shortest argument: one list or module list of fixed length
            # bounds the loop, so report only when every argument is a tensor
            described = [tensor_iterable(arg, ctx) for arg in iterable.args]
            return described[0] if all(described) else None
        return None
    return tensor_iterable(iterable, ctx)


def size_long_list(node: ast.expr, ctx: FunctionContext) -> str | None:
    """A local list built with one element per step of a range over a size, on some path (MMOCR's
    `valid_ratios = [1.0 for _ in range(feat.size(0))]`): as long as the batch, so a loop over it
    unrolls at the export's batch size too. (The comprehension is reported where it is built; a
    loop over the list only where a fix takes it: SizeLoop.visit_For.)"""
    if not isinstance(node, ast.Name) or ctx.is_parameter(node.id):
        return None
    for value in ctx.assignments(node.id):
        if (isinstance(value, ast.ListComp) and len(value.generators) == 1
                and range_count(value.generators[0].iter) is not None
                and dynamic_iteration(value.generators[0].iter, ctx) is not None):
            return f"`{node.id}`, a list of one element per step of `{ctx.segment(value.generators[0].iter)}`"
    return None


def tensor_iterable(node: ast.expr, ctx: FunctionContext) -> str | None:
    """Iterating over a tensor runs once per row. The parts of split/chunk are a tuple whose
    length is fixed by the arguments, not a tensor; but a split of dim 0 by a part size
    (`z.split(1)`: diffusers' sliced VAE) has as many parts as the batch has rows / the size, and
    by a list of sizes computed in the code (Mistral3's `split(tokens_per_image)`) as many as the
    list, one per image."""
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):  # `f_groups = torch.split(f, 1, dim=0)`
        values = ctx.assignments(node.id)
        if len(values) == 1 and batch_split_parts(values[0], ctx) is not None:
            return f"`{node.id}`, the parts of a split along dim 0 (`{ctx.segment(values[0])}`)"
    if isinstance(node, ast.Call):
        last = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if batch_split_parts(node, ctx) is not None and not _unpacked_to_names(node, ctx):
            return f"`{ctx.segment(node)}`, the parts of a split along dim 0"
        if last in FIXED_COUNT_SPLITS or (ctx.qualname(node.func) or "").rpartition(".")[2] in FIXED_COUNT_SPLITS:
            return None
        if last == "unbind" or ctx.qualname(node.func) == "torch.unbind":  # one slice per row of a dim
            tensor = node.args[0] if ctx.qualname(node.func) == "torch.unbind" and node.args else (
                node.func.value if isinstance(node.func, ast.Attribute) else None)
            if tensor is not None and ctx.tensors.is_tensor(tensor):
                return f"`{ctx.segment(node)}`, the slices of a tensor"
    if ctx.tensors.is_tensor(node) and not model_tensor(node, ctx):
        return f"the tensor `{ctx.segment(node)}`"
    return None


def _unpacked_to_names(iterable: ast.expr, ctx: FunctionContext) -> bool:
    """`q, k, v = [t.squeeze(0) for t in torch.split(qkv, 1, 0)]` (mmdeploy's Swin attention): the
    comprehension's list unpacked into a fixed number of names, so the code fixes the count (dim 0
    is the 3 of q, k, v here, not a batch)."""
    comprehension = ctx.parent(ctx.parent(iterable))
    assign = ctx.parent(comprehension)
    return (isinstance(comprehension, ast.ListComp) and isinstance(assign, ast.Assign) and len(assign.targets) == 1
            and isinstance(assign.targets[0], (ast.Tuple, ast.List))
            and not any(isinstance(t, ast.Starred) for t in assign.targets[0].elts))


def is_size_bound(node: ast.expr, ctx: FunctionContext) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        return bool(ctx.tensors.is_tensor(node.args[0]))
    if isinstance(node, ast.Attribute) and node.attr == "ndim":
        return False  # the rank is static under both exporters
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("dim", "ndimension"):
        return False
    if isinstance(node, ast.BinOp) and isinstance(node.op, INT_OPS) and not ctx.sizes.is_size(node):
        # `(n - 1) // self.slice_size + 1`: `range` takes ints only, so an operand of unknown type
        # (an attribute set from a constructor argument) makes an int computed from the size
        sides = (node.left, node.right)
        return any(is_size_bound(side, ctx) for side in sides) and not any(ctx.tensors.is_tensor(side) for side in sides)
    return ctx.sizes.is_size(node)


INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)


def size_on_some_path(node: ast.expr, ctx: FunctionContext) -> bool:
    """A name bound to a size on some path (ML-Agents' `num_entities = self.entity_num_max_elements`,
    then `if num_entities < 0: num_entities = entities.shape[1]`): a size wherever the export takes
    that path. (A list's repetition count is an int on every path, or the code raises.)"""
    if not isinstance(node, ast.Name) or ctx.is_parameter(node.id):
        return False
    return any(isinstance(v, ast.expr) and ctx.sizes.is_size(v) for v in ctx.assignments(node.id))


RANK_METHODS = frozenset({"dim", "ndimension"})


def rank_only(node: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
    """Built from ranks and numbers only (`x.ndim - 1`, `len(x.shape) - 2`): static under both
    exporters, unlike the sizes themselves."""
    if depth > 8:
        return False
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Attribute):
        return node.attr == "ndim"
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr in RANK_METHODS and not node.args
        return (
            isinstance(func, ast.Name) and func.id == "len" and ctx.is_builtin("len") and len(node.args) == 1
            and isinstance(node.args[0], ast.Attribute) and node.args[0].attr == "shape"
        )
    if isinstance(node, ast.BinOp):
        return rank_only(node.left, ctx, depth + 1) and rank_only(node.right, ctx, depth + 1)
    if isinstance(node, ast.UnaryOp):
        return rank_only(node.operand, ctx, depth + 1)
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        return bool(values) and all(isinstance(v, ast.expr) and rank_only(v, ctx, depth + 1) for v in values)
    return False
