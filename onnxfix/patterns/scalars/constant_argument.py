"""ONX209: an argument a legacy symbolic takes only as a constant, read from a traced shape.

TiRex's and xLSTM's multi-head layer norm call `F.group_norm(x, num_groups=NH, ...)` with `NH`
unpacked from `input.shape`. While the legacy exporter traces, a size read from a shape is a graph
value; the group_norm symbolic needs `num_groups` as a constant and stops ("Expected node type
'onnx::Constant' for argument 'num_groups' of node 'group_norm', got 'onnx::Gather'"). The
heads are a static dim: `int(NH)` records the traced value as the constant the symbolic wants.
Only `onnxfix export` knows that the argument failed so (ONX922 at the line), and only its
probes, which vary the dynamic dims, show that the value is the same for every input.
"""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_number
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.signatures import bound_argument, is_random

# the int() this fix writes records a traced size as a constant on purpose: ONX203, which removes
# such an int() elsewhere, is told so on the line
KEEP = "  # noqa: ONX203 (a constant the legacy exporter needs)"


class LegacyConstantArgument(Rule):
    code = "ONX209"
    name = "legacy-constant-argument"
    summary = "An argument the legacy exporter takes only as a constant, given a size it traced as a graph value"
    fix_availability = "sometimes"  # an argument bound by name (a keyword, or torch's signatures)
    default_safety = "safe"
    exporters = (LEGACY,)
    needs_run = True
    doc = RuleDoc(
        what="Under `onnxfix export`: a call where the legacy exporter stopped because a symbolic "
        "takes an argument only as a constant and got a graph value (ONX922: \"Expected node type "
        "'onnx::Constant' for argument 'num_groups' of node 'group_norm'\", \"expected a constant "
        "value of the 'high' argument\"), given an int computed from sizes, by keyword or by position "
        "(bound with torch's own signatures, read off the installed torch into onnxfix/data: "
        "TiRex's and xLSTM's `F.group_norm(x, num_groups=NH)`, `NH` from `input.shape`).",
        why="While the legacy exporter traces, a size read from a tensor's shape is a graph value "
        "(that keeps reshapes dynamic); a symbolic that reads the argument as an attribute (a "
        "group count, an RNG bound) cannot take one and the export fails.",
        example="def forward(self, x):\n    b, nh, s, dh = x.shape\n"
        "    return F.group_norm(x.transpose(1, 2).reshape(b * s, nh * dh), num_groups=nh)",
        use_instead="def forward(self, x):\n    b, nh, s, dh = x.shape\n"
        "    return F.group_norm(x.transpose(1, 2).reshape(b * s, nh * dh), num_groups=int(nh))"
        "  # noqa: ONX203",
        fix_safety="Safe in eager: `int()` of an int is the int. The legacy exporter records the "
        "value as a constant, right only when the size is the same for every input: `onnxfix "
        "export` keeps the fix only if onnxruntime then matches eager on its probes, which vary the "
        "dynamic dims (a size that varies with them comes out wrong there, and the fix is dropped). "
        "`# noqa: ONX203` on the line keeps ONX203 from removing the `int()` again. No fix for an "
        "argument of a random function (ATen's nondeterministic_seeded tag: `torch.randint`'s bound), "
        "whose outputs no probe can compare.",
        references=("https://github.com/NX-AI/tirex/pull/28",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        evidence = ctx.file.evidence
        if evidence is None or not evidence.constant_arguments:
            return
        lines = range(node.lineno, (node.end_lineno or node.lineno) + 1)
        wanted = frozenset().union(*(evidence.constant_arguments.get(line, frozenset()) for line in lines))
        qualname = ctx.qualname(node.func) or ""
        for argument in sorted(wanted):
            value = bound_argument(node, qualname, argument)
            if value is None or is_number(value) or not ctx.ints.is_int(value):
                continue
            if is_random(qualname):  # PointNet's `torch.randint(0, N, ...)`: no probe can tell a wrong bound
                yield ctx.report(self, value, f"`{argument}={ctx.segment(value)}`: the legacy exporter takes "
                                 f"`{argument}` only as a constant and traced this size as a graph value; no fix: "
                                 f"`{qualname}` is random, so no probe can show that one constant serves every input")
                continue
            source = ctx.file.source
            end_of_line = source.line_starts[value.end_lineno - 1] + len(source.line_text(value.end_lineno))
            edits = (ctx.replace(value, f"int({ctx.segment(value)})"), Edit(end_of_line, end_of_line, KEEP))
            fix = Fix("Record the size as the constant the symbolic takes", edits, safe=True)
            yield ctx.report(self, value, f"`{argument}={ctx.segment(value)}`: the legacy exporter takes "
                             f"`{argument}` only as a constant and traced this size as a graph value; `int()` "
                             "records it (kept only if the probes, which vary the dynamic dims, still match)", fix=fix)


RULES = [LegacyConstantArgument]
