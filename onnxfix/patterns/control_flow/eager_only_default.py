"""ONX605: a default filled in only outside export (`if mask is None and not is_compiling():`).

Libraries skip work under capture with an export guard in the condition: transformers' UDOP,
Pegasus, LongT5 and others build an all-ones attention mask only `if attention_mask is None and
not is_torchdynamo_compiling()`. Under the dynamo exporter the name stays None, and the code
after it is traced with None where eager has a tensor: another computation than eager's, or a
failure further down (`'NoneType' object has no attribute 'size'`) far from its cause.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import (
    ANY_EXPORT_GUARD,
    TRUE_UNDER_BOTH_EXPORTS,
    TRUE_UNDER_LEGACY_EXPORT,
    guard_call_name,
    negated_guard_call,
)
from onnxfix.rewriter.none_defaults import none_test
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk

def guard_name(node: ast.AST) -> str | None:
    """'is_torchdynamo_compiling' for `not is_torchdynamo_compiling()` / `not torch.compiler.is_compiling()`."""
    call = negated_guard_call(node)
    return guard_call_name(call) if call is not None else None


def assigns(body: list[ast.stmt], name: str) -> bool:
    """Whether the branch gives ``name`` a value (the default being filled in)."""
    for statement in body:
        for node in walk(statement):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            if any(ast.unparse(t) == name for t in targets):
                return True
    return False


def exporters_of(guard: str) -> tuple[str, ...]:
    if guard in TRUE_UNDER_BOTH_EXPORTS:
        return ("dynamo", "legacy")
    return ("legacy",) if guard in TRUE_UNDER_LEGACY_EXPORT else ("dynamo",)


class EagerOnlyDefault(Rule):
    code = "ONX605"
    name = "eager-only-default"
    summary = "A None default filled in only outside export: the exported model runs with None where eager has a value"
    fix_availability = "always"
    default_safety = "unsafe"
    triggers = tuple(sorted(ANY_EXPORT_GUARD))
    doc = RuleDoc(
        what="Finds `if x is None and not <export guard>(): x = ...` in export-time code: a value "
        "filled in only when the model is not being captured (`is_torchdynamo_compiling()`, "
        "`torch.compiler.is_compiling()` / `is_exporting()`, `torch.jit.is_tracing()`, "
        "`torch.onnx.is_in_onnx_export()`).",
        why="The guard is True while an exporter traces, so the branch is skipped and `x` stays None "
        "for the rest of the export: the exported graph follows another path than eager's (no mask "
        "where eager built one), or the capture fails later at a line that reads `x` "
        "(`AttributeError: 'NoneType' object has no attribute 'size'`), far from the cause.",
        example="def forward(self, ids, attention_mask=None):\n"
        "    if attention_mask is None and not is_torchdynamo_compiling():\n"
        "        attention_mask = torch.ones_like(ids)\n"
        "    return self.encoder(ids, attention_mask.size(1))",
        use_instead="def forward(self, ids, attention_mask=None):\n"
        "    if attention_mask is None:\n"
        "        attention_mask = torch.ones_like(ids)\n"
        "    return self.encoder(ids, attention_mask.size(1))",
        fix_safety="Unsafe: eager PyTorch computes exactly what it did (the guard is False outside "
        "capture, so the condition is unchanged), but torch.compile and the exporters now trace "
        "the default too: the point of the fix, and a change for code that relied on the skip "
        "under torch.compile. `onnxfix export --fix` keeps it only where no exporter gets worse.",
        references=("https://github.com/huggingface/transformers/blob/main/src/transformers/models/udop/modeling_udop.py",),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        test = node.test
        if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
            return
        names = [none_test(value) for value in test.values]
        filled = next((n for n in names if n and assigns(node.body, n)), None)
        guards = [(i, guard_name(value)) for i, value in enumerate(test.values) if guard_name(value)]
        if filled is None or not guards:
            return
        edits = tuple(self._drop_operand(test, index, ctx) for index, _ in guards)
        exporters = tuple(sorted({e for _, g in guards for e in exporters_of(g)}))
        guard = guards[0][1]
        fix = Fix(f"Drop `not {guard}()` from the condition: the default is filled in under export too", edits, safe=False)
        message = (f"`{filled}` is filled in only outside capture (`not {guard}()`): under the "
                   f"{' and '.join(exporters)} exporter{'s' if len(exporters) > 1 else ''} it stays None and the export "
                   "traces another path than eager's")
        yield ctx.report(self, node.test, message, fix=fix, exporters=exporters)

    @staticmethod
    def _drop_operand(test: ast.BoolOp, index: int, ctx: FunctionContext) -> Edit:
        """The operand's text with the `and` joining it to its neighbour."""
        span, text = ctx.file.source.span, ctx.file.source.text
        if index > 0:
            start, end = span(test.values[index - 1])[1], span(test.values[index])[1]
        else:
            start, end = span(test.values[0])[0], span(test.values[1])[0]
        # parentheses around the operand alone go with it: `x is None and (\n not g()\n)`
        balance = text.count("(", start, end) - text.count(")", start, end)
        while balance > 0 and text[end:].lstrip().startswith(")"):
            end = len(text) - len(text[end:].lstrip()) + 1
            balance -= 1
        while balance < 0 and text[:start].rstrip().endswith("("):
            start = len(text[:start].rstrip()) - 1
            balance += 1
        return Edit(start, end, "")


RULES = [EagerOnlyDefault]
