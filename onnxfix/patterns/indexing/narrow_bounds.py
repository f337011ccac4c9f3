"""ONX707: a slice bound that is a 0-d tensor of a narrow integer type (int32), which the legacy
exporter writes into an ONNX Slice beside int64 bounds."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

NARROW_INTEGERS = frozenset({"int32", "int16", "int8", "uint8"})


class NarrowSliceBound(Rule):
    code = "ONX707"
    name = "narrow-slice-bound"
    summary = "a slice bound that is an int32 (or narrower) 0-d tensor: `.long()` it"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)
    needs_run = True  # the bounds' dtype comes from a recorded run only
    doc = RuleDoc(
        what="""
            Finds a slice bound (`pe[:, start:end]`) that a recorded run (`onnxfix export`) saw
            only as a 0-d tensor of a narrow integer type: NeMo's Conformer keeps
            `self.center_pos = torch.tensor(..., dtype=torch.int32)` and slices its position
            table with `self.center_pos - x.size(1)`. Without a run the dtype is not known, and
            nothing is reported.
        """,
        why="""
            The legacy exporter writes the bound as it is into the ONNX Slice, whose starts,
            ends and steps must share one integer type; the other bounds (sizes, literals, the
            default end) are int64, and onnxruntime refuses the model on load ("Type parameter
            (Tind) of Optype (Slice) bound to different types (tensor(int32) and
            tensor(int64))"; NVIDIA-NeMo/Speech#5309, measured on torch 2.13). The dynamo
            exporter casts the bounds itself.
        """,
        example="""
            def forward(self, x):
                start = self.center_pos - x.size(1)   # center_pos: an int32 0-d tensor
                end = start + x.size(1)
                return self.pe[:, start:end]
        """,
        use_instead="""
            def forward(self, x):
                start = self.center_pos - x.size(1)
                end = start + x.size(1)
                return self.pe[:, start.long():end.long()]
        """,
        fix_safety="""
            Safe: a slice reads a 0-d integer tensor's value (`__index__`), and `.long()` of an
            int32 (or narrower) integer is the same integer, so the same elements are selected.
            Reported only where the run saw a 0-d tensor of that dtype at every call, and not
            for a function's parameter (a caller the run did not see may pass a Python int,
            which has no `.long()`).
        """,
        references=("https://github.com/NVIDIA-NeMo/Speech/pull/5309",),
    )

    def visit_Subscript(self, node: ast.Subscript, ctx: FunctionContext):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        # a parameter is left alone: a caller the run did not see may pass a Python int
        bounds = [b for part in parts if isinstance(part, ast.Slice) for b in (part.lower, part.upper, part.step)
                  if b is not None and ctx.tensors.scalar_dtype(b) in NARROW_INTEGERS
                  and not (isinstance(b, ast.Name) and ctx.is_parameter(b.id))]
        if not bounds:
            return
        edits = tuple(ctx.replace(b, operand(ctx.segment(b), b, ATOM) + ".long()") for b in bounds)
        names = ", ".join(f"`{ctx.segment(b)}`" for b in bounds)
        dtypes = "/".join(sorted({ctx.tensors.scalar_dtype(b) for b in bounds}))
        what = f"slice bound {names} is an {dtypes} 0-d tensor" if len(bounds) == 1 else (
            f"slice bounds {names} are {dtypes} 0-d tensors")
        yield ctx.report(
            self, node,
            f"{what} (recorded run): the legacy exporter writes them beside int64 bounds into one ONNX Slice, "
            "which onnxruntime refuses; `.long()` them",
            fix=Fix("Make the bound an int64 tensor (`.long()`)", edits, safe=True),
        )


RULES = [NarrowSliceBound]
