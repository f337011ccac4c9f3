"""ONX607: a fast path skipped under the TorchScript tracer only, decided on sizes.

ViT-family position embeddings (transformers' ViT, DeiT, DINOv2, CLIP, SigLIP, CLIPSeg; DINO's
own code) return the stored table when the image has the pretraining size, and interpolate it
otherwise:

    # always interpolate when tracing to ensure the exported model works for dynamic input shapes
    if not torch.jit.is_tracing() and num_patches == num_positions and height == width:
        return self.position_embeddings

The guard was written for the legacy exporter (`torch.jit.is_tracing()` is True only under the
TorchScript tracer). torch.export does not trace with it: it evaluates the size comparison, keeps
the fast path for the example's size and drops the interpolation, so the exported model fails
(or is wrong) for every other image size. The same guard extended to torch.export keeps the
author's intent for both exporters.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.export_checks import test_under_export
from onnxfix.patterns.control_flow.mismatch_resize import mismatch_resize
from onnxfix.patterns.control_flow.size_paths import RESIZES, compares_sizes, view_of
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import TRUE_UNDER_LEGACY_EXPORT, consults_export_guard, negated_guard_call
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk

def tracing_guard(node: ast.expr) -> ast.Call | None:
    """The call of `not torch.jit.is_tracing()` (any spelling of the tracer's state)."""
    return negated_guard_call(node, TRUE_UNDER_LEGACY_EXPORT)


class TracingOnlyGuard(Rule):
    code = "ONX607"
    name = "tracing-only-guard"
    summary = "A size-decided fast path skipped for the TorchScript tracer only: skip it under torch.export too"
    fix_availability = "always"
    default_safety = "per-finding"
    triggers = tuple(sorted(TRUE_UNDER_LEGACY_EXPORT | {"interpolate", "resize", "upsample"}))  # the unguarded shortcut
    exporters = ("dynamo",)
    doc = RuleDoc(
        what="Finds `if not torch.jit.is_tracing() and <sizes compared> ...: return ...` in "
        "export-time code: a shortcut taken for one input size (the stored position table of "
        "ViT, DeiT, DINOv2, CLIP, SigLIP, CLIPSeg for the pretraining image size), skipped while "
        "the legacy exporter traces so that the exported model keeps the general computation. Unguarded: the "
        "same shortcut returned when every conjunct compares sizes and the code after resizes the value to a "
        "size; and a resize taken only when the sizes differ (`if ssh != up_out.shape[-2:]: up_out = "
        "F.interpolate(up_out, s.shape[-2:])`, fastai's and DeOldify's U-Net blocks; `if t.shape[2:] != size: "
        "r = F.interpolate(t, size) else: r = t`; `==` with the branches swapped; IGEV's `if x.shape != rem.shape: x = "
        "F.interpolate(x, size=(rem.shape[-2], rem.shape[-1]))`): the branch is the resize "
        "alone, the test compares the value's trailing sizes with the size resized to (or its whole shape with "
        "the whole shape of the tensor whose last sizes it is resized to), and nothing changes "
        "the value in place afterwards (the resize returns a copy).",
        why="`torch.jit.is_tracing()` is False under torch.export (the dynamo exporter), which "
        "evaluates the size comparison instead: with the image size dynamic it specializes the "
        "model to the example's size (ONX914 `Eq(...)` guards) and drops the general path, so "
        "onnxruntime fails (a Reshape of the wrong size) or computes another thing for every "
        "other size. Measured on transformers' ViT (interpolate_pos_encoding=True) and CLIPSeg "
        "with a dynamic height and width.",
        example="def forward(self, x):\n    n = x.shape[1]\n"
        "    if not torch.jit.is_tracing() and n == self.table.shape[0]:\n        return x + self.table\n"
        "    return x + F.interpolate(self.table[None, None], size=(n, self.table.shape[1]))[0, 0]",
        use_instead="def forward(self, x):\n    n = x.shape[1]\n"
        "    if not (torch.jit.is_tracing() or torch.compiler.is_exporting()) and n == self.table.shape[0]:\n"
        "        return x + self.table\n"
        "    return x + F.interpolate(self.table[None, None], size=(n, self.table.shape[1]))[0, 0]",
        fix_safety="Safe: `torch.compiler.is_exporting()` is False outside torch.export, so eager "
        "PyTorch (and torch.compile) take the same path as before, bit for bit. Under torch.export "
        "the general path runs for every size, as the author arranged for the tracer; for the "
        "shortcut's own size it computes what the shortcut returns up to the general path's "
        "rounding (an interpolation to the same size), which the export's comparison with eager "
        "measures. The unguarded shortcut's fix is unsafe for that reason: nothing in the source "
        "says the author meant the general path for the shortcut's size too. The resize taken when the "
        "sizes differ: safe for a nearest resize (eager keeps the test; under export the resize to the size "
        "the value has reads every element from itself, exactly), unsafe for the other modes (their "
        "rounding at the same size).",
        references=("https://github.com/huggingface/transformers/blob/main/src/transformers/models/vit/modeling_vit.py",
                    "https://github.com/facebookresearch/dinov2/blob/main/dinov2/models/vision_transformer.py"),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        test = node.test
        if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)) or not any(
                tracing_guard(v) for v in test.values):
            yield from _unguarded_shortcut(self, node, ctx)
            found = mismatch_resize(node, ctx)
            if found is not None:
                fix, message = found
                yield ctx.report(self, node.test, message, fix=fix, exporters=("dynamo", "legacy"))
            return
        guards = [tracing_guard(value) for value in test.values]
        call = next((g for g in guards if g is not None), None)
        if call is None or not any(compares_sizes(v, ctx) for v in test.values if tracing_guard(v) is None):
            return
        if not (node.body and isinstance(node.body[-1], ast.Return)):
            return  # a shortcut that returns: the general path is the code after it
        torch_name, imports = ctx.torch_name()
        guard = test.values[guards.index(call)]
        fix = Fix("Skip the shortcut under torch.export too",
                  (ctx.replace(guard, f"not ({ctx.segment(call)} or {torch_name}.compiler.is_exporting())"),),
                  safe=True, imports=imports)
        message = (f"`{ctx.segment(guard)}` skips this size-decided shortcut for the TorchScript tracer only: "
                   "torch.export evaluates the sizes instead, keeps the shortcut for the example's size and "
                   "drops the general path (other sizes fail or come out wrong); skip it under "
                   "`torch.compiler.is_exporting()` too")
        yield ctx.report(self, node.test, message, fix=fix)


def _unguarded_shortcut(rule: Rule, node: ast.If, ctx: FunctionContext):
    """mmcls's `resize_pos_embed`: `if src_shape[0] == dst_shape[0] and src_shape[1] == dst_shape[1]:
    return pos_embed`, then the table interpolated to the new size: the same shortcut with no
    guard at all. Every conjunct compares sizes, the body returns a stored value as it is, and the
    code after the `if` resizes (an interpolation to the same size gives the table back, up to
    rounding): taken under neither exporter, it keeps the general path in the graph (unsafe)."""
    value = _shortcut_value(node)
    if node.orelse or value is None or consults_export_guard(node.test) or ctx.compiled_by_torchscript:
        return
    conjuncts = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) else [node.test]
    evidence = ctx.file.evidence  # `onnxfix export`'s run: a guard specialized sizes at this line
    specialized = evidence is not None and evidence.guarded(node.test, ("specialized",))
    if not all(compares_sizes(c, ctx) or (specialized and isinstance(c, ast.Compare)) for c in conjuncts):
        return
    if not _resizes_after(node, value, ctx):
        return
    edit, imports = test_under_export(node.test, ctx, taken=False)
    fix = Fix("Skip the shortcut under export", (edit,), safe=False, imports=imports)
    message = (f"`return {ctx.segment(value)}` when the sizes match, a resize otherwise: both exporters "
               "decide the sizes on the example and keep the shortcut for its size (other sizes fail or come out "
               "wrong); skip it under export (unsafe: for the shortcut's own size the exported model resizes to the "
               "same size, equal up to the resize's rounding)")
    yield ctx.report(rule, node.test, message, fix=fix, exporters=("dynamo", "legacy"))


def _shortcut_value(node: ast.If) -> ast.expr | None:
    if len(node.body) == 1 and isinstance(node.body[0], ast.Return):
        value = node.body[0].value
        if isinstance(value, (ast.Name, ast.Attribute)):
            return value
    return None


def _resizes_after(node: ast.If, value: ast.expr, ctx: FunctionContext) -> bool:
    """After the `if`, the returned value itself, or a view of it (slices, reshapes, permutes),
    is resized to a given `size` (not by a `scale_factor`): the general path is the shortcut's
    value resized, which gives it back for its own size."""
    end = node.end_lineno or node.lineno
    for n in walk(ctx.fn.node):
        if not (isinstance(n, ast.Call) and getattr(n, "lineno", 0) > end and n.args):
            continue
        name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
        by_size = (len(n.args) > 1 or any(k.arg == "size" for k in n.keywords)) and not any(
            k.arg == "scale_factor" for k in n.keywords)
        if name in RESIZES and by_size and view_of(n.args[0], value, ctx, 0):
            return True
    return False


RULES = [TracingOnlyGuard]
