"""ONX707: a slice bound that is a tensor of a narrow integer type (int32), which the legacy
exporter writes into an ONNX Slice beside int64 bounds (a size argument is ONX207's)."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.int_dtype import NARROW_TRIGGERS, narrow_integer_dtype
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc


class NarrowSliceBound(Rule):
    code = "ONX707"
    name = "narrow-slice-bound"
    summary = "a slice bound that is an int32 (or narrower) tensor: `.long()` it"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)
    triggers = NARROW_TRIGGERS
    doc = RuleDoc(
        what="""
            Finds a slice bound (`pe[:, start:end]`) that is a tensor of a narrow integer type
            (int32, int16, int8, uint8): a cast to one (`.int()`, `.to(torch.int32)`), a factory
            with such a dtype, a max or an index of one, Python-int arithmetic on one, or what a
            recorded run (`onnxfix export`) saw only as one: NeMo's Conformer keeps
            `self.center_pos = torch.tensor(..., dtype=torch.int32)` and slices its position
            table with `self.center_pos - x.size(1)`.
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
                center = torch.tensor(self.max_len, dtype=torch.int32)
                start, end = center - x.size(1), center + x.size(1)
                return self.pe[:, start:end]
        """,
        use_instead="""
            def forward(self, x):
                center = torch.tensor(self.max_len, dtype=torch.int32)
                start, end = center - x.size(1), center + x.size(1)
                return self.pe[:, start.long():end.long()]
        """,
        fix_safety="""
            Safe: a slice reads a 0-d integer tensor's value (`__index__`), and `.long()` of an
            int32 (or narrower) integer is the same integer, so the same elements are selected.
            Reported where the code shows the dtype or the run saw only that dtype at every call,
            and not for a function's parameter (a caller the run did not see may pass a Python
            int, which has no `.long()`).
        """,
        references=("https://github.com/NVIDIA-NeMo/Speech/pull/5309",),
    )

    def visit_Subscript(self, node: ast.Subscript, ctx: FunctionContext):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        bounds = [b for part in parts if isinstance(part, ast.Slice) for b in (part.lower, part.upper, part.step)
                  if b is not None and narrow_integer_dtype(b, ctx) is not None]
        if not bounds:
            return
        edits = tuple(ctx.replace(b, operand(ctx.segment(b), b, ATOM) + ".long()") for b in bounds)
        names = ", ".join(f"`{ctx.segment(b)}`" for b in bounds)
        dtypes = "/".join(sorted({narrow_integer_dtype(b, ctx) for b in bounds}))
        article = "a" if dtypes.startswith("u") else "an"
        what, them = (f"slice bound {names} is {article} {dtypes} tensor", "it") if len(bounds) == 1 else (
            f"slice bounds {names} are {dtypes} tensors", "them")
        yield ctx.report(
            self, node,
            f"{what}: the legacy exporter writes {them} beside int64 bounds into one ONNX Slice, "
            f"which onnxruntime refuses; `.long()` {them}",
            fix=Fix("Make the bound an int64 tensor (`.long()`)", edits, safe=True),
        )


RULES = [NarrowSliceBound]
