"""ONX611: a data-dependent guard torch.export could not decide, decided by the check it
suggests, where `onnxfix export`'s run saw that check hold.

A value read out of a tensor (`start_pos = t.item()`, a count from `nonzero`) is an unbacked
symbol under torch.export; a guard on it that the code needs decided (`Eq(1, u0 + 1)`: does a
broadcast see a size 1?) stops the export, and torch names the call and suggests
`torch._check(...)` calls in the user's names (exporter/suggested_checks.py). The run
evaluates each suggestion at that line, on the example and the probes, and this rule inserts
the ones that held every time, before the statement, under `torch.compiler.is_exporting()`.
A Python `if` on such a value gets no suggestion (the test is the guard): its test and its
negation are the candidates (exporter/suggested_checks.branch_checks), so a branch the run took
every time is checked the same way; a test on a tensor's value, which torch._check does not take,
keeps the branch the run always took while exporting (an assertion that always held: skipped).
These fixes assume what the run saw (`assumes_run`): the fix loop tries them after the others.
"""

from __future__ import annotations

import ast
import builtins

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.statements import is_elif
from onnxfix.rewriter.tree_walk import walk


class SuggestedCheck(Rule):
    code = "ONX611"
    name = "data-dependent-guard-check"
    summary = "A data-dependent guard torch.export could not decide, where the run saw its suggested check hold"
    fix_availability = "sometimes"  # none in TorchScript-compiled code, nor before an `elif` or `while` test
    default_safety = "safe"
    exporters = ("dynamo",)
    needs_run = True
    assumes_run = True  # the exported model keeps what held on the recorded inputs
    doc = RuleDoc(
        what="Under `onnxfix export`: a statement where torch.export stopped on a guard of a value "
        "read out of a tensor (\"Could not guard on data-dependent expression\") and suggested "
        "`torch._check(...)` calls, one of which held every time the run reached the line (the "
        "export inputs and the probes). And an `if` whose test is such a guard (`if "
        "positions.shape[0] > 0:` after a `nonzero`), where torch suggests nothing: its test, or "
        "its negation, when the run took the same branch every time. And an `if` or `assert` "
        "whose test is on a tensor's value (`if t[0] > t[1]:`, `assert t[0] == 0 and t[-1] == 1`), "
        "which no torch._check takes: when the run took the same branch every time (the assertion "
        "always held), that branch is kept while exporting (`not torch.compiler.is_exporting() and "
        "(...)` / `torch.compiler.is_exporting() or (...)`); also when a check that held did not "
        "decide the guard.",
        why="`x.item()`, `nonzero()` and friends give torch.export a symbol without a value. When a "
        "shape computation needs to know something about it (is `start_pos + 1` equal to 1, which "
        "decides whether a mask broadcasts), the export fails. `torch._check(cond)` tells torch.export "
        "the answer; the ONNX model then computes with the symbol as before. For an `if`, the "
        "exported model keeps the branch the run always took: like the legacy exporter's trace, "
        "but only after every recorded input took it.",
        example="def forward(self, x, start_pos, cache):\n    sp = start_pos.item()\n"
        "    keys = cache[:, : sp + 1]\n    return torch.softmax(x @ keys.transpose(1, 2), -1)",
        use_instead="def forward(self, x, start_pos, cache):\n    sp = start_pos.item()\n"
        "    keys = cache[:, : sp + 1]\n    if torch.compiler.is_exporting():\n"
        "        torch._check(1 != (1 + sp))\n    return torch.softmax(x @ keys.transpose(1, 2), -1)",
        fix_safety="Safe: eager PyTorch (and torch.compile) never run the check, so they compute "
        "exactly what they did. Under torch.export the check is an assumption the exported model "
        "keeps: it held on every input the run saw (the export inputs and the probes), and `onnxfix "
        "export` keeps the fix only if onnxruntime then matches eager on those inputs.",
        references=("https://docs.pytorch.org/docs/stable/export.html#data-dependent-errors",),
    )

    def check_function(self, ctx: FunctionContext):
        evidence = ctx.file.evidence
        if evidence is None or not evidence.checks or ctx.compiled_by_torchscript:
            return
        statements = [node for node, _ in walk_function_body(ctx.fn.node) if isinstance(node, ast.stmt)]
        bound = _bound_names(ctx.fn.node)
        module = ctx.file.module.scope

        def readable(name: str) -> bool:  # the frame's locals (not a comprehension's), globals, builtins
            return name in bound or module.is_local(name) or (hasattr(builtins, name) and ctx.is_builtin(name))

        for line, held in sorted(evidence.checks.items()):
            statement = _innermost(statements, line)
            conditions = tuple(c for c in held if _names(c) and all(readable(n) for n in _names(c)))
            taken = _branch_taken(statement, conditions)
            conditions = tuple(c for c in conditions if not c.startswith(("bool(", "not bool(")))
            checked = statement is not None and bool(conditions) and _checked_before(statement, conditions, statements, ctx)
            if taken is not None and (not conditions or checked) and not is_elif(statement, ctx):
                # no check torch._check takes held, or those that held did not decide the guard
                yield self._keep_branch(statement, taken, ctx)
                continue
            if statement is None or not conditions or checked or not _insertable(statement, statements, ctx):
                continue  # (checked: a block kept earlier checks all of them, and did not decide the guard)
            torch_name, imports = ctx.torch_name()
            earlier = _check_block_before(statement, statements, ctx)
            if earlier is not None:  # a block kept in an earlier round checks some: one block, checking all
                checked = _block_checks(earlier)
                kept = [ctx.segment(c.value.args[0]) for c in earlier.body]  # as written: _block_checks holds
                conditions = tuple(dict.fromkeys((*kept, *(c for c in conditions if _normal(c) not in checked))))
                start = ctx.file.source.line_starts[earlier.lineno - 1]
                edit = Edit(start, ctx.file.source.line_starts[statement.lineno - 1],
                            _insert_before(statement, torch_name, conditions, ctx).text)
            else:
                edit = _insert_before(statement, torch_name, conditions, ctx)
            fix = Fix("Check what held on every recorded call while exporting", (edit,), safe=True, imports=imports,
                      key=" and ".join(conditions))
            checks = ", ".join(f"`{c}`" for c in conditions)
            message = (f"torch.export could not decide a guard on a value read out of a tensor here; {checks} held "
                       "every time the run reached this line: check it while exporting (torch._check)")
            yield ctx.report(self, statement, message, fix=fix)


    def _keep_branch(self, statement: ast.If | ast.Assert, taken: bool, ctx: FunctionContext):
        """`if <test on a tensor's value>:` whose branch the run took every time: that branch
        while exporting, the test as before in eager (an `assert` that held: skipped)."""
        torch_name, imports = ctx.torch_name()
        test = ctx.segment(statement.test)
        grouped = f"({test})" if isinstance(statement.test, (ast.BoolOp, ast.IfExp, ast.Lambda)) else test
        exporting = f"{torch_name}.compiler.is_exporting()"
        text = f"{exporting} or {grouped}" if taken else f"not {exporting} and {grouped}"
        fix = Fix("Keep the branch every recorded call took while exporting", (ctx.replace(statement.test, text),),
                  safe=True, imports=imports, key=f"branch {taken}")
        side = "taken" if taken else "skipped"
        message = (f"torch.export could not decide this test on a tensor's value; the run {'took' if taken else 'skipped'} "
                   f"the branch every time it reached it: keep it {side} while exporting (eager tests as before)")
        if isinstance(statement, ast.Assert):
            message = ("torch.export could not decide this assertion on a tensor's value; it held every time the "
                       "run reached it: skip it while exporting (eager checks as before)")
        return ctx.report(self, statement, message, fix=fix)


def _checked_before(statement: ast.stmt, conditions: tuple[str, ...], statements: list[ast.stmt],
                    ctx: FunctionContext) -> bool:
    """The statement right before ``statement`` is this rule's `if ....is_exporting():` block
    checking every one of ``conditions`` (a fix kept earlier, which did not decide the guard)."""
    block = _check_block_before(statement, statements, ctx)
    if block is None:
        return False
    normalized = {_normal(c) for c in conditions if _names(c)}
    return bool(normalized) and normalized <= set(_block_checks(block))


def _normal(condition: str) -> str:
    return ast.unparse(ast.parse(condition, mode="eval").body)


def _check_block_before(statement: ast.stmt, statements: list[ast.stmt], ctx: FunctionContext) -> ast.If | None:
    """This rule's `if ....is_exporting():  # ... (onnxfix ONX611)` block right before ``statement``,
    every statement of it a `torch._check(<condition>)`."""
    parent = ctx.parent(statement)
    body = next((b for b in (getattr(parent, f, None) for f in ("body", "orelse", "finalbody")) if
                 isinstance(b, list) and statement in b), None)
    at = body.index(statement) if body is not None else 0
    block = body[at - 1] if at > 0 else None  # the statement before it in the same block
    if not (isinstance(block, ast.If) and not block.orelse and (block.end_lineno or block.lineno) == statement.lineno - 1
            and ctx.segment(block.test).endswith("compiler.is_exporting()")
            and len(_block_checks(block)) == len(block.body)):
        return None
    source = ctx.file.source
    lines = source.text[source.line_starts[block.lineno - 1]:source.span(block)[1]].split("\n")
    # the rule's own marker on the header, no comment among the checks (the merge rewrites them)
    return block if "(onnxfix ONX611)" in lines[0] and not any("#" in line for line in lines[1:]) else None


def _block_checks(block: ast.If) -> list[str]:
    """The conditions a check block passes to torch._check, in order (normalized)."""
    return [ast.unparse(c.value.args[0]) for c in block.body if isinstance(c, ast.Expr)
            and isinstance(c.value, ast.Call) and isinstance(c.value.func, ast.Attribute)
            and c.value.func.attr == "_check" and len(c.value.args) == 1 and not c.value.keywords]


def _branch_taken(statement: ast.stmt | None, held: tuple[str, ...]) -> bool | None:
    """True / False when the run's `bool(<test>)` / `not bool(<test>)` of this `if` held every
    time (exporter/suggested_checks.branch_checks), else None."""
    if not isinstance(statement, (ast.If, ast.Assert)):
        return None
    test = ast.unparse(statement.test)
    if f"bool({test})" in held:
        return True
    if f"not bool({test})" in held:
        return False
    return None


_OWN_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.FunctionDef,
               ast.AsyncFunctionDef, ast.ClassDef)


def _bound_names(function: ast.AST) -> set[str]:
    """The parameters and the names the function's own statements bind."""
    args = function.args
    bound = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    pending = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        pending.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _OWN_SCOPES))
    return bound


def _names(condition: str) -> set[str]:
    """The names a condition reads (empty when it does not parse: evidence written by hand)."""
    try:
        tree = ast.parse(condition, mode="eval")
    except SyntaxError:
        return set()
    return {n.id for n in walk(tree) if isinstance(n, ast.Name)}


def _innermost(statements: list[ast.stmt], line: int) -> ast.stmt | None:
    """The innermost statement spanning ``line`` (a call inside a compound statement's header
    belongs to the compound, one in its body to the body's statement); None when the line is in
    a nested function or class, whose frame is not this function's."""
    spanning = [s for s in statements if s.lineno <= line <= (s.end_lineno or s.lineno)]
    if any(isinstance(s, _OWN_SCOPES) for s in spanning):
        return None
    return max(spanning, key=lambda s: (s.lineno, -(s.end_lineno or s.lineno), s.col_offset), default=None)


def _insertable(statement: ast.stmt, statements: list[ast.stmt], ctx: FunctionContext) -> bool:
    """A statement a check can go before: alone on its first line (not after `;` or a
    compound's colon, nor before another statement there), and not a test evaluated again
    (`while`) or only after earlier tests (`elif`)."""
    if isinstance(statement, ast.While) or is_elif(statement, ctx):
        return False
    if any(s is not statement and s.lineno == statement.lineno for s in statements):
        return False
    source = ctx.file.source
    start = source.line_starts[statement.lineno - 1]
    return not source.text[start:source.span(statement)[0]].strip()


def _insert_before(statement: ast.stmt, torch_name: str, conditions: tuple[str, ...], ctx: FunctionContext) -> Edit:
    source = ctx.file.source
    start = source.line_starts[statement.lineno - 1]
    indent = source.text[start:source.span(statement)[0]]
    inner = indent + ("\t" if "\t" in indent else "    ")
    checks = "".join(f"{inner}{torch_name}._check({c})\n" for c in conditions)  # the engine sets line endings
    return Edit(start, start, f"{indent}if {torch_name}.compiler.is_exporting():  # decides torch.export's guard "
                              f"(onnxfix ONX611)\n{checks}")


RULES = [SuggestedCheck]
