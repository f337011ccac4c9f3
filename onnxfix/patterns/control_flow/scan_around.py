"""What the ONX603 scan rewrite needs around the loop: the lists it appends to, empty before it and
stacked right after it; the names it carries, bound before it; nothing else it binds read after it."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import rebound_by_other_loops
from onnxfix.patterns.control_flow.scan_parts import ScanPlan
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.statements import block_of
from onnxfix.rewriter.tree_walk import walk


STACKERS = {"torch.stack": "stack", "torch.cat": "cat", "torch.concat": "cat", "torch.concatenate": "cat"}
SIMPLE_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Expr)


def stacks_after(node: ast.For, scan: ScanPlan, ctx: FunctionContext) -> list[tuple[ast.stmt, dict[int, str]]] | None:
    """The statements right after the loop that stack or concatenate each appended list (its
    only reads after the loop), with the replacement text of each call."""
    block = block_of(node, ctx)
    if node not in block:
        return None
    following = block[block.index(node) + 1:]
    if following and following[0].lineno == node.end_lineno:
        return None  # `for ...: body; other` on one line
    stacks: list[tuple[ast.stmt, dict[int, str]]] = []
    remaining = {name: y for name, y in scan.outputs.items() if isinstance(name, str)}
    for statement in following:
        if not remaining:
            break
        calls = {}
        for sub in walk(statement):
            if isinstance(sub, ast.Call) and _stacked_list(sub, ctx) in remaining:
                listed = _stacked_list(sub, ctx)
                text = _stacked_text(sub, f"_ys{list(scan.outputs).index(listed)}", ctx)
                if text is None:
                    return None
                calls[id(sub)] = text
                del remaining[listed]
        if not calls or not isinstance(statement, SIMPLE_STATEMENTS):
            return None  # a compound statement (if, with, for) is copied whole into both branches: not taken
        position = following.index(statement)
        if position + 1 < len(following) and following[position + 1].lineno == statement.end_lineno:
            return None  # `y = torch.stack(outs); z = y * 2`: the rest of the line would stay out
        stacks.append((statement, calls))
    if remaining:
        return None
    stacked = {id(sub.args[0]) for statement, calls in stacks for sub in walk(statement) if id(sub) in calls}
    # `results = torch.cat(results, dim=0)` (SpeechBrain's EMA scan): later reads are of the tensor
    rebound = {target.id: (statement.end_lineno, statement.end_col_offset) for statement, _ in stacks
               if isinstance(statement, ast.Assign) for target in statement.targets if isinstance(target, ast.Name)}
    for sub in walk(ctx.fn.node):
        if (isinstance(sub, ast.Name) and sub.id in scan.outputs and isinstance(sub.ctx, ast.Load)
                and (sub.lineno, sub.col_offset) > (node.end_lineno, node.end_col_offset) and id(sub) not in stacked
                and not (sub.id in rebound and (sub.lineno, sub.col_offset) > rebound[sub.id])):
            return None  # the list is read as a list elsewhere
    return stacks


def _stacked_list(call: ast.Call, ctx: FunctionContext) -> str | None:
    if ctx.qualname(call.func) not in STACKERS or not call.args or not isinstance(call.args[0], ast.Name):
        return None
    return call.args[0].id


def _stacked_text(call: ast.Call, ys: str, ctx: FunctionContext) -> str | None:
    """`torch.stack(L, dim=d)` -> `ys.movedim(0, d)`; `torch.cat(L, dim=k)` -> the steps merged into k."""
    dims = [*call.args[1:], *(k.value for k in call.keywords if k.arg == "dim")]
    if len(call.args) > 2 or any(k.arg != "dim" for k in call.keywords) or len(dims) > 1:
        return None
    dim = int_constant(dims[0]) if dims else 0
    if dim is None:
        return None
    if STACKERS[ctx.qualname(call.func)] == "stack":
        return ys if dim == 0 else f"{ys}.movedim(0, {dim})"
    moved = dim if dim >= 0 else dim - 1
    return f"{ys}.movedim(0, {moved}).flatten({moved}, {moved + 1})" if moved != 0 else f"{ys}.flatten(0, 1)"


def nothing_else_read_after(node: ast.For, temporaries: set[str], ctx: FunctionContext) -> bool:
    """Names bound only inside a step are not used after the loop before being bound again (the
    loop left the last step's values bound; the scan does not); inside an enclosing loop, not
    used anywhere outside it unless bound again right after it."""
    block = block_of(node, ctx)
    unresolved = set(temporaries)
    for statement in block[block.index(node) + 1:]:
        if not unresolved:
            return True
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            # the body's reads of the target are of its own binding; with no iteration the target
            # keeps the step's stale value, so it stays unresolved
            own = {n.id for n in walk(statement.target) if isinstance(n, ast.Name)}
            if _uses(statement.iter) & unresolved or (_uses(statement) - own) & unresolved:
                return False
            continue
        if _uses(statement) & unresolved:
            return False
        if isinstance(statement, ast.Assign):
            unresolved -= {n.id for t in statement.targets for n in walk(t)
                           if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    inside = {id(n) for n in walk(node)}
    for name in unresolved:  # reads inside later loops that bind the name themselves
        inside |= rebound_by_other_loops(name, node, ctx.fn.node)
    looped = any(isinstance(a, (ast.For, ast.AsyncFor, ast.While)) for a in ctx.ancestors(node))
    end = (node.end_lineno, node.end_col_offset)
    return not any(
        isinstance(n, ast.Name) and n.id in unresolved and isinstance(n.ctx, (ast.Load, ast.Del))
        and id(n) not in inside and (looped or (n.lineno, n.col_offset) > end)
        for n in walk(ctx.fn.node)
    )


def _uses(node: ast.AST) -> set[str]:
    """Names read (or deleted) anywhere in ``node``."""
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Load, ast.Del))}


def empty_before(listed: str, node: ast.For, ctx: FunctionContext) -> bool:
    """The list is bound to an empty list in the loop's block (`L = []`, `a, b = [], []`,
    `L: List[Tensor] = []`, `L = torch.jit.annotate(List[Tensor], [])`) and not touched again
    before the loop: the stack holds the steps' outputs and nothing else."""
    block = block_of(node, ctx)
    for statement in reversed(block[:block.index(node)]):
        if not any(isinstance(n, ast.Name) and n.id == listed for n in walk(statement)):
            continue
        if isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        else:
            return False
        pairs = zip(target.elts, value.elts) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) else [(target, value)]
        for name, bound in pairs:
            if isinstance(name, ast.Name) and name.id == listed:
                return _empty_list(bound, ctx)
        return False
    return False


def _empty_list(value: ast.expr, ctx: FunctionContext) -> bool:
    if isinstance(value, ast.Call) and (ctx.qualname(value.func) or "").endswith("jit.annotate") and len(value.args) == 2:
        value = value.args[1]  # TorchScript's typed empty list: the same list in eager
    return isinstance(value, ast.List) and not value.elts


def bound_before(name: str, node: ast.For, ctx: FunctionContext) -> bool:
    start = (node.lineno, node.col_offset)
    for sub in walk(ctx.fn.node):
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Store) and (sub.lineno, sub.col_offset) < start:
            return True
        if isinstance(sub, ast.arg) and sub.arg == name:
            return True
    return False
