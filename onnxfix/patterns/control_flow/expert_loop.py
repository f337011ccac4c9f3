"""ONX603: the Mixture-of-Experts loop over the experts a batch hits (`for expert_idx in
expert_hit:`, expert_hit the `nonzero()` of the one-hot routing mask's per-expert counts) -> a loop
over every expert, `range(<num_classes>)`.

The hit list is data dependent (nonzero), so the exporters unroll the export-time routing; the
number of experts is a model constant. An expert no token is routed to then runs the body on an
empty selection (`torch.where` of its all-zero mask row is empty, `index_add_` of no rows is a
no-op), and the hit experts are visited in the same ascending order, so the sum is built from the
same additions in the same order.

Two spellings: `expert_idx = expert_idx[0]` first in the body (the row's element, dropped; also
`int(expert_idx.item())` and the like, LFM2-MoE's, each the same element e), or
the row [e] itself as the index (Qwen3-MoE, Mixtral in 2025: `self.experts[expert_idx]` of a
module list, which takes [e] and e alike, and `torch.where(M[expert_idx].squeeze(0))`, whose
squeeze the int index makes unneeded, and wrong when top_k is 1)."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.expert_body import body_names, expert_body, flatten, is_int, squeeze_of
from onnxfix.patterns.control_flow.loop_parts import rebound_by_other_loops
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import statement_removal
from onnxfix.rewriter.tree_walk import walk

ONE_HOT = "torch.nn.functional.one_hot"
# the per-expert count is a sum over the token and top-k dims of the (experts, top_k, tokens) mask
COUNT_DIMS = ({-1, -2}, {1, 2})
POSITIVE = frozenset({"torch.greater", "torch.gt"})
def expert_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `for ROW in HIT:` / `J = ROW[0]` / [`if J == A: continue`] /
    body, HIT bound once to `torch.greater(M.sum(dim=(-1, -2)), 0).nonzero()` and M to
    `one_hot(X, num_classes=N).permute(2, 1, 0)` (N a model constant): the loop becomes
    `for J in range(N):`, without the `J = ROW[0]` line."""
    hit_node = _whole_slice_of(node.iter)  # `for e in expert_hit[:]` (GPT-OSS): every row
    if node.orelse or not isinstance(node.target, ast.Name) or not isinstance(hit_node, ast.Name):
        return None, ""
    row, hit = node.target.id, hit_node.id
    if not ctx.is_builtin("range") or ctx.is_parameter(hit) or len(node.body) < 2:
        return None, ""
    hit_values = ctx.assignments(hit)
    if len(hit_values) != 1 or not isinstance(hit_values[0], ast.expr) or hit_values[0].lineno >= node.lineno:
        return None, ""
    counted = _hit_rows(hit_values[0], ctx)
    if counted is None:
        return None, ""
    mask, count_call = counted
    mask_bindings = _mask_bindings(mask, node, ctx)
    if mask_bindings is None:
        return None, ""
    count, permute_receiver = mask_bindings
    if not _known_count(count, ctx) or _rebinds_attribute(count, ctx):
        return None, ""
    first = node.body[0]
    squeezes: list[ast.Call] = []
    row_read = _row_element(first, row, ctx)
    if row_read is not None:
        index, rest = first.targets[0].id, node.body[1:]
    else:  # the row itself indexes: `self.experts[expert_idx]`, `torch.where(M[expert_idx].squeeze(0))`
        squeezes = _row_indexing(node, row, mask, ctx)
        if squeezes is None:
            return None, ""
        index, rest, first = row, node.body, None
    if index in (hit, mask):
        return None, ""
    guard = _guard(rest[0], index, ctx)
    if guard is not None:
        rest = rest[1:]
    padded = isinstance(count, ast.BinOp) and isinstance(count.op, ast.Add) and is_int(count.right, 1)
    if padded and (guard is None or ast.dump(guard) != ast.dump(count.left)):
        return None, ""  # row N-1 (the padding class) would run the body with an index past the experts
    body = expert_body(rest, index, mask, ctx)
    if body is None:
        return None, ""
    indexed, unknown_calls = body
    # the mask is only read (the loop sees the mask the hit list was counted from): by its
    # permute, by the count and by `torch.where(M[...])`
    allowed = {id(permute_receiver), id(count_call.func.value)}
    if any(id(n) not in allowed and not _selected_from(n, ctx) for n in _loads(ctx.fn.node, mask)):
        return None, ""
    if row != index and _read_outside(row, node, ctx, allowed=(row_read,)):
        return None, ""
    if any(_read_outside(name, node, ctx) for name in {index, *body_names(flatten(rest, ctx) or [])}):
        return None, ""  # Python keeps the last expert's values bound after the loop
    removal = statement_removal(first, ctx) if first is not None else None
    if first is not None and removal is None:
        return None, ""
    # the row [e] indexed with a leading 1 that `.squeeze(0)` took away: the int e has none
    edits = [ctx.replace(node.iter, f"range({ctx.segment(count)})"), *(ctx.delete_suffix(c.func, c) for c in squeezes)]
    edits += [removal] if removal is not None else []
    if index != row:
        edits.insert(0, ctx.replace(node.target, index))
    experts = f"`{ctx.segment(guard)}`" if guard is not None and padded else f"`{ctx.segment(count)}`"
    needs = [f"{_listing(indexed)} to have a row for each of the {experts} experts"] if indexed else []
    if unknown_calls:
        needs.append(f"{_listing(unknown_calls)} to accept an empty batch (no error, no other effect)")
    why = (
        "the loop now also runs for the experts no token is routed to, on empty selections"
        + (f": needs {' and '.join(needs)}" if needs else "")
    )
    fix = Fix(f"Loop over every expert (`range({ctx.segment(count)})`) instead of the experts hit", tuple(edits), safe=False)
    return fix, why


def _row_element(statement: ast.stmt, row: str, ctx: FunctionContext) -> ast.Name | None:
    """The read of the loop's row in `J = ROW[0]`, `J = ROW.item()`, `J = int(ROW.item())` (LFM2-MoE),
    `J = int(ROW[0])`, `J = ROW[0].item()` or `J = int(ROW)`: each the row's one element e, as an
    int or a 0-d tensor (J may rebind the row's own name); None for any other statement."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return None
    value = statement.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "int" \
            and ctx.is_builtin("int") and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "item"
            and not value.args and not value.keywords):
        value = value.func.value
    if isinstance(value, ast.Subscript) and is_int(value.slice, 0):
        value = value.value
    return value if isinstance(value, ast.Name) and value.id == row else None


def _row_indexing(loop: ast.For, row: str, mask: str, ctx: FunctionContext) -> list[ast.Call] | None:
    """The `.squeeze(0)` calls of `M[ROW].squeeze(0)` when the loop's row [e] (a 1-element tensor)
    is read only there and as an index of a module list of ``self`` (`self.experts[ROW]`, the
    module the int e names too); None for any other read (a tensor indexed by [e] keeps a leading
    1 that an int index drops)."""
    squeezes = []
    for name in _loads(loop, row):
        subscript = ctx.parent(name)
        if not (isinstance(subscript, ast.Subscript) and subscript.slice is name and isinstance(subscript.ctx, ast.Load)):
            return None
        if isinstance(subscript.value, ast.Name) and subscript.value.id == mask:
            squeeze = squeeze_of(subscript, ctx)
            if squeeze is None:
                return None
            squeezes.append(squeeze)
        elif not _module_list(subscript.value, ctx):
            return None
    return squeezes




def _module_list(node: ast.expr, ctx: FunctionContext) -> bool:
    value = ctx.self_attr_value(node)
    return isinstance(value, ast.Call) and ctx.file.module.scope.qualname(value.func) in (
        "torch.nn.ModuleList", "torch.nn.Sequential")


def _hit_rows(value: ast.expr, ctx: FunctionContext) -> tuple[str, ast.Call] | None:
    """(M, the `M.sum(...)` call) for `torch.greater(M.sum(dim=(-1, -2)), 0).nonzero()` (also
    `torch.gt`, `(... > 0)`, `nonzero(as_tuple=False)`): the ascending indices of the experts some
    token is routed to, one row `[e]` each."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "nonzero"):
        return None
    if value.args or any(not (k.arg == "as_tuple" and _is_constant(k.value, False)) for k in value.keywords):
        return None
    test = value.func.value
    if isinstance(test, ast.Call) and ctx.qualname(test.func) in POSITIVE and len(test.args) == 2 and not test.keywords:
        summed, bound = test.args
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Gt):
        summed, bound = test.left, test.comparators[0]
    else:
        return None
    if not is_int(bound, 0):
        return None
    if not (isinstance(summed, ast.Call) and isinstance(summed.func, ast.Attribute) and summed.func.attr == "sum"):
        return None
    if not isinstance(summed.func.value, ast.Name):
        return None
    dims = [k.value for k in summed.keywords if k.arg == "dim"]
    if len(summed.args) + len(summed.keywords) != 1 or len(summed.args) + len(dims) != 1:
        return None  # `keepdim=` or `dtype=` would change what the rows are
    dim = (summed.args or dims)[0]
    if not (isinstance(dim, ast.Tuple) and all(int_constant(d) is not None for d in dim.elts)):
        return None
    if len(dim.elts) != 2 or {int_constant(d) for d in dim.elts} not in COUNT_DIMS:
        return None
    return summed.func.value.id, summed


def _mask_bindings(mask: str, loop: ast.For, ctx: FunctionContext) -> tuple[ast.expr, ast.Name] | None:
    """(N, the receiver of `.permute`) when M is bound to `one_hot(X, num_classes=N).permute(2, 1, 0)`,
    in one statement or as `M = one_hot(...)` then `M = M.permute(2, 1, 0)`, before the loop: a 3-D
    mask (permute raises on any other rank) with the N classes first."""
    if ctx.is_parameter(mask):
        return None
    values = sorted(ctx.assignments(mask), key=lambda v: (v.lineno, v.col_offset))
    if not values or not all(isinstance(v, ast.expr) for v in values) or values[-1].lineno >= loop.lineno:
        return None
    permuted = values[-1]
    if not (
        isinstance(permuted, ast.Call) and isinstance(permuted.func, ast.Attribute) and permuted.func.attr == "permute"
        and not permuted.keywords and [int_constant(a) for a in permuted.args] == [2, 1, 0]
    ):
        return None
    receiver = permuted.func.value
    if len(values) == 1:
        one_hot = receiver
    elif len(values) == 2 and isinstance(receiver, ast.Name) and receiver.id == mask:
        one_hot = values[0]
    else:
        return None
    if not (isinstance(one_hot, ast.Call) and (ctx.qualname(one_hot.func) == ONE_HOT or (  # or ONX515's helper for it
            isinstance(one_hot.func, ast.Name) and one_hot.func.id == "_onnx_one_hot_sizes"))):
        return None
    classes = [k.value for k in one_hot.keywords if k.arg == "num_classes"]
    if len(one_hot.args) == 2 and not one_hot.keywords:
        classes = [one_hot.args[1]]
    elif not (len(one_hot.args) == 1 and len(one_hot.keywords) == 1 and classes):
        return None
    return classes[0], receiver


def _static(node: ast.expr, ctx: FunctionContext) -> bool:
    """A model constant: a positive int, `self.<attr>` (any depth), or a sum or difference of them."""
    if isinstance(node, ast.Constant):
        value = int_constant(node)
        return value is not None and value > 0
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _static(node.left, ctx) and _static(node.right, ctx)
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == ctx.self_name and ctx.self_name is not None


def _whole_slice_of(node: ast.expr) -> ast.expr:
    """X of `X[:]`, else the node."""
    if (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)
            and node.slice.lower is None and node.slice.upper is None and node.slice.step is None):
        return node.value
    return node


def _known_count(node: ast.expr, ctx: FunctionContext) -> bool:
    """A model constant, or a size (GPT-OSS's `num_experts = routing_weights.shape[1]`, plus one):
    a size the export keeps fixed, as an expert count is (a dynamic one unrolled the loop over the
    hit experts no better)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _known_count(node.left, ctx) and _known_count(node.right, ctx)
    if _static(node, ctx):
        return True
    # a size read again at the loop: every name in it bound once (a parameter never), so the loop
    # reads the count the mask was built with
    names = {n.id for n in walk(node) if isinstance(n, ast.Name)}
    return bool(ctx.sizes.is_size(node)) and all(
        not ctx.assignments(n) if ctx.is_parameter(n) else len(ctx.assignments(n)) == 1 for n in names)


def _rebinds_attribute(count: ast.expr, ctx: FunctionContext) -> bool:
    """The function assigns to an attribute N reads (N would be read again at the loop)."""
    read = {ast.dump(n) for n in walk(count) if isinstance(n, ast.Attribute)}
    for node in walk(ctx.fn.node):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            for sub in walk(target):
                if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store) and ast.dump(
                    ast.Attribute(value=sub.value, attr=sub.attr, ctx=ast.Load())
                ) in read:
                    return True
    return False


def _guard(statement: ast.stmt, index: str, ctx: FunctionContext) -> ast.expr | None:
    """A in `if J == A: continue` (A a model constant): an int comparison after the rewrite, a 0-d
    tensor one before, with the same truth value."""
    if not (isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1):
        return None
    test = statement.test
    if not (isinstance(statement.body[0], ast.Continue) and isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    if isinstance(test.ops[0], ast.Eq) and isinstance(test.left, ast.Name) and test.left.id == index:
        other = test.comparators[0]
        return other if _known_count(other, ctx) else None
    return None


def _selected_from(name: ast.Name, ctx: FunctionContext) -> bool:
    """`torch.where(M[...])`: a read of the mask that writes nothing and keeps no view."""
    row = ctx.parent(name)
    if not (isinstance(row, ast.Subscript) and row.value is name and isinstance(row.ctx, ast.Load)):
        return False
    argument = squeeze_of(row, ctx) or row  # `M[J].squeeze(0)`: the rows [e] form
    call = ctx.parent(argument)
    return (isinstance(call, ast.Call) and call.args == [argument] and not call.keywords
            and ctx.qualname(call.func) == "torch.where")


def _loads(tree: ast.AST, name: str) -> list[ast.Name]:
    return [n for n in walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]


def _read_outside(name: str, loop: ast.For, ctx: FunctionContext, allowed: tuple[ast.AST, ...] = ()) -> bool:
    """``name`` is read after the loop (Python keeps the loop's last value bound: a 0-d tensor
    before, an int after) or, for the row, anywhere but the allowed reads; reads inside other
    loops or comprehensions that rebind it do not count."""
    inside = {id(n) for n in walk(loop)}
    skip = {id(n) for n in allowed} | _other_branches(loop, ctx)
    rebinding = rebound_by_other_loops(name, loop, ctx.fn.node)
    for node in _loads(ctx.fn.node, name):
        if id(node) in skip or id(node) in rebinding:
            continue
        if id(node) not in inside or allowed:
            return True
    return False


def _other_branches(loop: ast.For, ctx: FunctionContext) -> set[int]:
    """The nodes of the branches an `if` around the loop takes instead of the loop's (GPT-OSS's
    batched `else:` path reuses the loop body's names): they never see the loop's values."""
    others: set[int] = set()
    child: ast.AST = loop
    ancestors = list(ctx.ancestors(loop))
    within = ancestors[:ancestors.index(ctx.fn.node)] if ctx.fn.node in ancestors else ancestors
    if any(isinstance(a, (ast.For, ast.AsyncFor, ast.While)) for a in within):
        return others  # an outer loop may take the other branch on a later pass, after this one
    for ancestor in ctx.ancestors(loop):
        if ancestor is ctx.fn.node:
            break
        if isinstance(ancestor, ast.If):
            branch = ancestor.orelse if child in ancestor.body else ancestor.body if child in ancestor.orelse else []
            others |= {id(n) for statement in branch for n in walk(statement)}
        child = ancestor
    return others


def _listing(items: list[str]) -> str:
    quoted = [f"`{i}`" for i in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]






def _is_constant(node: ast.AST, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value
