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
from onnxfix.patterns.control_flow.conditions import tensor_condition
from onnxfix.patterns.control_flow.value_cond import VALUE_COND, Predicate, value_predicate
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.evidence import all_tensors
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Edit, Fix, Helper, Rule, RuleDoc
from onnxfix.rewriter.statements import is_elif, statement_indent
from onnxfix.rewriter.tensors import in_place_method

SIZE_COND = Helper("_onnx_size_cond", helper_source("size_cond"))
# statements a torch.cond branch cannot hold, or whose effect would leave the nested function
ESCAPES = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.Delete, ast.Raise,
           ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.AugAssign,
           ast.Try)
# container methods that write their receiver (a side effect torch.cond refuses; eager is the same either way)
MUTATORS = frozenset({"append", "extend", "insert", "pop", "update", "setdefault", "add", "clear", "remove",
                      "discard", "popitem"})
LOOPS = (ast.For, ast.While, ast.AsyncFor)


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
        "others are read from the enclosing function, as before). The legacy exporter traces that same "
        "`if` (its verdict cannot change). Under torch.export the branches are traced by torch.cond, which "
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
        "before (safe).",
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
            pred = value_predicate(node.test, ctx) if node.lineno in ctx.file.evidence.data_dependent else None
        else:
            pred = Predicate(ctx.segment(node.test), SIZE_COND, True)
        if pred is None:
            return
        plan = _branch_plan(node, ctx)
        if plan is not None:
            fix = _cond_fix(node, *plan, pred, ctx)
        else:
            rest = _early_return_rest(node, ctx)
            fix = _early_return_fix(node, rest, pred, ctx) if rest else None
        if fix is None:
            return
        yield ctx.report(self, node.test, VALUE_MESSAGE if on_value else SIZE_MESSAGE, fix=fix)

    def visit_IfExp(self, node: ast.IfExp, ctx: FunctionContext):
        if not _guarded_line(node, ctx) or ctx.compiled_by_torchscript:
            return
        if consults_export_guard(node.test) or tensor_condition(node.test, ctx) is not None:
            return
        if not (ctx.tensors.is_tensor(node.body) and ctx.tensors.is_tensor(node.orelse)):
            return  # torch.cond returns tensors only
        if not _movable([node], ctx):
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


def _guarded_line(node: ast.AST, ctx: FunctionContext) -> bool:
    """The run's export stopped or specialized on a guard at this line: a dynamic dim specialized
    (ONX914/915), or a size it could not decide (ONX913: a size out of an earlier torch.cond)."""
    evidence = ctx.file.evidence
    return evidence is not None and node.lineno in evidence.specialized | evidence.data_dependent


def _else_line(node: ast.If, ctx: FunctionContext) -> int | None:
    """The line of the `else:` keyword (None for an `elif` or an `else: <statement>` on one line)."""
    source = ctx.file.source
    for line in range(node.body[-1].end_lineno + 1, node.orelse[0].lineno):
        text = source.line_text(line).lstrip()
        if text.startswith("else") and text[4:].lstrip().startswith(":"):
            return line
    return None


def _branch_plan(node: ast.If, ctx: FunctionContext) -> tuple[list[str], list[str], bool] | None:
    """(outputs, operands, returns) of a rewritable `if`, or None. Outputs: the names a branch binds
    that the function reads outside the `if`; operands: the names a branch binds and also reads
    (passed in: a nested function that binds a name cannot read the enclosing one's)."""
    branches = [node.body, node.orelse]
    returns = bool(node.orelse) and all(isinstance(b[-1], ast.Return) and b[-1].value is not None for b in branches)
    for branch in branches:
        statements = branch[:-1] if returns else branch
        if not all(_only_computes(s) for s in statements):
            return None
    if not _own_lines(node, ctx) or not _movable([node], ctx):
        return None
    bound = [_names(b, ast.Store) for b in branches]
    outputs = [] if returns else sorted((bound[0] | bound[1]) & _read_outside(node, [node], ctx))
    # an output either starts as its value before the `if` (passed in: a branch that leaves it, or binds
    # it on some paths only, gives it back) or is bound by a statement of each branch itself
    given = {n for n in outputs if _bound_before(n, node, ctx)}
    if any(n not in given and not all(n in _top_level_stores(b) for b in branches) for n in outputs):
        return None
    operands = sorted(given | {n for b, names in zip(branches, bound) for n in names & _read_before_bound(b)})
    if not returns and not outputs:
        return None
    observed = ctx.evidence.names
    if not all(all_tensors(observed.get(name)) for name in {*outputs, *operands}):
        return None  # torch.cond takes and returns tensors only
    if returns and not all(_returns_tensors(b[-1], ctx) for b in branches):
        return None
    return outputs, operands, returns


def _own_lines(node: ast.If, ctx: FunctionContext) -> bool:
    """Each branch starts on a line of its own (not `if c: x = ...`, not an `elif`), and its
    statements are not joined by `;` to the header's line."""
    if node.body[0].lineno <= node.test.end_lineno:
        return False
    if not node.orelse:
        return True
    else_line = _else_line(node, ctx)
    return else_line is not None and node.orelse[0].lineno > else_line


def _movable(moved: list[ast.AST], ctx: FunctionContext) -> bool:
    """Code that means the same inside a nested function: no `:=` (it would bind there), no `super()`
    without arguments or `__class__` (a nested function has no class cell), no `global`/`nonlocal` in
    the function, and no name the code binds that a function or generator made elsewhere in the
    function reads (its cell would no longer be the one the code writes)."""
    inside = {id(n) for m in moved for n in ast.walk(m)}
    for node in (n for m in moved for n in ast.walk(m)):
        if isinstance(node, ast.NamedExpr) or (isinstance(node, ast.Name) and node.id == "__class__"):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            return False
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(ctx.fn.node)):
        return False
    stored = {n.id for m in moved for n in ast.walk(m) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    run_at_once = _run_at_once(ctx)
    for scope in ast.walk(ctx.fn.node):
        if scope is not ctx.fn.node and isinstance(scope, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef,
                                                            ast.GeneratorExp)) and id(scope) not in inside | run_at_once:
            if any(isinstance(n, ast.Name) and n.id in stored for n in ast.walk(scope)):
                return False
    return True


def _run_at_once(ctx: FunctionContext) -> set[int]:
    """This rule's own functions (an earlier round's): the branches `_onnx_size_cond` runs where it
    is called, before any code after it can rebind what they read."""
    own = set()
    for node in ast.walk(ctx.fn.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (SIZE_COND.name, VALUE_COND.name):
            own |= {id(a) for a in node.args if isinstance(a, ast.Lambda)}
        elif isinstance(node, ast.FunctionDef) and node.name.startswith(("_onnx_if_", "_onnx_else_")):
            own.add(id(node))
    return own


def _bound_before(name: str, node: ast.stmt, ctx: FunctionContext) -> bool:
    """A parameter, or bound by the function on an earlier line."""
    return ctx.is_parameter(name) or any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and n.lineno < node.lineno
        for n in ast.walk(ctx.fn.node))


def _top_level_stores(branch: list[ast.stmt]) -> set[str]:
    """Names an assignment of the branch itself binds (not one inside an `if`, a loop or a `with`)."""
    return {n.id for s in branch if isinstance(s, (ast.Assign, ast.AnnAssign))
            for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
            for n in ast.walk(t) if isinstance(n, ast.Name)}


def _early_return_rest(node: ast.If, ctx: FunctionContext) -> list[ast.stmt] | None:
    """`if <test>: ...; return a` (no `else`) in the function's own body, the statements after it
    ending in `return b`: those statements (the false branch), or None."""
    block = ctx.fn.node.body
    if node.orelse or node not in block or not _own_lines(node, ctx):
        return None
    rest = block[block.index(node) + 1:]
    if not rest or not _movable([node, *rest], ctx):
        return None
    ends = [node.body[-1], rest[-1]] if rest else []
    if not ends or not all(isinstance(e, ast.Return) and e.value is not None for e in ends):
        return None
    if not all(_only_computes(s) for s in [*node.body[:-1], *rest[:-1]]):
        return None
    operands = sorted({n for b in (node.body, rest) for n in _names(b, ast.Store) & _read_before_bound(b)})
    if not all(all_tensors(ctx.evidence.names.get(name)) for name in operands):
        return None
    if not all(_returns_tensors(e, ctx) for e in ends) or _spans_multiline_string(rest, ctx):
        return None
    return rest


def _spans_multiline_string(statements: list[ast.stmt], ctx: FunctionContext) -> bool:
    """A string literal (f-strings too) over several lines among the statements: indenting its
    lines would change it."""
    return any(isinstance(n, (ast.Constant, ast.JoinedStr)) and n.end_lineno > n.lineno
               and (isinstance(n, ast.JoinedStr) or isinstance(n.value, (str, bytes)))
               for s in statements for n in ast.walk(s))


def _early_return_fix(node: ast.If, rest: list[ast.stmt], pred: Predicate, ctx: FunctionContext) -> Fix | None:
    """`if <test>:` -> `def _onnx_if_<line>(<operands>):`; after its `return`, `def _onnx_else_<line>(...):`
    over the rest of the function indented one level (one edit: a fix inside the rest waits for the next
    round); then `return _onnx_size_cond(...)`."""
    source = ctx.file.source
    indent, inner = statement_indent(ctx, node), statement_indent(ctx, node.body[0])
    colon = _header_colon(node, ctx)
    if colon is None or len(inner) <= len(indent) or not inner.startswith(indent):
        return None
    step = inner[len(indent):]
    operands = sorted({n for b in (node.body, rest) for n in _names(b, ast.Store) & _read_before_bound(b)})
    parameters = ", ".join(operands)
    true_name, false_name = f"_onnx_if_{node.lineno}", f"_onnx_else_{node.lineno}"
    body_end, end = _line_end(node.body[-1], ctx), _line_end(rest[-1], ctx)
    lines = [source.line_text(n) for n in range(node.body[-1].end_lineno + 1, rest[-1].end_lineno + 1)]
    moved = "".join(f"\n{step}{line}" if line.strip() else "\n" for line in lines)
    call = _call_text(pred, true_name, false_name, operands)
    edits = (Edit(source.offset(node.lineno, node.col_offset), colon, f"def {true_name}({parameters})"),
             Edit(body_end, end, f"\n{indent}def {false_name}({parameters}):{moved}\n{indent}return {call}"))
    return Fix("Keep both branches with torch.cond under export", edits, safe=pred.exact, imports=("torch",),
               helpers=(pred.helper,))


def _only_computes(statement: ast.stmt) -> bool:
    """No escape from the branch, no write through an attribute, an item or a container method, and
    `break`/`continue` only inside a loop of the branch."""
    for node in _walk_with_loops(statement, in_loop=False):
        child, in_loop = node
        if isinstance(child, ESCAPES) or (isinstance(child, (ast.Break, ast.Continue)) and not in_loop):
            return False
        if isinstance(child, (ast.Attribute, ast.Subscript)) and isinstance(child.ctx, (ast.Store, ast.Del)):
            return False
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and (
                in_place_method(child.func.attr) or child.func.attr in MUTATORS):
            return False
    return True


def _walk_with_loops(node: ast.AST, in_loop: bool):
    yield node, in_loop
    inside = in_loop or isinstance(node, LOOPS)
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Lambda):
            continue  # its own scope: a lambda's names are its own
        yield from _walk_with_loops(child, inside)


def _names(branch: list[ast.stmt], context: type) -> set[str]:
    """The names the branch stores (or loads) in its own scope: not a comprehension's or a lambda's."""
    found: set[str] = set()
    for statement in branch:
        for node in _own_scope(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, context):
                found.add(node.id)
    return found


def _read_before_bound(branch: list[ast.stmt]) -> set[str]:
    """Names a statement of the branch reads before an earlier one binds them (`y = y + 1`): as a
    nested function's locals they would be read unbound, so they are passed in."""
    bound, free = set(), set()
    for statement in branch:
        free |= _loads([statement]) - bound
        bound |= _names([statement], ast.Store)
    return free


def _loads(branch: list[ast.stmt]) -> set[str]:
    """Every name the branch reads, in lambdas and comprehensions too (their own variables as well:
    more names passed in, never fewer)."""
    return {n.id for statement in branch for n in ast.walk(statement)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _own_scope(node: ast.AST):
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            yield from _own_scope(child)


def _read_outside(node: ast.If, moved: list[ast.AST], ctx: FunctionContext) -> set[str]:
    """Names the function reads anywhere but in the moved code (later, or earlier in an enclosing
    loop): loaded, deleted, or updated in place (`y += 1` reads `y`)."""
    inside = {id(n) for m in moved for n in ast.walk(m)}
    augmented = {id(n.target) for n in ast.walk(ctx.fn.node) if isinstance(n, ast.AugAssign)}
    return {n.id for n in ast.walk(ctx.fn.node) if isinstance(n, ast.Name) and id(n) not in inside
            and (isinstance(n.ctx, (ast.Load, ast.Del)) or id(n) in augmented)}


def _returns_tensors(statement: ast.Return, ctx: FunctionContext) -> bool:
    value = statement.value
    items = value.elts if isinstance(value, ast.Tuple) else [value]
    recorded = ctx.evidence.returns.get(statement.lineno)
    if not isinstance(value, ast.Tuple) and all_tensors(recorded):
        return True
    return all(ctx.tensors.is_tensor(item) for item in items)


def _cond_fix(node: ast.If, outputs: list[str], operands: list[str], returns: bool, pred: Predicate,
              ctx: FunctionContext) -> Fix | None:
    """`if <test>:` -> `def _onnx_if_<line>(<operands>):`, `else:` -> `def _onnx_else_<line>(...)` (or a
    new one returning the outputs as they are), a `return` of the outputs closing each, then the call.
    Inserted text ends lines with "\n": writing gives it the file's line endings."""
    source = ctx.file.source
    indent, inner = statement_indent(ctx, node), statement_indent(ctx, node.body[0])
    colon = _header_colon(node, ctx)
    if colon is None or len(inner) <= len(indent):
        return None
    true_name, false_name = f"_onnx_if_{node.lineno}", f"_onnx_else_{node.lineno}"
    parameters, results = ", ".join(operands), ", ".join(outputs)
    edits = [Edit(source.offset(node.lineno, node.col_offset), colon, f"def {true_name}({parameters})")]
    if node.orelse:
        else_start = source.line_starts[_else_line(node, ctx) - 1] + len(indent)
        edits.append(Edit(else_start, else_start + len("else"), f"def {false_name}({parameters})"))
        if not returns:
            edits.append(Edit(_line_end(node.body[-1], ctx), _line_end(node.body[-1], ctx), f"\n{inner}return {results}"))
        tail = "" if returns else f"\n{statement_indent(ctx, node.orelse[0])}return {results}"
    else:
        tail = f"\n{inner}return {results}\n{indent}def {false_name}({parameters}):\n{inner}return {results}"
    call = _call_text(pred, true_name, false_name, operands)
    tail += f"\n{indent}{'return ' if returns else results + ' = '}{call}"
    end = _line_end((node.orelse or node.body)[-1], ctx)
    edits.append(Edit(end, end, tail))
    return Fix("Keep both branches with torch.cond under export", tuple(edits), safe=pred.exact, imports=("torch",),
               helpers=(pred.helper,))


def _call_text(pred: Predicate, true_name: str, false_name: str, operands: list[str]) -> str:
    """`_onnx_size_cond(<test>, <true>, <false>[, (<operands>,)])` (`_onnx_value_cond` on a tensor's value)."""
    passed = f", ({', '.join(operands)}{',' if len(operands) == 1 else ''})" if operands else ""
    return f"{pred.helper.name}({pred.text}, {true_name}, {false_name}{passed})"


def _header_colon(node: ast.If, ctx: FunctionContext) -> int | None:
    """Offset of the `:` closing `if <test>` (after any parentheses around the test)."""
    source = ctx.file.source
    start = source.span(node.test)[1]
    text = source.text[start:source.offset(node.body[0].lineno, node.body[0].col_offset)]
    stripped = text.split(":", 1)[0]
    if ":" not in text or stripped.strip(" \t\r\n)\\"):
        return None
    return start + len(stripped)


def _line_end(statement: ast.stmt, ctx: FunctionContext) -> int:
    """Offset of the end of the statement's last line (after a trailing comment)."""
    source = ctx.file.source
    return source.line_starts[statement.end_lineno - 1] + len(source.line_text(statement.end_lineno))


RULES = [SizeBranchCond]
