"""ONX612: a `for` loop left by `break` on a tensor value, what it collected concatenated after it.

Greedy and autoregressive decoders step a bounded number of times and stop early once every
sequence has ended (`if topi.item() == eos: break`, `if (tokens == eos).any(-1).all(): break`),
collecting each step's output in a list that `torch.cat` / `torch.stack` joins after the loop.
The exit is data-dependent: the dynamo exporter stops on it (GuardOnDataDependentSymNode) and the
legacy exporter records the number of steps the example took. While exporting, the loop can run
every step and the joined result be cut after the steps the loop would have kept: each step
records where it would have tested the exit (the lengths of the lists so far and the test as a
tensor), and the join keeps the parts collected before the first test that held.
"""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.patterns.control_flow.conditions import tensor_condition
from onnxfix.rewriter.attr_changes import CONTAINER_MUTATORS as MUTATORS
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import in_training_branch
from onnxfix.rewriter.rule import Edit, Fix, Helper, Rule, RuleDoc
from onnxfix.rewriter.names import walk_scope
from onnxfix.rewriter.statements import block_of, statement_indent
from onnxfix.rewriter.tree_walk import walk

UNTIL_STOP = Helper("_onnx_until_stop", helper_source("until_stop"))
JOINS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack"})
LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class TensorLoopExit(Rule):
    code = "ONX612"
    name = "tensor-loop-exit"
    summary = "A `for` loop left by `break` on a tensor value, its steps' outputs joined after it"
    fix_availability = "sometimes"
    default_safety = "safe"
    triggers = ("break",)
    doc = RuleDoc(
        what="""
            Finds a `for` loop whose exit is `if <test on a tensor value>: break` (the loop's last
            statement, or the last of an `if` block ending it) and whose results are lists that
            it appends to before that test and that are read after the loop only by
            `torch.cat` / `torch.stack` (greedy decoding that stops at the end token: seq2seq
            GRU decoders, PARSeq, Tacotron's stop token).
        """,
        why="""
            The exit depends on the values computed: the dynamo exporter fails on the test
            (GuardOnDataDependentSymNode, "Could not guard on data-dependent expression") and the
            legacy exporter records the branch taken at each step of the example (TracerWarning),
            so the exported model always runs as many steps as the example did and its output
            has that length (measured on torch 2.13: tests/flow_models/loop_exit.py).
        """,
        example="""
            def forward(self, x):
                outputs = []
                for step in range(8):
                    x = torch.tanh(x * 1.5)
                    outputs.append(x)
                    if (x > 0.99).all():
                        break
                return torch.cat(outputs)
        """,
        use_instead="""
            def forward(self, x):
                outputs = []
                for step in range(8):
                    x = torch.tanh(x * 1.5)
                    outputs.append(x)
                return torch.cat(outputs)  # no early exit: every step (or cut with a mask)
        """,
        fix_safety="""
            While exporting (`torch.onnx.is_in_onnx_export()`), each step records the lengths of
            the lists and the test, with `.item()` dropped from it (the same truth value as a
            one-element tensor), and goes on; the join after the loop becomes
            `_onnx_until_stop(torch.cat, outputs, stops, dim)`, which cuts the joined result after
            the parts collected before the first test that held (a boolean index: the exported
            model's output length follows the data). Safe: in eager the recording never runs,
            the loop breaks as before and the helper returns `torch.cat(outputs, dim)` itself.
            Offered only when no other name the loop assigns is read after it (the steps after the
            exit would have changed it), the loop has no other `break`, no `return` or `else`,
            and the lists are appended to at the loop's top level.
            Not offered inside another loop, when a join is not in the loop's block after it, when
            the loop changes an attribute or a name in place that is read after it, nor when the
            test reads `.item()` other than as a side of a comparison (`t.item() > 0.1` is recorded
            as `t.double() > torch.as_tensor(0.1, dtype=torch.float64)`: Python compares doubles,
            and the exporters would round a bare 0.1 to float32; `in` a set would hash the
            tensor). The exported model runs every step (the loop's bound must be
            fixed); a step past the exit that fails while exporting shows as an export failure
            (`onnxfix export` keeps the fix only when no verdict gets worse).
        """,
        references=("https://github.com/baudm/parseq/issues/155",
                    "https://github.com/pytorch/pytorch/issues/34442"),
    )

    def visit_For(self, node: ast.For, ctx: FunctionContext):
        exit_if = _exit_test(node)
        if exit_if is None or node.orelse or in_training_branch(node, ctx):
            return
        if tensor_condition(exit_if.test, ctx) is None and not _reads_tensor_value(exit_if.test):
            return
        lists = _collected_lists(node, exit_if, ctx)
        joins = _joins_after(node, lists, ctx) if lists else None
        why = _why_not(node, exit_if, lists, joins, ctx)
        fix = None if why else self._fix(node, exit_if, lists, joins, ctx)
        message = ("loop left by `break` on a tensor value: the dynamo exporter fails on the test "
                   "(GuardOnDataDependentSymNode) and the legacy exporter keeps the example's number of steps")
        message += f"; no automatic fix: {why}" if why else (
            "; run every step while exporting and cut the joined result after the first step whose test held")
        yield ctx.report(self, exit_if.test, message, fix=fix)

    def _fix(self, node: ast.For, exit_if: ast.If, lists: list[str], joins: list[tuple[ast.Call, str]],
             ctx: FunctionContext) -> Fix:
        torch, imports = ctx.torch_name()
        source = ctx.file.source
        # named after what it records, not the loop's line (which earlier fixes may move)
        stops = f"_onnx_stops_{lists[0]}"
        counts = ", ".join(f"len({name})" for name in lists) + ("," if len(lists) == 1 else "")
        indent = statement_indent(ctx, exit_if)
        step = indent + " " * 4
        # the test becomes the `elif` of a recording branch: the statements after it run as before
        record = (f"if {torch}.onnx.is_in_onnx_export():  # every step while exporting, cut after the exit\n"
                  f"{step}{stops}.append((({counts}), {_test_text(exit_if.test, ctx, torch)}))\n{indent}el")
        start = source.span(node)[0]
        edits = [Edit(start, start, f"{stops} = []\n{statement_indent(ctx, node)}"),
                 Edit(source.span(exit_if)[0], source.span(exit_if)[0], record)]
        for call, name in joins:
            dim = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords), None)
            dim_text = ctx.segment(dim) if dim is not None else "0"
            edits.append(ctx.replace(call, f"_onnx_until_stop({ctx.segment(call.func)}, {name}, {stops}, "
                                           f"{dim_text}, {lists.index(name)})"))
        return Fix("Run every step while exporting; cut the joined steps after the exit",
                   tuple(edits), safe=True, imports=imports, helpers=(UNTIL_STOP,))


def _exit_test(node: ast.For) -> ast.If | None:
    """The one `if <test>: break` (no `else`) among the loop body's statements or those of the
    bodies of `if` blocks in it (not an `else` or `elif`, nested loops, `try` or `with`)."""
    exits, pending = [], list(node.body)
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.If):
            if len(statement.body) == 1 and isinstance(statement.body[0], ast.Break) and not statement.orelse:
                exits.append(statement)
            else:
                pending.extend(statement.body)
    return exits[0] if len(exits) == 1 else None


def _reads_tensor_value(test: ast.expr) -> bool:
    """`.item()` somewhere in the test, or `.all()` / `.any()` of a comparison or a call's result
    (`(h.mean(-1) > 1).all()`: a tensor's, whatever the type inference knows of `h`)."""
    return any(_is_item(part) or (isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute)
                                  and part.func.attr in ("all", "any") and not part.args
                                  and isinstance(part.func.value, (ast.Compare, ast.Call)))
               for part in walk(test))


def _is_item(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item"
            and not node.args and not node.keywords)


def _collected_lists(node: ast.For, exit_if: ast.If, ctx: FunctionContext) -> list[str]:
    """Names `L` of `L.append(...)` statements at the loop's top level (the step's lengths are
    recorded where the exit is tested: an append after it is one the exit skips)."""
    names = []
    for statement in node.body:
        value = statement.value if isinstance(statement, ast.Expr) else None
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "append"
                and isinstance(value.func.value, ast.Name) and len(value.args) == 1 and not value.keywords):
            names.append(value.func.value.id)
    return list(dict.fromkeys(names))


def _joins_after(node: ast.For, lists: list[str], ctx: FunctionContext) -> list[tuple[ast.Call, str]] | None:
    """Each read of a list after the loop as the first argument of torch.cat / torch.stack (a dim
    as the second argument or `dim=`, nothing else); None when some read is anything else."""
    joins = []
    for name in _later_loads(node, set(lists), ctx):
        call = ctx.parent(name)
        if not (isinstance(call, ast.Call) and ctx.qualname(call.func) in JOINS and call.args and call.args[0] is name
                and len(call.args) <= 2 and all(k.arg == "dim" for k in call.keywords)
                and len(call.args) + len(call.keywords) <= 2):
            return None
        joins.append((call, name.id))
    return joins


def _later_loads(node: ast.For, names: set[str], ctx: FunctionContext) -> list[ast.Name]:
    """Loads of ``names`` in the function after the loop (not inside nested functions; an
    augmented assignment reads too) of the values the loop left: up to a plain assignment to the
    name among the statements after the loop in its own block (`logits = torch.cat(logits)` reads
    it on that line; later loads read the new value; a conditional rebinding does not end it)."""
    rebound = {}
    for statement in _block_after(node, ctx):
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name) and target.id in names:
                    rebound.setdefault(target.id, statement.lineno)
    other_branches = {id(part) for branch in _other_branches(node, ctx) for statement in branch
                      for part in walk(statement)}
    return [n for n in _function_nodes(ctx) if isinstance(n, ast.Name) and n.id in names
            and n.lineno > node.end_lineno and n.lineno <= rebound.get(n.id, n.lineno)
            and (isinstance(n.ctx, ast.Load) or isinstance(ctx.parent(n), ast.AugAssign))
            and id(n) not in other_branches]


def _other_branches(node: ast.stmt, ctx: FunctionContext) -> list[list[ast.stmt]]:
    """The other side of each `if` the loop is in (PARSeq's `else:` of `if self.decode_ar:`):
    what runs there never runs after the loop."""
    branches, child = [], node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.If):
            branches.append(ancestor.orelse if child in ancestor.body else ancestor.body)
        child = ancestor
    return branches


def _block_after(node: ast.stmt, ctx: FunctionContext) -> list[ast.stmt]:
    """The statements after ``node`` in the block that holds it."""
    block = block_of(node, ctx)
    return block[block.index(node) + 1:] if block else []


def _contains(statement: ast.stmt, node: ast.AST) -> bool:
    return any(part is node for part in walk(statement))


def _mutated_names(node: ast.For, lists: list[str]) -> set[str]:
    """Names the loop changes in place: a method called on them (`acc.add_(h)`, an append that is
    not one of the counted top-level ones), a subscript written or deleted (`buf[i] = h`)."""
    counted = {id(s.value) for s in node.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
               and isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "append"
               and isinstance(s.value.func.value, ast.Name) and s.value.func.value.id in lists}
    names = set()
    for part in _loop_nodes(node):
        if (isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) and _mutator(part.func.attr)
                and isinstance(part.func.value, ast.Name) and id(part) not in counted):
            names.add(part.func.value.id)
        if isinstance(part, ast.Subscript) and isinstance(part.ctx, (ast.Store, ast.Del)):
            names |= {n.id for n in walk(part.value) if isinstance(n, ast.Name)}
    return names


def _mutator(method: str) -> bool:
    """An in-place tensor method (`add_`, `copy_`) or one that changes a list, dict or set."""
    return (method.endswith("_") and not method.startswith("__")) or method in MUTATORS


def _changes_outer_state(node: ast.For) -> bool:
    """An attribute written (`self.last = h`) or changed in place (`self.cache.append(h)`)."""
    return any((isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)))
               or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and _mutator(n.func.attr)
                   and isinstance(n.func.value, ast.Attribute))
               for n in _loop_nodes(node))


def _read_in_nested_scopes(names: set[str], ctx: FunctionContext) -> set[str]:
    """Names a function or lambda defined in this one reads: it may run after the loop."""
    nested = [n for n in _function_nodes(ctx) if isinstance(n, SCOPES)]
    return {n.id for scope in nested for n in walk(scope) if isinstance(n, ast.Name) and n.id in names}


def _function_nodes(ctx: FunctionContext) -> list[ast.AST]:
    """The function's own nodes: nested functions, lambdas and classes listed, not entered."""
    return [n for n, _ in walk_scope(ctx.fn.node)]


def _why_not(node: ast.For, exit_if: ast.If, lists: list[str], joins, ctx: FunctionContext) -> str:
    if not lists:
        return "the loop collects no list before its exit test"
    if any(isinstance(a, (*LOOPS, ast.comprehension)) for a in ctx.ancestors(node)):
        return "the loop runs inside another loop (its steps' records would start over on each outer step)"
    if joins is None or not joins:
        return "a list it collects is read after the loop other than by `torch.cat` / `torch.stack`"
    block = _block_after(node, ctx)
    if not all(any(_contains(statement, call) for statement in block) for call, _ in joins):
        return "a join is not in the loop's block after it (where the records are bound)"
    if _changes_outer_state(node):
        return "the loop changes an attribute (state the steps past the exit would change)"
    exits = [n for n in _loop_nodes(node) if isinstance(n, (ast.Break, ast.Return, ast.Yield, ast.YieldFrom))]
    if len(exits) != 1:
        return "the loop has another `break`, a `return` or `yield`"
    assigned = (_assigned_names(node) | _mutated_names(node, lists)) - set(lists)
    read_after = sorted({n.id for n in _later_loads(node, assigned, ctx)} | _read_in_nested_scopes(assigned, ctx))
    if read_after:
        return (f"`{read_after[0]}`, which the loop assigns, is read after it (the steps past the exit would "
                "change it)")
    if any(_is_item(n) for n in walk(exit_if.test)) and not _item_replaced_cleanly(exit_if.test):
        return "the exit test reads `.item()` other than as a side of a comparison"
    return ""


def _loop_nodes(node: ast.For) -> list[ast.AST]:
    """The loop body's nodes, not those of nested loops or functions (their `break` is theirs)."""
    found, pending = [], list(node.body)
    while pending:
        current = pending.pop()
        found.append(current)
        if not isinstance(current, (*LOOPS, *SCOPES)):
            pending.extend(ast.iter_child_nodes(current))
    return found


def _assigned_names(node: ast.For) -> set[str]:
    names = {n.id for n in walk(node.target) if isinstance(n, ast.Name)}
    for current in _loop_nodes(node):
        targets = (current.targets if isinstance(current, ast.Assign)
                   else [current.target] if isinstance(current, (ast.AugAssign, ast.AnnAssign, ast.For)) else [])
        names |= {n.id for t in targets for n in walk(t) if isinstance(n, ast.Name)}
        if isinstance(current, ast.NamedExpr):
            names.add(current.target.id)
    return names


COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.Gt, ast.LtE, ast.GtE)


def _item_replaced_cleanly(test: ast.expr) -> bool:
    """Every `.item()` in the test is a side of an (in)equality or ordering (`t.item() == eos`):
    as `t.double()` the comparison has the same truth value, as a one-element tensor (a Python
    float is a double; `in` a set would hash the tensor instead)."""
    compared = {id(side) for c in walk(test) if isinstance(c, ast.Compare) and all(isinstance(o, COMPARISONS) for o in c.ops)
                for side in (c.left, *c.comparators)}
    return all(id(n) in compared for n in walk(test) if _is_item(n))


def _test_text(test: ast.expr, ctx: FunctionContext, torch: str) -> str:
    """The exit test as a tensor: in a comparison with `.item()` on a side, that side read as
    `.double()` and the others as float64 tensors (`topi.item() == eos` -> `topi.double() ==
    torch.as_tensor(eos, dtype=torch.float64)`): the Python comparison is of doubles, and the
    exporters would round a bare Python float to float32 (0.1)."""
    source = ctx.file.source
    start, end = source.span(test)
    edits = []
    for compare in (c for c in walk(test) if isinstance(c, ast.Compare)):
        sides = [compare.left, *compare.comparators]
        if not any(_is_item(side) for side in sides):
            continue
        for side in sides:
            if _is_item(side):
                dot, item_end = ctx.dot_span(side.func, side)
                edits.append((dot, item_end, ".double()"))
            else:
                side_start, side_end = source.span(side)
                edits.append((side_start, side_end, f"{torch}.as_tensor({ctx.segment(side)}, dtype={torch}.float64)"))
    text = source.text[start:end]
    for edit_start, edit_end, replacement in sorted(edits, reverse=True):  # last first: offsets stay valid
        text = text[:edit_start - start] + replacement + text[edit_end - start:]
    return text


RULES = [TensorLoopExit]
