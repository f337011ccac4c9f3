"""ONX613: an `if` on sizes whose guard specialized a dynamic dim: both branches kept with torch.cond.

torch.export evaluates `if scores.shape[0] > nms_pre:` on the example's sizes and records a guard:
the exported model takes the example's branch for every size (mmdetection's RPN keeps all anchors
where more than `nms_pre` must be cut), or the dim is pinned (ONX914) or restricted (ONX915). Where a
recorded run (`onnxfix export --fix`) names the `if`'s line as the guard's, the branches become
nested functions and `_onnx_size_cond` picks one: in eager the same Python `if`, under torch.export
`torch.cond`, which the dynamo exporter writes as an ONNX `If`.

The rewrite is text edits that keep every statement of the branches where it was (comments and
formatting too): `if <test>:` becomes `def _onnx_if_<line>(<operands>):`, `else:` becomes
`def _onnx_else_<line>(<operands>):`, each gets a `return` of the names the code after the `if` reads,
and one call binds them.
"""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.patterns.control_flow.best_rows_cut import best_rows_cut
from onnxfix.patterns.control_flow.conditions import tensor_condition
from onnxfix.patterns.control_flow.nested_branches import (
    branch_plan, cond_fix, early_return_fix, early_return_rest, movable,
)
from onnxfix.patterns.control_flow.value_cond import Predicate, value_predicate
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.evidence import all_tensors
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc
from onnxfix.rewriter.statements import is_elif

SIZE_COND = Helper("_onnx_size_cond", helper_source("size_cond"))
TITLE = "Keep both branches with torch.cond under export"


class SizeBranchCond(Rule):
    code = "ONX613"
    name = "size-branch-cond"
    summary = "An `if` on sizes that torch.export specialized (or on a value it could not decide): keep both branches with torch.cond"
    fix_availability = "sometimes"
    default_safety = "per-finding"  # safe on sizes; on a tensor's value unsafe where the predicate is not the test
    exporters = ("dynamo",)
    needs_run = True  # keyed on the guard lines of an `onnxfix export` run
    doc = RuleDoc(
        what="Finds an `if` (or a conditional expression) whose line a recorded export run (`onnxfix export "
        "--fix`) names as the place where a guard specialized or restricted a dynamic dimension (ONX914/ONX915), "
        "or stopped on a size it could not decide (ONX913: a size out of an earlier torch.cond), when the test "
        "reads no tensor value (for one that does, see below) and the branches only compute: assignments and calls, no `break`/`continue` out "
        "of the `if`, `raise`, `del`, `try`, in-place updates or writes to attributes, items or containers. "
        "The guard may also be one that no size tried restricts but a failing probe's sizes break (DINOv2's "
        "`if npatch == N and w == h:`, true only where height and width both change). Size comparisons joined by "
        "`and` / `or` become one predicate joined by `&` / `|` where no operand can raise (names, constants, "
        "attributes, `+ - *`): Python's `and` would ask the first comparison's truth, a guard. "
        "A test over several lines counts where the guard is at any of them; an `elif` chain after the "
        "`if` becomes the false branch's function (its `elif` an `if`, indented one level). "
        "Three forms: branches that bind names (the names they bind and the code after reads, each a tensor "
        "every time the run saw it, become the functions' results); both branches ending in `return`; and an "
        "early `return` in the function's own body, the statements after the `if` (indented one level, unless "
        "a string literal spans lines there) becoming the other branch. Also an `if` on a tensor's value "
        "(ONX601's tests: `if x.mean() > 0:`, `if not self.threshold.isnan():`) whose line the run names as a "
        "data-dependent guard (ONX913), with branches torch.where cannot take (several statements, an early "
        "exit): the predicate is the test's bool tensor (ONX601's torch.where text), `_onnx_value_cond` the "
        "helper; in an `and` / `or`, Python operands first stay as they were and the tensor tests after them "
        "are joined by `&` / `|`.",
        why="torch.export evaluates a Python `if` on symbolic sizes with the example's sizes: it records a "
        "guard and keeps only the branch the example takes. The exported model then takes that branch for "
        "every size (silently wrong where the other was due: mmdetection's RPN keeps every anchor where it "
        "must cut to `nms_pre`), or the dimension is pinned to the example (ONX914) or restricted to the "
        "example's side of the test (ONX915). `torch.cond` with the test as its predicate keeps both "
        "branches; the dynamo exporter writes an ONNX `If` (measured on torch 2.13: branches whose outputs "
        "have different sizes export and run in onnxruntime for sizes on both sides).",
        example="def forward(self, scores):\n    if scores.shape[0] > self.k:\n"
        "        scores = scores.sort(descending=True)[0][: self.k]\n    return scores * 2",
        use_instead="def forward(self, scores):\n    def _onnx_if_2(scores):\n"
        "        scores = scores.sort(descending=True)[0][: self.k]\n        return scores\n"
        "    def _onnx_else_2(scores):\n        return scores\n"
        "    scores = _onnx_size_cond(scores.shape[0] > self.k, _onnx_if_2, _onnx_else_2, (scores,))\n"
        "    return scores * 2",
        fix_safety="Safe: outside torch.export `_onnx_size_cond` is the `if` itself, `if_true(*operands) if "
        "pred else if_false(*operands)`, and the nested functions hold the branches' statements unchanged, "
        "in the same order, on the same values (the names a branch rebinds and reads are passed in; the "
        "others are read from the enclosing function, as before). The legacy exporter traces both branches "
        "and selects by the traced test (each result gathered to the picked branch's sizes, so the picked one "
        "comes back whole); where a branch cannot run at the export's sizes it traces the `if` as before. "
        "Under torch.export the branches are traced by torch.cond, which "
        "may refuse what Python ran: a value dynamo cannot trace (mmdetection's config dict with its own "
        "`__getattr__`), a branch valid only where its test holds (`if n == len(table): return x + table` "
        "broadcasts only for that length: tracing it pins the size). `onnxfix export --fix` keeps the rewrite "
        "only where no exporter's verdict gets worse (a loud failure turned into a model that loads is worse). "
        "On a tensor's value: `_onnx_value_cond` is the `if` on the predicate's truth outside torch.export, "
        "which is the test's truth for a comparison, `~` of a test, `t.isnan()` and the like, `any()` / `all()` "
        "(`!= 0` for a non-bool one): safe. Unsafe where the predicate is not the test: a comparison whose "
        "`.item()` is dropped (made in the tensor's dtype, not as a double), and `&` / `|` joins, which "
        "evaluate every operand where `and` / `or` stopped at the first that decided (one that raises, or "
        "has more than one element, now does so); Python operands before one tensor test are evaluated as "
        "before (safe), and a plain flag, constant or `is` test after it is moved before it (XMem's "
        "`if h_out[0]==1 and self.flag:`): safe where the tensor test calls nothing, which the flag may now skip.",
        references=("https://docs.pytorch.org/docs/stable/generated/torch.cond.html",
                    "https://github.com/open-mmlab/mmdetection/issues/2299"),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        if ctx.evidence is None or not _guarded_line(node, ctx):
            return
        if ctx.compiled_by_torchscript or consults_export_guard(node.test) or is_elif(node, ctx):
            return
        on_value = tensor_condition(node.test, ctx) is not None
        if on_value:  # torch.export could not decide it (ONX913): the tensor itself is the predicate
            pred = value_predicate(node.test, ctx) if ctx.file.evidence.guarded(node.test, ("data_dependent",)) else None
        else:
            pred = Predicate(size_predicate_text(node.test, ctx), SIZE_COND, True)
        if pred is None:
            return
        plan = branch_plan(node, ctx, *_tensors_only(ctx))
        if plan is not None:
            fix = cond_fix(node, *plan, pred, ctx, TITLE)
        else:
            rest = early_return_rest(node, ctx, *_tensors_only(ctx))
            fix = early_return_fix(node, rest, pred, ctx, TITLE) if rest else None
        if fix is None:
            return
        cut = best_rows_cut(node, ctx)  # ONX615's fix takes the cut for every size, under both exporters
        yield ctx.report(self, node.test, VALUE_MESSAGE if on_value else SIZE_MESSAGE, fix=fix,
                         deferred_to=("ONX615", cut[0]) if cut is not None else None)

    def visit_IfExp(self, node: ast.IfExp, ctx: FunctionContext):
        if not _guarded_line(node, ctx) or ctx.compiled_by_torchscript:
            return
        if consults_export_guard(node.test) or tensor_condition(node.test, ctx) is not None:
            return
        if not (ctx.tensors.is_tensor(node.body) and ctx.tensors.is_tensor(node.orelse)):
            return  # torch.cond returns tensors only
        if not movable([node], ctx):
            return
        text = (f"{SIZE_COND.name}({ctx.segment(node.test)}, lambda: {ctx.segment(node.body)}, "
                f"lambda: {ctx.segment(node.orelse)})")
        fix = Fix("Keep both sides with torch.cond under export", (ctx.replace(node, text),), safe=True,
                  imports=("torch",), helpers=(SIZE_COND,))
        yield ctx.report(
            self, node.test,
            "conditional expression on sizes: torch.export decided it on the example's sizes and kept one side "
            "(the run's guard specialized a dynamic dim here); `torch.cond` keeps both in the exported graph",
            fix=fix)


SIZE_MESSAGE = ("`if` on sizes: torch.export decided it on the example's sizes and kept one branch (the run's guard "
                "specialized a dynamic dim here); `torch.cond` keeps both branches in the exported graph")
VALUE_MESSAGE = ("`if` on a tensor's value: torch.export could not decide it (the run stopped on its guard here); "
                 "`torch.cond` on the value keeps both branches in the exported graph")


def _guarded_line(node: ast.If | ast.IfExp, ctx: FunctionContext) -> bool:
    """The run's export stopped or specialized on a guard at a line of this test: a dynamic dim
    specialized (ONX914/915), or a size it could not decide (ONX913: a size out of an earlier torch.cond)."""
    evidence = ctx.file.evidence
    return evidence is not None and evidence.guarded(node.test)


def _returns_tensors(statement: ast.Return, ctx: FunctionContext) -> bool:
    value = statement.value
    items = value.elts if isinstance(value, ast.Tuple) else [value]
    recorded = ctx.evidence.returns.get(statement.lineno)
    if not isinstance(value, ast.Tuple) and all_tensors(recorded):
        return True
    return all(ctx.tensors.is_tensor(item) for item in items)


def _tensors_only(ctx: FunctionContext):
    """torch.cond takes and returns tensors only: (names every one of which the run saw a tensor
    each time, a `return` whose value the run saw as tensors or that reads as tensors)."""
    observed = ctx.evidence.names

    def takes(names: set[str]) -> bool:
        return all(all_tensors(observed.get(name)) for name in names)

    return takes, lambda statement: _returns_tensors(statement, ctx)


RULES = [SizeBranchCond]


def size_predicate_text(test: ast.expr, ctx: FunctionContext) -> str:
    """The test as torch.cond's predicate. `and` / `or` of size comparisons become `&` / `|`: Python's
    `and` asks the first comparison's truth, which torch.export answers from the example's sizes (a
    guard) before torch.cond sees anything (DINOv2's `npatch == N and w == h`); SymBools join with `&`
    into one symbolic predicate, and bools (eager) into the same truth. Only where no operand can raise
    or has an effect (names, constants, attributes, + - *), since every operand is now evaluated."""
    if isinstance(test, ast.BoolOp) and _joinable(test):
        joiner = " & " if isinstance(test.op, ast.And) else " | "
        return joiner.join(f"({size_predicate_text(v, ctx)})" for v in test.values)
    return ctx.segment(test)


def _joinable(node: ast.expr) -> bool:
    """Comparisons of plain operands, under `and` / `or` at any depth."""
    if isinstance(node, ast.BoolOp):
        return all(_joinable(v) for v in node.values)
    return isinstance(node, ast.Compare) and all(_plain_operand(n) for n in (node.left, *node.comparators))


def _plain_operand(node: ast.expr) -> bool:
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _plain_operand(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _plain_operand(node.operand)
    return (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult))
            and _plain_operand(node.left) and _plain_operand(node.right))
