"""ONX603: a recurrence over a dynamic size -> a torch scan while torch.export traces, the loop in eager.

    outs = []
    for t in range(x.shape[1]):
        h = torch.tanh(x[:, t] @ w + h @ u)      # h carried from step to step
        outs.append(h)
    y = torch.stack(outs, dim=1)

becomes

    outs = []
    if torch.compiler.is_exporting():
        def _scan_step(_carry, _xs):
            (h,) = _carry
            (_x0,) = _xs
            h = torch.tanh(_x0 @ w + h @ u)
            _y0 = h
            return (h.clone(),), (_y0.clone(),)
        (h,), (_ys0,) = torch._higher_order_ops.scan(_scan_step, (h,), (x.movedim(1, 0),))
        y = _ys0.movedim(0, 1)
    else:
        for t in range(x.shape[1]):
            ...                                   # the loop and the stack, unchanged
        y = torch.stack(outs, dim=1)

State-space scans (Mamba's selective scan), RNN cells stepped by hand, CRF forward passes,
integrate-and-fire: torch.export unrolls a Python loop and fails on a dynamic trip count, while
its `scan` higher-order op keeps the loop (torch.onnx translates it to an ONNX Scan). Eager keeps
the original loop (`is_exporting()` is False there and under the legacy exporter's trace).

The rewrite is taken only where its meaning is plain from the source: a body of name assignments
and `L.append(...)`; the loop index used only as the one integer position of a subscript whose
other positions are `:` (`x[:, t]`, `x[t]`, `x[..., t, :]`); each appended list read after the loop
only by a `torch.stack`/`torch.cat` in the statements right after it; names carried from step
to step bound before the loop; nothing else the body binds read after the loop.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from onnxfix.config import DYNAMO
from onnxfix.patterns.control_flow.loop_parts import is_zero, rebound_by_other_loops
from onnxfix.rewriter.context import LINE_LIMIT, FunctionContext
from onnxfix.rewriter.export_guards import exporters_skipping
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Edit, Fix
from onnxfix.rewriter.statements import block_of, statement_indent

WHY_UNSAFE = (
    "torch.export's scan needs each carried value to be a tensor keeping its shape and dtype from step to "
    "step and each step's outputs to have one shape, which the source does not show (eager runs the loop "
    "unchanged)"
)
STACKERS = {"torch.stack": "stack", "torch.cat": "cat", "torch.concat": "cat", "torch.concatenate": "cat"}


@dataclass
class _Scan:
    index: str
    start: ast.expr | None
    stop: ast.expr
    sliced: dict[tuple[str, int], str] = field(default_factory=dict)  # (tensor text, dim) -> step name
    replaced: dict[int, str] = field(default_factory=dict)  # id(subscript) -> step name
    # list name (appended) or id(statement) (`out[:, t] = v`) -> per-step output name, in step order
    outputs: dict[str | int, str] = field(default_factory=dict)
    writes: dict[int, tuple[ast.Subscript, int]] = field(default_factory=dict)  # id(statement) -> (target, dim)
    carried: list[str] = field(default_factory=list)


def scan_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for a loop over a size that a torch scan can take under export."""
    if ctx.compiled_by_torchscript or node.orelse or not isinstance(node.target, ast.Name):
        return None, ""
    if DYNAMO in exporters_skipping(node, ctx.ancestors(node)):  # the eager side of a fix already made
        return None, ""
    bounds = _range_bounds(node.iter)
    if bounds is None:
        return None, ""
    scan = _Scan(node.target.id, *bounds)
    assigned = _body_assignments(node, scan)
    if assigned is None or not _index_only_in_subscripts(node, scan, assigned, ctx):
        return None, ""
    if _step_value_as_size(node, scan):
        return None, ""
    scan.carried = _carried(node, assigned)
    stacks = _stacks_after(node, scan, ctx)
    if stacks is None or not scan.sliced or not _nothing_else_read_after(node, set(assigned) - set(scan.carried), ctx):
        return None, ""
    if any(not _bound_before(name, node, ctx) for name in scan.carried):
        return None, ""
    if any(isinstance(name, str) and not _empty_before(name, node, ctx) for name in scan.outputs):
        return None, ""
    torch_name, imports = ctx.torch_name()
    text = _rewrite(node, scan, stacks, torch_name, ctx)
    if text is None:
        return None, ""
    start = ctx.file.source.span(node)[0]
    end = ctx.file.source.span(stacks[-1][0] if stacks else node)[1]
    fix = Fix("Run the loop as a torch scan under torch.export (eager keeps the loop)",
              (Edit(start, end, text),), safe=False, imports=imports)
    return fix, WHY_UNSAFE


def _range_bounds(iterable: ast.expr) -> tuple[ast.expr | None, ast.expr] | None:
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"
            and not iterable.keywords and 1 <= len(iterable.args) <= 2):
        return None
    if len(iterable.args) == 1:
        return None, iterable.args[0]
    start = iterable.args[0]
    return (None if is_zero(start) else start), iterable.args[1]


def _body_assignments(node: ast.For, scan: _Scan) -> list[str] | None:
    """Names the body binds, in order; None unless every statement is a name assignment or a
    `L.append(value)` (one per list)."""
    assigned: list[str] = []
    for statement in node.body:
        write = _row_write(statement, scan.index)
        if write is not None:
            scan.writes[id(statement)] = write
            scan.outputs[id(statement)] = f"_y{len(scan.outputs)}"
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                if not all(isinstance(n, ast.Name) for n in names):
                    return None
                assigned.extend(n.id for n in names if n.id not in assigned)
        elif _appended_list(statement) is not None:
            listed = _appended_list(statement)
            if listed in scan.outputs:
                return None
            scan.outputs[listed] = f"_y{len(scan.outputs)}"
        else:
            return None
    written = {target.value.id for target, _ in scan.writes.values()}
    if not scan.outputs or scan.index in assigned or (set(scan.outputs) | written) & set(assigned):
        return None
    if any(isinstance(n, ast.Name) and n.id in written and id(n) not in {id(t.value) for t, _ in scan.writes.values()}
           for n in ast.walk(node)):
        return None  # a written tensor read in the body: the steps depend on each other through it
    for sub in ast.walk(node):  # in-place methods, nested scopes, yields: not a pure step
        if isinstance(sub, (ast.Lambda, ast.FunctionDef, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Await)):
            return None
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr.endswith("_")
                and not sub.func.attr.startswith("_")):
            return None
    return assigned


SIZE_TAKERS = frozenset({
    "expand", "repeat", "view", "reshape", "new_zeros", "new_ones", "new_full", "new_empty", "zeros", "ones",
    "full", "empty", "arange", "randn", "rand", "narrow", "int", "float", "item", "tolist", "range",
})


# ops whose output size is data-dependent: every step would have its own shape
DATA_SIZED = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive", "argwhere", "repeat_interleave"})


def _step_value_as_size(node: ast.For, scan: _Scan) -> bool:
    """A stepped value read as a size or a Python number (`x[i].expand(n[i], -1)`, `int(n[i])`):
    each step's output would have its own shape, which a scan cannot stack."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, (ast.Attribute, ast.Name)) and (
                getattr(sub.func, "attr", None) or getattr(sub.func, "id", None)) in DATA_SIZED:
            return True
        if isinstance(sub, ast.Slice) and any(id(n) in scan.replaced for b in (sub.lower, sub.upper, sub.step)
                                              if b is not None for n in ast.walk(b)):
            return True
        if not isinstance(sub, ast.Call):
            continue
        name = sub.func.attr if isinstance(sub.func, ast.Attribute) else sub.func.id if isinstance(sub.func, ast.Name) else ""
        if name not in SIZE_TAKERS:
            continue
        arguments = [*sub.args, *(k.value for k in sub.keywords)]
        if name in ("item", "tolist") and isinstance(sub.func, ast.Attribute):
            arguments.append(sub.func.value)
        if any(id(n) in scan.replaced for argument in arguments for n in ast.walk(argument)):
            return True
    return False


def _row_write(statement: ast.stmt, index: str) -> tuple[ast.Subscript, int] | None:
    """(target, dim) of `out[:, t] = value`: one slot of a tensor bound before the loop per step."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return None
    dim = _indexed_dim(target.slice, index)
    return None if dim is None else (target, dim)


def _appended_list(statement: ast.stmt) -> str | None:
    if (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr == "append"
            and isinstance(statement.value.func.value, ast.Name) and len(statement.value.args) == 1
            and not statement.value.keywords):
        return statement.value.func.value.id
    return None


def _index_only_in_subscripts(node: ast.For, scan: _Scan, assigned: list[str], ctx: FunctionContext) -> bool:
    """Every read of the index is the one integer position of `X[:, i]`-style subscripts of a
    tensor the body does not rebind; records each as a step input."""
    allowed: set[int] = set()
    subscripts = [n for n in ast.walk(ast.Module(body=node.body, type_ignores=[]))
                  if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)]
    for sub in sorted(subscripts, key=lambda n: (n.lineno, n.col_offset)):
        dim = _indexed_dim(sub.slice, scan.index)
        if dim is None:
            continue
        if any(isinstance(n, ast.Name) and n.id in assigned + list(scan.outputs) for n in ast.walk(sub.value)):
            return False
        if not _plain_reference(sub.value):
            return False
        key = (ctx.segment(sub.value), dim)
        scan.sliced.setdefault(key, f"_x{len(scan.sliced)}")
        scan.replaced[id(sub)] = scan.sliced[key]
        allowed.add(id(sub.slice) if isinstance(sub.slice, ast.Name) else id(_index_element(sub.slice, scan.index)))
    for target, _ in scan.writes.values():
        allowed.add(id(target.slice) if isinstance(target.slice, ast.Name) else id(_index_element(target.slice, scan.index)))
    reads = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == scan.index and isinstance(n.ctx, ast.Load)]
    if any(id(n) not in allowed for n in reads):
        return False
    elsewhere = rebound_by_other_loops(scan.index, node, ctx.fn.node)
    function_reads = [n for n in ast.walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == scan.index
                      and isinstance(n.ctx, ast.Load) and id(n) not in elsewhere
                      and (n.lineno, n.col_offset) > (node.end_lineno, node.end_col_offset)]
    return not function_reads  # Python keeps the index bound after the loop


def _indexed_dim(index: ast.expr, name: str) -> int | None:
    """The dim `name` selects in `X[name]`, `X[:, name]`, `X[..., name, :]` (negative from the
    end after an ellipsis); None for any other subscript."""
    if isinstance(index, ast.Name):
        return 0 if index.id == name else None
    if not isinstance(index, ast.Tuple):
        return None
    position = next((k for k, e in enumerate(index.elts) if isinstance(e, ast.Name) and e.id == name), None)
    if position is None:
        return None
    ellipsis_at = None
    for k, element in enumerate(index.elts):
        if k == position:
            continue
        if isinstance(element, ast.Constant) and element.value is Ellipsis and ellipsis_at is None:
            ellipsis_at = k
        elif not (isinstance(element, ast.Slice) and element.lower is None and element.upper is None and element.step is None):
            return None
    if ellipsis_at is not None and ellipsis_at < position:
        return position - len(index.elts)
    return position


def _index_element(index: ast.Tuple, name: str) -> ast.expr:
    return next(e for e in index.elts if isinstance(e, ast.Name) and e.id == name)


def _plain_reference(node: ast.expr) -> bool:
    """`x`, `self.x`: evaluated once before the scan, as often as the loop evaluated it."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _carried(node: ast.For, assigned: list[str]) -> list[str]:
    """Names the body reads before binding them in the same step: the previous step's value."""
    bound: set[str] = set()
    carried: list[str] = []
    for statement in node.body:
        value = statement.value
        for sub in ast.walk(value):
            if isinstance(sub, ast.Name) and sub.id in assigned and sub.id not in bound and sub.id not in carried:
                carried.append(sub.id)
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                bound.update(n.id for n in (target.elts if isinstance(target, ast.Tuple) else [target])
                             if isinstance(n, ast.Name))
    return carried


def _stacks_after(node: ast.For, scan: _Scan, ctx: FunctionContext) -> list[tuple[ast.stmt, dict[int, str]]] | None:
    """The statements right after the loop that stack or concatenate each appended list (its
    only reads after the loop), with the replacement text of each call."""
    block = block_of(node, ctx)
    if node not in block:
        return None
    following = block[block.index(node) + 1:]
    stacks: list[tuple[ast.stmt, dict[int, str]]] = []
    remaining = {name: y for name, y in scan.outputs.items() if isinstance(name, str)}
    for statement in following:
        if not remaining:
            break
        calls = {}
        for sub in ast.walk(statement):
            if isinstance(sub, ast.Call) and _stacked_list(sub, ctx) in remaining:
                listed = _stacked_list(sub, ctx)
                text = _stacked_text(sub, f"_ys{list(scan.outputs).index(listed)}", ctx)
                if text is None:
                    return None
                calls[id(sub)] = text
                del remaining[listed]
        if not calls:
            return None
        stacks.append((statement, calls))
    if remaining:
        return None
    stacked = {id(sub.args[0]) for statement, calls in stacks for sub in ast.walk(statement) if id(sub) in calls}
    for sub in ast.walk(ctx.fn.node):
        if (isinstance(sub, ast.Name) and sub.id in scan.outputs and isinstance(sub.ctx, ast.Load)
                and (sub.lineno, sub.col_offset) > (node.end_lineno, node.end_col_offset) and id(sub) not in stacked):
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


def _nothing_else_read_after(node: ast.For, temporaries: set[str], ctx: FunctionContext) -> bool:
    """Names bound only inside a step are not read after the loop before being bound again (the
    loop left the last step's values bound; the scan does not)."""
    block = block_of(node, ctx)
    unresolved = set(temporaries)
    for statement in block[block.index(node) + 1:]:
        if not unresolved:
            return True
        loads, stores = _loads_and_stores(statement)
        if loads & unresolved:
            return False
        unresolved -= stores
    end = (node.end_lineno, node.end_col_offset)
    return not any(isinstance(n, ast.Name) and n.id in unresolved and isinstance(n.ctx, ast.Load)
                   and (n.lineno, n.col_offset) > end for n in ast.walk(ctx.fn.node))


def _loads_and_stores(statement: ast.stmt) -> tuple[set[str], set[str]]:
    """Names a statement reads, and those a plain assignment binds (after its value is read)."""
    loads = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    stores: set[str] = set()
    if isinstance(statement, ast.Assign):
        stores = {n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return loads, stores


def _empty_before(listed: str, node: ast.For, ctx: FunctionContext) -> bool:
    """The list is bound to `[]` in the loop's block (`L = []`, `a, b = [], []`) and not touched
    again before the loop: the stack holds the steps' outputs and nothing else."""
    block = block_of(node, ctx)
    for statement in reversed(block[:block.index(node)]):
        if not any(isinstance(n, ast.Name) and n.id == listed for n in ast.walk(statement)):
            continue
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            return False
        target, value = statement.targets[0], statement.value
        pairs = zip(target.elts, value.elts) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) else [(target, value)]
        for name, bound in pairs:
            if isinstance(name, ast.Name) and name.id == listed:
                return isinstance(bound, ast.List) and not bound.elts
        return False
    return False


def _bound_before(name: str, node: ast.For, ctx: FunctionContext) -> bool:
    start = (node.lineno, node.col_offset)
    for sub in ast.walk(ctx.fn.node):
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Store) and (sub.lineno, sub.col_offset) < start:
            return True
        if isinstance(sub, ast.arg) and sub.arg == name:
            return True
    return False


def _rewrite(node: ast.For, scan: _Scan, stacks: list[tuple[ast.stmt, dict[int, str]]], torch: str,
             ctx: FunctionContext) -> str | None:
    """The `if torch.compiler.is_exporting(): <scan> else: <the loop and its stacks>` text."""
    source = ctx.file.source
    indent = statement_indent(ctx, node)
    unit = statement_indent(ctx, node.body[0])[len(indent):] or "    "
    taken = {n.id for n in ast.walk(ctx.fn.node) if isinstance(n, ast.Name)} | {a.arg for a in ast.walk(ctx.fn.node) if isinstance(a, ast.arg)}
    if taken & {"_scan_step", "_carry", "_xs", *scan.sliced.values(), *scan.outputs.values(),
                *(f"_ys{k}" for k in range(len(scan.outputs)))}:
        return None
    original = source.text[source.span(node)[0]:source.span(stacks[-1][0] if stacks else node)[1]]
    if _has_multiline_string(node, stacks):
        return None
    step = [f"def _scan_step(_carry, _xs):"]
    carried = scan.carried or ["_carry0"]
    step.append(f"{unit}{_tuple(carried)} = _carry")
    step.append(f"{unit}{_tuple(list(scan.sliced.values()))} = _xs")
    for statement in node.body:
        step.append(unit + _step_statement(statement, scan, ctx))
    returned_carries = _tuple([f"{name}.clone()" for name in carried])  # a scan output may not alias
    returned_outputs = _tuple([f"{name}.clone()" for name in scan.outputs.values()])
    step.append(f"{unit}return {returned_carries}, {returned_outputs}")
    inits = _tuple(scan.carried or [f"{torch}.zeros(())"])  # scan wants a carry: a dummy one
    xs = _tuple([_step_input(text, dim, scan, ctx) for (text, dim) in scan.sliced])
    results = _tuple([f"_ys{k}" for k in range(len(scan.outputs))])
    call = f"{_tuple(carried)}, {results} = {torch}._higher_order_ops.scan(_scan_step, {inits}, {xs})"
    if len(indent + unit + call) > LINE_LIMIT:
        call = f"{_tuple(carried)}, {results} = {torch}._higher_order_ops.scan(\n{unit}_scan_step,\n{unit}{inits},\n{unit}{xs},\n)"
    writes = [_written_steps(target, dim, f"_ys{list(scan.outputs).index(key)}", scan, ctx)
              for key, (target, dim) in scan.writes.items()]
    export_branch = [*step, call, *writes, *(_stack_statement(statement, calls, ctx) for statement, calls in stacks)]
    lines = [f"if {torch}.compiler.is_exporting():  # a torch scan keeps the loop dynamic under torch.export"]
    lines += [f"{unit}{line}" for part in export_branch for line in part.split("\n")]
    lines += ["else:", unit + original]
    text = f"\n{indent}".join(lines)
    # the original's own lines after its first already carry their indentation: one level more
    head, *rest = text.split("\n" + indent + unit + original.split("\n")[0], 1)
    eager_lines = original.split("\n")
    shifted = [eager_lines[0], *((unit + line) if line.strip() else line for line in eager_lines[1:])]
    return head + "\n" + indent + unit + "\n".join(shifted)


def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _has_multiline_string(node: ast.For, stacks: list[tuple[ast.stmt, dict[int, str]]]) -> bool:
    statements = [node, *(statement for statement, _ in stacks)]
    return any(isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)) and n.lineno != n.end_lineno
               for statement in statements for n in ast.walk(statement))


def _written_steps(target: ast.Subscript, dim: int, ys: str, scan: _Scan, ctx: FunctionContext) -> str:
    """`out[:, a:b] = ys.movedim(0, 1)` for the loop's `out[:, t] = value` over `range(a, b)`."""
    index = target.slice if isinstance(target.slice, ast.Name) else _index_element(target.slice, scan.index)
    start = ctx.segment(scan.start) if scan.start is not None else ""
    slot = _substituted(target, {id(index): f"{start}:{ctx.segment(scan.stop)}"}, ctx)
    return f"{slot} = {ys}" if dim == 0 else f"{slot} = {ys}.movedim(0, {dim})"


def _step_statement(statement: ast.stmt, scan: _Scan, ctx: FunctionContext) -> str:
    """The body statement with its indexed subscripts read from the step inputs; an append or a
    slot write binds the step's output instead."""
    if id(statement) in scan.writes:
        return f"{scan.outputs[id(statement)]} = {_substituted(statement.value, scan.replaced, ctx)}"
    listed = _appended_list(statement)
    value = statement.value.args[0] if listed is not None else statement
    text = _substituted(value, scan.replaced, ctx)
    return f"{scan.outputs[listed]} = {text}" if listed is not None else text


def _substituted(node: ast.AST, replacements: dict[int, str], ctx: FunctionContext) -> str:
    source = ctx.file.source
    base = source.span(node)[0]
    text = ctx.segment(node)
    spans = sorted(((source.span(n), replacements[id(n)]) for n in ast.walk(node) if id(n) in replacements), reverse=True)
    for (start, end), new in spans:
        text = text[:start - base] + new + text[end - base:]
    return text


def _step_input(tensor: str, dim: int, scan: _Scan, ctx: FunctionContext) -> str:
    """The tensor with the stepped dim first, cut to the steps the range takes (no cut for
    `range(x.shape[d])` over the same `x` and `d`)."""
    moved = tensor if dim == 0 else f"{tensor}.movedim({dim}, 0)"
    if scan.start is None and _size_of(scan.stop, ctx) == (tensor, dim):
        return moved
    start = ctx.segment(scan.start) if scan.start is not None else ""
    return f"{moved}[{start}:{ctx.segment(scan.stop)}]"


def _size_of(node: ast.expr, ctx: FunctionContext) -> tuple[str, int] | None:
    """(tensor text, dim) of `x.shape[d]` or `x.size(d)` with a literal d."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        dim = int_constant(node.slice)
        return None if dim is None else (ctx.segment(node.value.value), dim)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
            and len(node.args) == 1 and not node.keywords):
        dim = int_constant(node.args[0])
        return None if dim is None else (ctx.segment(node.func.value), dim)
    return None


def _stack_statement(statement: ast.stmt, calls: dict[int, str], ctx: FunctionContext) -> str:
    return _substituted(statement, calls, ctx)
