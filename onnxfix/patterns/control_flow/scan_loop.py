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

from onnxfix.config import DYNAMO
from onnxfix.patterns.control_flow.loop_parts import is_zero, rebound_by_other_loops
from onnxfix.patterns.control_flow.scan_around import bound_before, empty_before, nothing_else_read_after, stacks_after
from onnxfix.patterns.control_flow.scan_parts import (
    ScanPlan, appended, appended_list, counts_tensor_rows, index_element, indexed_dim, leading_index, passed_a_list,
    substituted, tuple_bound,
)
from onnxfix.patterns.control_flow.scan_step_shape import step_value_as_size
from onnxfix.patterns.control_flow.scan_text import scan_rewrite
from onnxfix.patterns.views.chains import SPLIT_METHODS, VIEW_ATTRIBUTES, VIEW_METHODS
from onnxfix.decompositions import helper_source
from onnxfix.rewriter.config_numbers import is_config_number
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Edit, Fix, Helper
from onnxfix.rewriter.tree_walk import walk


WHY_UNSAFE = (
    "torch.export's scan needs each carried value to be a tensor keeping its shape and dtype from step to "
    "step and each step's outputs to have one shape, which the source does not show (eager runs the loop "
    "unchanged); export under torch.no_grad(): with gradients on, torch 2.13's decompositions fail on the scan "
    "when a dim is dynamic"
)

MASKED_WRITE = Helper("_onnx_masked_write", helper_source("masked_write"))


def scan_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for a loop over a size that a torch scan can take under export."""
    if ctx.compiled_by_torchscript or node.orelse:
        return None, ""
    if DYNAMO in ctx.exporters_skipping(node):  # the eager side of a fix already made
        return None, ""
    scan = _loop_scan(node, ctx)
    if scan is None:
        return None, ""
    elements = set(scan.sliced.values())
    assigned = _body_assignments(node, scan, ctx)
    if assigned is not None and elements & set(assigned):
        return None, ""
    if assigned is None or not _index_only_in_subscripts(node, scan, assigned, ctx):
        return None, ""
    if step_value_as_size(node, scan, assigned, ctx) or not _plain_step(node, scan):
        return None, ""
    scan.carried = _carried(node, assigned)
    if any(_not_a_tensor(name, node, ctx) for name in scan.carried):
        return None, ""  # a list, or a known non-tensor (a tuple of tensors is carried leaf by leaf)
    stacks = stacks_after(node, scan, ctx)
    temporaries = (set(assigned) - set(scan.carried)) | elements
    if not scan.sliced:  # `for _ in range(n)`: a recurrence repeated n times over its carried values
        scan.counted = scan.stop is not None and bool(scan.carried)
    if stacks is None or not (scan.sliced or scan.counted) or not nothing_else_read_after(node, temporaries, ctx):
        return None, ""
    if any(not bound_before(name, node, ctx) for name in scan.carried):
        return None, ""
    if any(isinstance(name, str) and not empty_before(name, node, ctx) for name in scan.outputs):
        return None, ""
    torch_name, imports = ctx.torch_name()
    text = scan_rewrite(node, scan, stacks, torch_name, ctx)
    if text is None:
        return None, ""
    start = ctx.file.source.span(node)[0]
    end = ctx.file.source.span(stacks[-1][0] if stacks else node)[1]
    helpers = (MASKED_WRITE,) if scan.masked else ()
    fix = Fix("Run the loop as a torch scan under torch.export (eager keeps the loop)",
              (Edit(start, end, text),), safe=False, imports=imports, helpers=helpers)
    return fix, WHY_UNSAFE


def _loop_scan(node: ast.For, ctx: FunctionContext) -> ScanPlan | None:
    """The scan of `for t in range(...)`, or of a loop over slices: `for xt in x.unbind(1)`,
    `torch.unbind(x, dim=1)`, `for row in x`, `zip` of those, `enumerate` of one (the count used
    as the index of other subscripts)."""
    if isinstance(node.target, ast.Name):
        bounds = _range_bounds(node.iter)
        if bounds is not None:
            return ScanPlan(node.target.id, *bounds)
    iterable, target, index = node.iter, node.target, ""
    if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate"
            and ctx.is_builtin("enumerate") and len(iterable.args) == 1 and not iterable.keywords
            and isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)):
        iterable, index, target = iterable.args[0], target.elts[0].id, target.elts[1]
    if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "zip"
            and ctx.is_builtin("zip") and not iterable.keywords and isinstance(target, ast.Tuple)
            and len(target.elts) == len(iterable.args)):
        pairs = list(zip(iterable.args, target.elts))
    else:
        pairs = [(iterable, target)]
    scan = ScanPlan(index, None, None)
    for sliced, name in pairs:
        taken = _slices_of(sliced, ctx)
        if taken is None or not isinstance(name, ast.Name) or taken in scan.sliced or name.id in scan.sliced.values():
            return None
        scan.sliced[taken] = name.id
    return scan


def _slices_of(node: ast.expr, ctx: FunctionContext) -> tuple[str, int] | None:
    """(tensor text, dim) of `x.unbind(d)`, `torch.unbind(x, d)`, or a tensor `x` itself (dim 0)."""
    if isinstance(node, ast.Call):
        qualname = ctx.qualname(node.func) or ""
        if isinstance(node.func, ast.Attribute) and node.func.attr == "unbind" and qualname != "torch.unbind":
            tensor, arguments = node.func.value, node.args
        elif qualname == "torch.unbind" and node.args:
            tensor, arguments = node.args[0], node.args[1:]
        else:
            return (_operand(node, ctx), 0) if ctx.tensors.is_tensor(node) else None
        dims = [*arguments, *(k.value for k in node.keywords if k.arg == "dim")]
        if len(dims) > 1 or any(k.arg != "dim" for k in node.keywords):
            return None
        dim = int_constant(dims[0]) if dims else 0
        return None if dim is None else (_operand(tensor, ctx), dim)
    if ctx.tensors.is_tensor(node):  # the loop evaluates its iterable once, as the scan does
        return _operand(node, ctx), 0
    return None


def _operand(node: ast.expr, ctx: FunctionContext) -> str:
    text = ctx.segment(node)
    return text if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) else f"({text})"


def _range_bounds(iterable: ast.expr) -> tuple[ast.expr | None, ast.expr] | None:
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"
            and not iterable.keywords and 1 <= len(iterable.args) <= 2):
        return None
    if len(iterable.args) == 1:
        return None, iterable.args[0]
    start = iterable.args[0]
    if int_constant(start) is None or int_constant(start) < 0:
        return None  # a negative or computed start would index from the end, or not at all
    return (None if is_zero(start) else start), iterable.args[1]


def _body_assignments(node: ast.For, scan: ScanPlan, ctx: FunctionContext) -> list[str] | None:
    """Names the body binds, in order; None unless every statement is a name assignment, a
    `L.append(value)` (one per list), a slot write `out[:, t] = value`, or an `if` whose branches
    only assign names and whose test reads nothing the loop changes (the same branch every step)."""
    assigned: list[str] = []
    conditions: list[ast.expr] = []
    for statement in node.body:
        if isinstance(statement, ast.If):
            branch_names = _branch_assignments(statement)
            if branch_names is None:
                return None
            assigned.extend(n for n in branch_names if n not in assigned)
            conditions.append(statement.test)
            continue
        write = _row_write(statement, scan.index)
        if write is not None:
            scan.writes[id(statement)] = write
            scan.outputs[id(statement)] = f"_y{len(scan.outputs)}"
        elif _fresh_local_write(statement, assigned, node, ctx):
            scan.masked.add(id(statement))  # `rois[self.invalid_mask] = 0` on a copy the step made
            continue
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                if not all(isinstance(n, ast.Name) for n in names):
                    return None
                assigned.extend(n.id for n in names if n.id not in assigned)
        elif appended_list(statement) is not None:
            listed = appended_list(statement)
            if listed in scan.outputs:
                return None
            scan.outputs[listed] = f"_y{len(scan.outputs)}"
        else:
            return None
    written = {target.value.id for target, _ in scan.writes.values()}
    if not scan.outputs or scan.index in assigned or (set(scan.outputs) | written) & set(assigned):
        return None
    changing = {*assigned, scan.index, *scan.sliced.values(), *(k for k in scan.outputs if isinstance(k, str)), *written}
    if any(isinstance(n, ast.Name) and n.id in changing for test in conditions for n in walk(test)):
        return None  # a test on a value the loop changes: the branch may differ from step to step
    if written and _aliased_elsewhere(written, node, ctx):
        return None  # `y = x.view(-1)` read in the body while the loop writes x: the steps see each other's writes
    targets = {id(t.value) for t, _ in scan.writes.values()} | _own_rows_read_in_the_write(node, scan)
    if any(isinstance(n, ast.Name) and n.id in written and id(n) not in targets for n in walk(node)
           if id(n) not in _size_reads(node.iter)):  # the range's `x.shape[0]` is read once, before
        return None  # a written tensor read in the body: the steps depend on each other through it
    for sub in walk(node):  # in-place methods, nested scopes, yields: not a pure step
        if isinstance(sub, (ast.Lambda, ast.FunctionDef, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Await)):
            return None
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr.endswith("_")
                and not sub.func.attr.startswith("_")):
            return None
    return assigned


def _fresh_local_write(statement: ast.stmt, assigned: list[str], node: ast.For, ctx: FunctionContext) -> bool:
    """`rois[mask] = 0` (one index, a number) where the step bound `rois` once, before, to a tensor no other value
    shares: a gather by tensor indices (`img_features[self.cut_zs, self.cut_ys]`, a copy), possibly
    viewed (`.view(...)`), LaneATT's anchor cut. The write changes that copy only, so the step stays
    a function of its slice."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Subscript) and isinstance(statement.targets[0].value, ast.Name)
            and isinstance(statement.targets[0].slice, (ast.Name, ast.Attribute)) and _number(statement.value)):
        return False
    name = statement.targets[0].value.id
    bindings = [s for s in node.body if isinstance(s, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == name for t in s.targets)]
    if name not in assigned or len(bindings) != 1 or bindings[0].lineno > statement.lineno or len(bindings[0].targets) != 1:
        return False
    value = bindings[0].value
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in SHARING_METHODS:
        value = value.func.value
    if not isinstance(value, ast.Subscript):
        return False
    parts = [part for part in (value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice])
             if not isinstance(part, ast.Slice)]
    # a tensor index, or module attributes set in __init__ that are no numbers of the configuration
    # (LaneATT's `self.cut_zs, ... = self.compute_anchor_cut_indices(...)`): a gather, a copy
    return any(ctx.tensors.is_tensor(part) is True for part in parts) or bool(parts) and all(
        ctx.is_self_attr(part) and not is_config_number(part, ctx) and ctx.tensors.is_tensor(part) is not False
        for part in parts)


def _number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, bool)


def _own_rows_read_in_the_write(node: ast.For, scan: ScanPlan) -> set[int]:
    """ids of a written tensor's names read as the step's own slot (`x[i]`, `x[i, :n]` where the
    step writes `x[i] = ...`) in the value the write assigns: each step reads its slot before any
    step writes it, so the scan may read them all from the tensor as it was before the loop. (A
    read bound to a name before the write is a view that sees the write: not taken.)"""
    own: set[int] = set()
    for statement in node.body:
        if id(statement) not in scan.writes:
            continue
        target, dim = scan.writes[id(statement)]
        for sub in walk(statement.value):
            if (isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id == target.value.id
                    and dim in (indexed_dim(sub.slice, scan.index), leading_index(sub.slice, scan.index))):
                own.add(id(sub.value))
    return own


# what may share memory with its receiver: views/chains.py's views and splits, and the reshapes
# that are views when they can be (an alias for this purpose)
SHARING_METHODS = VIEW_METHODS | SPLIT_METHODS | {"reshape", "reshape_as", "flatten"}


def _viewed(value: ast.expr) -> str | None:
    """The name `value` may share memory with: `x`, `x[...]`, `x.T`, `x.data`, `x.view(-1).t()`."""
    while True:
        if isinstance(value, ast.Name):
            return value.id
        if isinstance(value, ast.Subscript):
            value = value.value
        elif isinstance(value, ast.Attribute) and (value.attr in VIEW_ATTRIBUTES or value.attr == "data"):
            value = value.value
        elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
              and value.func.attr in SHARING_METHODS):
            value = value.func.value
        else:
            return None


def _aliased_elsewhere(written: set[str], node: ast.For, ctx: FunctionContext) -> bool:
    """A name the body reads bound in the function to a view of a tensor the loop writes, or the
    written tensor bound to a view of one the body reads: a step would see the earlier steps'
    writes through it, which the scan's inputs (read before the loop) do not."""
    read = {n.id for n in walk(ast.Module(body=node.body, type_ignores=[]))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - written
    for sub in walk(ctx.fn.node):
        if not isinstance(sub, ast.Assign):
            continue
        source = _viewed(sub.value)
        for target in sub.targets:  # names bound (a write into a tensor copies: `out[i] = h` binds nothing)
            bound = target.elts if isinstance(target, ast.Tuple) else [target]
            for name in (n.id for n in bound if isinstance(n, ast.Name)):
                if name in read and source in written or name in written and source in read:
                    return True
    return False


def _size_reads(iterable: ast.expr) -> set[int]:
    """ids of the names in `x.shape[...]`, `x.size(...)`, `len(x)` of a loop's iterable: sizes,
    evaluated once before the loop (the items of `x.unbind(1)` are views: not among them)."""
    names: set[int] = set()
    for sub in walk(iterable):
        if isinstance(sub, ast.Attribute) and sub.attr == "shape" and isinstance(sub.value, ast.Name):
            names.add(id(sub.value))
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "size" \
                and isinstance(sub.func.value, ast.Name):
            names.add(id(sub.func.value))
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "len" and sub.args \
                and isinstance(sub.args[0], ast.Name):
            names.add(id(sub.args[0]))
    return names


def _branch_assignments(statement: ast.If) -> list[str] | None:
    """The names an `if` (and its `elif`/`else`) assigns, when that is all its branches do."""
    names: list[str] = []
    for branch in (statement.body, statement.orelse):
        for inner in branch:
            if isinstance(inner, ast.If):
                nested = _branch_assignments(inner)
                if nested is None:
                    return None
                names.extend(nested)
                continue
            if not isinstance(inner, ast.Assign):
                return None
            for target in inner.targets:
                elements = target.elts if isinstance(target, ast.Tuple) else [target]
                if not all(isinstance(n, ast.Name) for n in elements):
                    return None
                names.extend(n.id for n in elements)
    return names


def _plain_step(node: ast.For, scan: ScanPlan) -> bool:
    """Nothing in the body that a separate step function would see differently: the appended
    lists read (empty in the step), comprehensions rebinding the index or a slice's name, a
    zero-argument `super()`, two slot writes into one tensor (written back in another order)."""
    lists = {key for key in scan.outputs if isinstance(key, str)}
    receivers = {id(found[2]) for found in map(appended, node.body) if found is not None}
    stepped = {scan.index, *scan.sliced.values()}
    for sub in walk(ast.Module(body=node.body, type_ignores=[])):
        if isinstance(sub, ast.Name) and sub.id in lists and id(sub) not in receivers:
            return False
        if isinstance(sub, ast.comprehension) and any(
                isinstance(n, ast.Name) and n.id in stepped for n in walk(sub.target)):
            return False
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "super" and not sub.args:
            return False
    bases = [target.value.id for target, _ in scan.writes.values()]
    return len(bases) == len(set(bases))


def _row_write(statement: ast.stmt, index: str) -> tuple[ast.Subscript, int] | None:
    """(target, dim) of `out[:, t] = value`: one slot of a tensor bound before the loop per step."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return None
    dim = indexed_dim(target.slice, index)
    return None if dim is None else (target, dim)


def _index_only_in_subscripts(node: ast.For, scan: ScanPlan, assigned: list[str], ctx: FunctionContext) -> bool:
    """Every read of the index is the one integer position of `X[:, i]`-style subscripts of a
    tensor the body does not rebind; records each as a step input."""
    allowed: set[int] = set()
    subscripts = [n for n in walk(ast.Module(body=node.body, type_ignores=[]))
                  if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)]
    trailing: list[tuple[ast.Subscript, int]] = []  # `x[i, :, :n]`: the step's slice indexed further
    for sub in sorted(subscripts, key=lambda n: (n.lineno, n.col_offset)):
        dim = indexed_dim(sub.slice, scan.index)
        if dim is None:
            dim = leading_index(sub.slice, scan.index)
            if dim is None:
                continue
            trailing.append((sub, dim))
        if any(isinstance(n, ast.Name) and n.id in assigned + list(scan.outputs) for n in walk(sub.value)):
            return False
        if not _plain_reference(sub.value) or isinstance(ctx.parent(sub), ast.Call) and ctx.parent(sub).func is sub:
            return False  # `self.heads[i](h)`: a module list, not a tensor
        if not ctx.tensors.is_tensor(sub.value) and (isinstance(sub.value, ast.Attribute) or (
                isinstance(sub.slice, ast.Name) and (not counts_tensor_rows(node, ctx) or passed_a_list(sub.value, ctx)))):
            # `feats[i]` of a value not known to be a tensor, the loop counting a sequence (`enumerate`,
            # `range(len(...))`): YOLO's levels are a list of tensors each of its own size, with no dim
            # to scan. Counting a tensor's rows (`range(x.shape[0])`), `lengths[i]` is that row's item;
            # `x[:, i]` is no list's.
            return False
        key = (ctx.segment(sub.value), dim)
        scan.sliced.setdefault(key, f"_x{len(scan.sliced)}")
        scan.replaced[id(sub)] = scan.sliced[key]
        allowed.add(id(sub.slice) if isinstance(sub.slice, ast.Name) else id(index_element(sub.slice, scan.index)))
    for sub, dim in sorted(trailing, key=lambda pair: len(ctx.segment(pair[0]))):  # inner ones first
        others = [element for k, element in enumerate(sub.slice.elts) if k != dim]
        texts = ", ".join(substituted(element, scan.replaced, ctx) for element in others)
        scan.replaced[id(sub)] = f"{scan.replaced[id(sub)]}[{texts}]"
    for target, _ in scan.writes.values():
        allowed.add(id(target.slice) if isinstance(target.slice, ast.Name) else id(index_element(target.slice, scan.index)))
    reads = [n for n in walk(node) if isinstance(n, ast.Name) and n.id == scan.index and isinstance(n.ctx, ast.Load)]
    if any(id(n) not in allowed for n in reads):
        return False
    elsewhere = rebound_by_other_loops(scan.index, node, ctx.fn.node)
    function_reads = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == scan.index
                      and isinstance(n.ctx, ast.Load) and id(n) not in elsewhere
                      and (n.lineno, n.col_offset) > (node.end_lineno, node.end_col_offset)]
    return not function_reads  # Python keeps the index bound after the loop


def _plain_reference(node: ast.expr) -> bool:
    """`x`, `self.x`: evaluated once before the scan, as often as the loop evaluated it."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _not_a_tensor(name: str, node: ast.For, ctx: FunctionContext) -> bool:
    """``name`` is bound in the function to a list, or is known not to be a tensor and not bound to a
    tuple (`hidden = (h, c)`, an LSTM cell's state, is carried leaf by leaf: scan_text.py)."""
    if tuple_bound(name, ctx):
        return False
    return ctx.tensors.name_is_tensor(name) is False or any(
        isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
        and isinstance(s.value, ast.List) for s in walk(ctx.fn.node))


def _carried(node: ast.For, assigned: list[str]) -> list[str]:
    """Names the body reads before binding them in the same step: the previous step's value."""
    carried: list[str] = []
    _bound_after(node.body, set(), assigned, carried)
    return carried


def _bound_after(statements: list[ast.stmt], bound: set[str], assigned: list[str], carried: list[str]) -> set[str]:
    """The names bound after ``statements`` run (an `if` binds what both its branches bind),
    adding to ``carried`` each one read before it is bound."""
    bound = set(bound)
    for statement in statements:
        read = statement.test if isinstance(statement, ast.If) else statement.value
        for sub in walk(read):
            if isinstance(sub, ast.Name) and sub.id in assigned and sub.id not in bound and sub.id not in carried:
                carried.append(sub.id)
        if isinstance(statement, ast.If):
            bound = _bound_after(statement.body, bound, assigned, carried) & _bound_after(
                statement.orelse, bound, assigned, carried)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                bound.update(n.id for n in (target.elts if isinstance(target, ast.Tuple) else [target])
                             if isinstance(n, ast.Name))
    return bound
