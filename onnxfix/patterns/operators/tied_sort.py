"""ONX537: an unstable sort of keys that tie (a bool mask, or keys a run saw tie) whose order is used.

MinerU's layout post-processing moves the kept queries first with
`torch.argsort(mask.to(torch.int8), dim=1, descending=True)` and reorders boxes, labels and logits
by those indices. Without `stable=True` the order among equal keys is unspecified: ATen's sort
(eager) and onnxruntime's TopK (what both exporters make of it) order them differently, so every
row reordered among the ties differs from eager (measured on torch 2.13: a max abs error of 754 on
the export inputs, under the dynamo exporter). A bool mask (cast or not) ties by design and is
reported from the code; other keys where an `onnxfix export` run found the sort's TopK to be the
first value that differs from eager (MoE routers sort tokens by expert index too, and undo the
permutation with the same indices: no tie order changes their result).
"""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.decompositions import BY_KEY
from onnxfix.patterns.operators.base import helper_accepts, helper_fix
from onnxfix.rewriter.bindings import reaching_value
from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Rule, RuleDoc

SORTS = frozenset({"torch.sort", "torch.argsort"})
CAST_METHODS = frozenset({"int", "long", "short", "char", "byte", "bool", "float", "double", "half"})
WHY_UNSAFE = ("eager's order of equal keys changes from ATen's unspecified order to their input order "
              "(results that do not depend on how ties are ordered stay the same)")


class UnstableSortOfTies(Rule):
    code = "ONX537"
    name = "unstable-sort-of-ties"
    summary = "unstable sort of keys that tie, its order used: eager and onnxruntime order the ties apart"
    fix_availability = "always"
    default_safety = "unsafe"
    exporters = (DYNAMO, LEGACY)
    triggers = ("sort", "argsort")
    changes_eager = True
    doc = RuleDoc(
        what="Finds `torch.argsort` / `Tensor.argsort`, and `torch.sort` / `Tensor.sort` whose indices are "
        "used (not only `.values` or `[0]`), without `stable=`, of a bool mask (a comparison or a bool "
        "tensor, also cast to a number type: `.to(torch.int8)`, `.long()`; a name bound to one), or of "
        "any keys where an `onnxfix export` run found the sort's TopK to be the first value that differs "
        "from eager (ONX945). Integer keys in general are not reported from the code alone: MoE routers "
        "sort tokens by expert index and undo the permutation with the same indices, which no tie order "
        "changes.",
        why="A mask's two values tie everywhere. An unstable sort leaves the order of equal keys unspecified: ATen "
        "orders them one way in eager, onnxruntime's TopK (both exporters translate the sort to it) "
        "another, so what is reordered by the indices differs from eager wherever keys tie: silently "
        "wrong (MinerU's `torch.argsort(mask.to(torch.int8), dim=1, descending=True)` packing the kept "
        "layout boxes first: max abs error 754 on the export inputs, measured on torch 2.13).",
        example="def forward(self, scores, boxes):\n    keep = (scores.sigmoid() > 0.5).to(torch.int8)\n"
        "    order = torch.argsort(keep, dim=1, descending=True)\n"
        "    return torch.gather(boxes, 1, order[..., None].expand(-1, -1, 4))",
        use_instead="def forward(self, scores, boxes):\n    keep = (scores.sigmoid() > 0.5).to(torch.int8)\n"
        "    order = _onnx_argsort(keep, dim=1, descending=True)\n"
        "    return torch.gather(boxes, 1, order[..., None].expand(-1, -1, 4))",
        fix_safety=f"Unsafe: {WHY_UNSAFE}. The fix calls onnxfix's `_onnx_argsort` / `_onnx_sort`, the "
        "stable sort (`stable=True` is their default) computed exactly from ranks, in eager and under both "
        "exporters: neither exporter translates `torch.argsort(..., stable=True)` itself.",
        references=("https://github.com/raoqu/mlx-mineru/blob/a5d95510dfc1c26a2fa38c71864ffd067f7d8de6/scripts/export_layout_onnx.py",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        keys = _sorted_keys(node, ctx)
        if keys is None or any(k.arg in ("stable", None) for k in node.keywords) or _values_only(node, ctx):
            return
        diverged = _diverged_here(node, ctx)
        if not (diverged or _bool_keys(keys, ctx)):
            return
        method = ctx.qualname(node.func) is None
        decomposition = BY_KEY["argsort" if node.func.attr == "argsort" else "sort"] if method else BY_KEY[
            ctx.qualname(node.func).removeprefix("torch.")]
        if not helper_accepts(decomposition, node, method):
            return
        # the stable sort, computed by onnxfix's exact helper (neither exporter translates
        # `stable=True`: the fix and its export come as one, as the fix loop judges them)
        fix = helper_fix(decomposition, node, ctx, method, safe=False)
        yield ctx.report(
            self, node,
            f"`{ctx.segment(node.func)}` of {'keys the export saw tie' if diverged else 'two-valued keys'} "
            f"(`{ctx.segment(keys)[:40]}`) without `stable=True`: the order of equal keys is unspecified, and "
            "eager (ATen) and onnxruntime (TopK) order them apart, so whatever is reordered by the indices "
            f"differs from eager where keys tie; fix is unsafe: {WHY_UNSAFE}",
            fix=fix,
        )


def _sorted_keys(node: ast.Call, ctx: FunctionContext) -> ast.expr | None:
    """The keys of `torch.sort(k, ...)`, `torch.argsort(k, ...)`, `k.sort(...)`, `k.argsort(...)`."""
    qualname = ctx.qualname(node.func)
    if qualname in SORTS:
        return node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "input"), None)
    if qualname is None and isinstance(node.func, ast.Attribute) and node.func.attr in ("sort", "argsort"):
        receiver = node.func.value
        return receiver if ctx.tensors.is_tensor(receiver) or _bool_keys(receiver, ctx) else None  # not `list.sort`
    return None


def _values_only(node: ast.Call, ctx: FunctionContext) -> bool:
    """`torch.sort(k).values` / `[0]`: equal keys have equal values, whatever their order."""
    if isinstance(node.func, ast.Attribute) and node.func.attr == "argsort" or ctx.qualname(node.func) == "torch.argsort":
        return False
    parent = ctx.parent(node)
    if isinstance(parent, ast.Attribute) and parent.attr == "values":
        return True
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Tuple):
        indices = parent.targets[0].elts[1:2]  # `values, _ = torch.sort(mask)`
        return len(parent.targets[0].elts) == 2 and isinstance(indices[0], ast.Name) and indices[0].id == "_"
    return isinstance(parent, ast.Subscript) and isinstance(parent.slice, ast.Constant) and parent.slice.value == 0


def _bool_keys(keys: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
    """A bool tensor, or one cast to a number type (`mask.to(torch.int8)`, `mask.long()`): two
    values, ties everywhere. Integer keys in general are not reported without a run: MoE
    routers sort tokens by their expert's index and un-permute the results with the same
    indices, which no tie order changes."""
    if depth > 6:
        return False
    if is_bool_tensor(keys, ctx):
        return True
    if isinstance(keys, ast.Call) and isinstance(keys.func, ast.Attribute) and ctx.qualname(keys.func) is None:
        cast = keys.func.attr in CAST_METHODS and not keys.args and not keys.keywords or keys.func.attr in ("to", "type")
        return cast and _bool_keys(keys.func.value, ctx, depth + 1)
    if isinstance(keys, ast.Name):
        value = reaching_value(keys, ctx)
        return value is not None and _bool_keys(value, ctx, depth + 1)
    return False


def _diverged_here(node: ast.Call, ctx: FunctionContext) -> bool:
    """An export's first value that differs from eager was this sort's (a run's evidence)."""
    evidence = ctx.file.evidence
    return evidence is not None and node.lineno in evidence.sort_diverged


RULES = [UnstableSortOfTies]
