"""ONX610: an early exit on an empty selection, taken in eager and skipped under torch.export.

Detection and segmentation post-processing returns early when a score threshold, a boolean mask
or `nonzero` leaves nothing (`if boxes.numel() == 0: return boxes.new_zeros((0, 4)), ...`,
torchvision's batched NMS, MMYOLO's `if scores.shape[0] == 0:`). The size is read out of the
data: torch.export cannot decide the test (GuardOnDataDependentSymNode, "Eq(u0, 0)"), while the
legacy exporter records the branch of the export inputs, which are not empty, and so exports
the general path. The general path is what the exporters can follow; the ONNX model then runs it
for an empty selection too.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.empty_exit import branch_shape, emptiness_receiver, empty_exit_fix, nonemptiness_receiver
from onnxfix.patterns.control_flow.zero_count import enumerated_count, zero_count, zero_count_fix
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.datadep import is_data_sized
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.statements import block_of
from onnxfix.rewriter.tree_walk import walk

def _data_sized(receiver: ast.expr, node: ast.If, ctx: FunctionContext) -> bool:
    """Statically a selection by the data (a boolean mask, nonzero, ...), or on a line where the
    run's export stopped on a data-dependent guard (`onnxfix export`'s evidence)."""
    evidence = ctx.file.evidence
    if evidence is not None and node.lineno in evidence.data_dependent and ctx.tensors.is_tensor(receiver) is not False:
        return True
    return is_data_sized(receiver, ctx)


class EmptyExitUnderExport(Rule):
    code = "ONX610"
    name = "empty-exit-under-export"
    summary = "An early exit on an empty data-dependent selection: taken in eager, skipped under torch.export"
    fix_availability = "sometimes"  # none in TorchScript-compiled code
    default_safety = "unsafe"
    exporters = ("dynamo",)
    doc = RuleDoc(
        what="Finds `if <t is empty>: ... return ...` (`t.numel() == 0`, `t.shape[0] == 0`, "
        "`t.size(0) == 0`, `len(t) == 0`, `not t.numel()`; `not m.any()` of a mask the code after it selects by, "
        "mmdetection's mask_matrix_nms) where `t` is a selection whose size "
        "comes from the data (a boolean mask, `nonzero`, `torch.where(cond)[0]`), or where "
        "`onnxfix export`'s run stopped on a data-dependent guard at that line: the early exits "
        "of detection post-processing (torchvision's batched NMS, MMYOLO's YOLOv5 head); also "
        "`if <t is empty>: continue` in a loop (a mixture of experts skipping an expert no token "
        "chose: PhiMoE's `if top_x.shape[0] == 0: continue`; DeepSeek-V3's `if counts[i] == 0: continue` with "
        "`counts = torch.bincount(indices.flatten(), ...).tolist()` before `torch.where(indices == i)`, whose "
        "fix also computes the counts in eager only where only the test reads them, for both exporters: "
        "torch.export cannot list a bincount, the legacy exporter records it), and its mirror, a block run only when "
        "the selection is not empty (GLM-4 MoE's `if token_indices.numel() > 0:`, no `else`).",
        why="The selection's size is an unbacked symbol under torch.export: it cannot decide "
        "`Eq(u0, 0)` and the dynamo exporter fails (GuardOnDataDependentSymNode). The legacy "
        "exporter evaluates the test on the export inputs, which select something, and exports "
        "the general path.",
        example="def forward(self, boxes, scores):\n    keep = torch.where(scores > 0.5)[0]\n"
        "    kept = boxes[keep]\n    if kept.numel() == 0:\n        return kept.new_zeros((0, 4))\n"
        "    return kept * 2",
        use_instead="def forward(self, boxes, scores):\n    keep = torch.where(scores > 0.5)[0]\n"
        "    kept = boxes[keep]\n    if not torch.compiler.is_exporting() and kept.numel() == 0:\n"
        "        return kept.new_zeros((0, 4))\n    return kept * 2",
        fix_safety="Unsafe. Eager PyTorch (and torch.compile) take the same path as before, bit "
        "for bit: `torch.compiler.is_exporting()` is False outside torch.export. But the exported "
        "model runs the general path for an empty selection as well (the rest of the loop's body, "
        "for a `continue`: an expert on no rows adds nothing), which gives the early "
        "value only where the general path computes it for nothing (an empty concatenation, a "
        "top-k of nothing); where it cannot (a `max()` of nothing raises in eager), the ONNX "
        "model returns something else for an empty selection. The export's comparison with "
        "eager checks the inputs it is given, which select something.",
        references=("https://github.com/pytorch/vision/issues/2251", "https://github.com/open-mmlab/mmdeploy/issues/2170"),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        test = node.test
        receiver = runs_if_nonempty(node, ctx)
        if receiver is not None:
            yield self._nonempty_guard(node, receiver, ctx)
            return
        receiver = skips_empty_exit(node, ctx)
        if receiver is None or empty_exit_fix(node, branch_shape(node, ctx), ctx) is not None:
            return  # ONX601 drops a check whose value the general path gives anyway: both exporters
        torch_name, imports = ctx.torch_name()
        text = ctx.segment(test)  # a comparison or a `not`: binds tighter than `and`
        counted = zero_count(node, ctx) is receiver
        if counted and enumerated_count(receiver, node, ctx):
            yield ctx.report(self, node.test, _enumerated_counts_message(receiver, ctx))
            return
        fix = zero_count_fix(node, receiver, ctx) or (None if ctx.compiled_by_torchscript else Fix(  # TorchScript
            "Take the early exit in eager only",  # cannot compile is_exporting()
            (ctx.replace(test, f"not {torch_name}.compiler.is_exporting() and {text}"),), safe=False, imports=imports))
        exit = "early exit" if any(isinstance(s, ast.Return) for s in node.body) else "`continue`"
        empty = "selects nothing" if isinstance(test, ast.UnaryOp) and not emptiness_receiver(test, ctx) else "is empty"
        if counted:
            empty = "is zero (the size of the selection after it)"
        message = (f"{exit} when `{ctx.segment(receiver)}` {empty}, a size read out of the data: the dynamo "
                   "exporter cannot decide it (GuardOnDataDependentSymNode) and the legacy one exports the "
                   "general path; take the exit in eager only (unsafe: the ONNX model then runs the general "
                   "path for an empty selection too)")
        yield ctx.report(self, node.test, message, fix=fix)


    def _nonempty_guard(self, node: ast.If, receiver: ast.expr, ctx: FunctionContext):
        """GLM-4 MoE's `if token_indices.numel() > 0:` around an expert's work: the same skip."""
        torch_name, imports = ctx.torch_name()
        text = ctx.segment(node.test)  # a comparison or a size: binds tighter than `or`
        fix = None if ctx.compiled_by_torchscript else Fix(
            "Run the block under export whatever the size", (ctx.replace(node.test, f"{torch_name}.compiler.is_exporting() or {text}"),),
            safe=False, imports=imports)
        message = (f"block run only when `{ctx.segment(receiver)}` is not empty, a size read out of the data: the "
                   "dynamo exporter cannot decide it (GuardOnDataDependentSymNode) and the legacy one exports the "
                   "block; run it under export whatever the size (unsafe: the ONNX model then runs it for an "
                   "empty selection too, where it must compute nothing)")
        return ctx.report(self, node.test, message, fix=fix)


def _enumerated_counts_message(count: ast.Name, ctx: FunctionContext) -> str:
    """`for i, count in enumerate(counts): if count == 0: continue`: no fix, the loop itself is read
    out of the data."""
    return (f"`continue` when `{count.id}` is zero (the size of the selection after it), a count read out of "
            "the data, in a loop over the counts themselves: their number is the larger of the data's largest value + 1 "
            "and minlength, which no exporter can keep, and the legacy one records the export inputs' "
            "counts. No rewrite keeps the loop: loop over the values' known range instead "
            "(`for i in range(n):` reading `counts[i]`), whose skip ONX610 then takes in eager only")

def runs_if_nonempty(node: ast.If, ctx: FunctionContext) -> ast.expr | None:
    """The tested tensor of a block run only on a non-empty data-dependent selection (no `else`),
    not already guarded for export."""
    if node.orelse or consults_export_guard(node.test):
        return None
    receiver = nonemptiness_receiver(node.test, ctx)
    return receiver if receiver is not None and _data_sized(receiver, node, ctx) else None


def skips_empty_exit(node: ast.If, ctx: FunctionContext) -> ast.expr | None:
    """The tested tensor of an early exit (the body returns) on an empty data-dependent
    selection, not already guarded for export."""
    # a return, or a `continue` to the loop's next item (PhiMoE's `if top_x.shape[0] == 0: continue`
    # for an expert no token chose)
    if consults_export_guard(node.test) or not any(isinstance(s, (ast.Return, ast.Continue)) for s in node.body):
        return None
    receiver = emptiness_receiver(node.test, ctx)
    if receiver is None:
        return _unselecting_mask(node, ctx) or zero_count(node, ctx)
    return receiver if _data_sized(receiver, node, ctx) else None


def _unselecting_mask(node: ast.If, ctx: FunctionContext) -> ast.expr | None:
    """`m` of `if not m.any(): return ...` (or `torch.any(m)`) where the code after the `if`
    selects by `m` (`masks = masks[keep]`: mmdetection's mask_matrix_nms): the exit is taken where
    the selection is empty. Any tensor's `any()` is read out of the data."""
    test = node.test
    if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Call)):
        return None
    call = test.operand
    if ctx.qualname(call.func) == "torch.any" and len(call.args) == 1 and not call.keywords:
        mask = call.args[0]
    elif isinstance(call.func, ast.Attribute) and call.func.attr == "any" and not call.args and not call.keywords:
        mask = call.func.value
    else:
        return None
    if not (isinstance(mask, ast.Name) and ctx.tensors.is_tensor(mask)):
        return None
    block = block_of(node, ctx)
    after = block[next(i for i, s in enumerate(block) if s is node) + 1:] if block else []
    selects = any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id == mask.id
                  for statement in after for n in walk(statement))
    return mask if selects else None


RULES = [EmptyExitUnderExport]
