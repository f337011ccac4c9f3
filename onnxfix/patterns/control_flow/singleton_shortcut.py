"""ONX616: a value built only where a size is over 1, None for one element.

Transformers' decoders before 4.36 (LLaMA, OPT, BART, BLOOM) build the causal mask only for a prompt:

    combined_attention_mask = None
    if input_shape[-1] > 1:
        combined_attention_mask = _make_causal_mask(input_shape, ...)

and read `None` as "no mask". Exported with one new token (a decoder with past, as Optimum exports it),
both exporters keep the example's branch: the model has no causal mask and is silently wrong when fed
several tokens; exported with a prompt, the length-1 branch is gone. Under export the value is built
for every size; for one element it is the mask of one query row, which masks nothing.
"""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.patterns.export_checks import test_under_export
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.statements import block_of, is_elif, single_name_assignment
from onnxfix.rewriter.tree_walk import stored_names, walk


class SingletonShortcut(Rule):
    code = "ONX616"
    name = "singleton-shortcut"
    summary = "A value built only where a size is over 1 (None for one element): built for every size under export"
    fix_availability = "always"
    default_safety = "unsafe"
    exporters = (DYNAMO, LEGACY)
    doc = RuleDoc(
        what="Finds an `if` with no `else` whose test is a size compared with 1 (`if input_shape[-1] > 1:`, "
        "`if src_length > 1:`, `>= 2`, `!= 1`) and whose statements only assign names that are `None` "
        "just before it, one of them a value built from the size (the size itself, the shape it is an item of, or "
        "the tuple it was unpacked from: a value built from other things under a test of a channel count is "
        "left alone): transformers' `_prepare_decoder_attention_mask` (LLaMA, OPT, BART before 4.36) and "
        "BLOOM's `_prepare_attn_mask`, which build the causal mask only for more than one new token.",
        why="Both exporters decide the test on the example: a decoder exported with one new token (a "
        "decoder with past) keeps `None`, no causal mask, and attends non-causally when fed several "
        "tokens; exported with several, the one-token branch is gone. Measured on torch 2.13: "
        "tests/flow_models/singleton_shortcut.py, SILENTLY-WRONG under both exporters before.",
        example="def forward(self, x, past):\n    mask = None\n    if x.shape[1] > 1:\n"
        "        mask = causal_mask(x.shape[1], past.shape[2])\n    return attend(x, past, mask)",
        use_instead="def forward(self, x, past):\n    mask = None\n"
        "    if torch.jit.is_tracing() or torch.compiler.is_exporting() or x.shape[1] > 1:\n"
        "        mask = causal_mask(x.shape[1], past.shape[2])\n    return attend(x, past, mask)",
        fix_safety="Unsafe. Eager evaluates the same test and keeps `None` for one element (both checks "
        "are False outside the exporters). Under export the value is built for every size: the exported "
        "model is right only where the value built for one element is a no-op where it is used (a causal "
        "mask of one query row masks nothing; with a past, nothing either), which the analysis does not "
        "prove; `onnxfix export` keeps the fix only where the export matches PyTorch on other sizes. "
        "tests/flow_models/singleton_shortcut.py: SILENTLY-WRONG under both exporters before, OK under "
        "both after.",
        references=("https://github.com/huggingface/optimum/pull/1473", "https://github.com/pytorch/pytorch/issues/136592"),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        if node.orelse or is_elif(node, ctx) or consults_export_guard(node.test) or not node.body:
            return
        size = _over_one(node.test, ctx)
        if size is None:
            return
        names = [single_name_assignment(statement) for statement in node.body]
        if not all(names) or not all(_none_just_before(name, node, ctx) for name in names):
            return
        if not any(_reads_size(statement.value, size, ctx) for statement in node.body):
            return  # built from other values (a channel mixer for more than one channel): a fixed dim, likely
        edit, imports = test_under_export(node.test, ctx, taken=True)
        fix = Fix("Build the value for every size under export", (edit,), safe=False, imports=imports)
        shown = ", ".join(f"`{name}`" for name in dict.fromkeys(names))
        yield ctx.report(
            self, node.test,
            f"{shown} is built only where `{ctx.segment(node.test)}` (None for one element): both exporters keep "
            "the example's branch, so a model exported with one element drops the value for every size (and "
            "one exported with more drops the one-element case); build it for every size under export "
            "(unsafe: right where the value built for one element changes nothing, as a causal mask of "
            "one query row)",
            fix=fix,
        )


def _over_one(test: ast.expr, ctx: FunctionContext) -> ast.expr | None:
    """S of `S > 1`, `1 < S`, `S >= 2`, `2 <= S`, `S != 1` with S a size."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, ast.Gt) and int_constant(right) == 1 or isinstance(op, ast.GtE) and int_constant(right) == 2 \
            or isinstance(op, ast.NotEq) and int_constant(right) == 1:
        size = left
    elif isinstance(op, ast.Lt) and int_constant(left) == 1 or isinstance(op, ast.LtE) and int_constant(left) == 2 \
            or isinstance(op, ast.NotEq) and int_constant(left) == 1:
        size = right
    else:
        return None
    return size if ctx.sizes.is_size(size) else None


def _reads_size(value: ast.expr, size: ast.expr, ctx: FunctionContext) -> bool:
    """The value is built from the tested size: it reads the size itself, the name or shape the size
    is an item of (`_make_causal_mask(input_shape, ...)` under `if input_shape[-1] > 1:`), or the
    sequence a tested name was unpacked from (BLOOM's `_, src_length = input_shape`)."""
    sources = {ctx.segment(size)}
    if isinstance(size, ast.Subscript):
        sources.add(ctx.segment(size.value))
    if isinstance(size, ast.Name):
        for binding in ctx.assignments(size.id):
            if isinstance(binding, ast.Assign):  # `_, src_length = input_shape`
                sources.add(ctx.segment(binding.value))
    return any(isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)) and ctx.segment(n) in sources
               for n in walk(value))


def _none_just_before(name: str, node: ast.If, ctx: FunctionContext) -> bool:
    """`name = None` is a statement of the `if`'s own block before it, and nothing between binds
    the name again (the value the `if` leaves alone is None)."""
    block = block_of(node, ctx)
    before = block[:next((i for i, s in enumerate(block) if s is node), 0)]
    for statement in reversed(before):
        if name in stored_names(statement):
            return (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.value, ast.Constant) and statement.value.value is None)
    return False


RULES = [SingletonShortcut]
