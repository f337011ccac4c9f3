"""ONX708: a write through a boolean mask followed by full slices (`h[mask, :] = v`), which the
legacy exporter translates with the wrong shape; without the slices it is the same write."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc


class MaskWriteTrailingSlices(Rule):
    code = "ONX708"
    name = "mask-write-trailing-slices"
    summary = "a write through a boolean mask followed by full slices (`h[mask, :] = v`): drop the slices"
    fix_availability = "always"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds a write (`=`, or an augmented one such as `+=`) through an index that is a boolean
            mask followed only by full slices: `hidden_states[visual_pos_masks, :] = local_this`
            (Qwen3-Omni's deepstack features written at the image-token positions), `x[m, :, :] += 1`.
            The mask is a boolean tensor the code shows (a comparison, `~`, a bool factory or cast),
            or one a recorded run (`onnxfix export`) saw as bool at every call.
        """,
        why="""
            The legacy exporter writes such an index_put with the mask's selection laid out for the
            wrong rank: onnxruntime fails on the graph ("BroadcastIterator::Append" in the node
            after it), whatever the value written (a tensor, a number, an update). The same write
            without the trailing full slices exports correctly (measured on torch 2.13 with masks
            over (batch, sequence) of (batch, sequence, hidden)). Reading `h[mask, :]` is
            translated correctly, and the dynamo exporter handles both.
        """,
        example="""
            def forward(self, hidden: torch.Tensor, mask: torch.Tensor, visual: torch.Tensor):
                hidden = hidden.clone()
                hidden[mask.bool(), :] = hidden[mask.bool(), :] + visual
                return hidden
        """,
        use_instead="""
            def forward(self, hidden: torch.Tensor, mask: torch.Tensor, visual: torch.Tensor):
                hidden = hidden.clone()
                hidden[mask.bool()] = hidden[mask.bool(), :] + visual
                return hidden
        """,
        fix_safety="""
            Safe: trailing full slices select every element of the dims they stand for, and an
            index without them selects the same elements in the same layout (PyTorch's indexing
            fills the remaining dims with full slices), so the write is the same operation.
        """,
        references=("https://github.com/huggingface/optimum-intel/pull/1700",),
    )

    def visit_Assign(self, node: ast.Assign, ctx: FunctionContext):
        if len(node.targets) == 1:
            yield from self._check(node.targets[0], ctx)

    def visit_AugAssign(self, node: ast.AugAssign, ctx: FunctionContext):
        yield from self._check(node.target, ctx)

    def _check(self, target: ast.expr, ctx: FunctionContext):
        if not isinstance(target, ast.Subscript) or not isinstance(target.slice, ast.Tuple):
            return
        mask, *rest = target.slice.elts
        if not rest or not all(_full_slice(part) for part in rest) or not is_bool_tensor(mask, ctx):
            return
        start, end = ctx.file.source.span(mask)[1], ctx.file.source.span(rest[-1])[1]
        yield ctx.report(
            self, target,
            f"write through the boolean mask `{ctx.segment(mask)}` followed by full slices: the legacy "
            f"exporter lays the selection out with the wrong rank (onnxruntime fails); without the "
            f"slices it is the same write",
            fix=Fix("Drop the trailing full slices", (Edit(start, end, ""),), safe=True),
        )


def _full_slice(part: ast.expr) -> bool:
    return isinstance(part, ast.Slice) and part.lower is None and part.upper is None and part.step is None


RULES = [MaskWriteTrailingSlices]
