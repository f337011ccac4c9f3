"""ONX603: the Mixture-of-Experts loop over the experts a batch hits (`for expert_idx in
expert_hit:`, expert_hit the `nonzero()` of the one-hot routing mask's per-expert counts) -> a loop
over every expert, `range(<num_classes>)`.

The hit list is data dependent (nonzero), so the exporters unroll the export-time routing; the
number of experts is a model constant. An expert no token is routed to then runs the body on an
empty selection (`torch.where` of its all-zero mask row is empty, `index_add_` of no rows is a
no-op), and the hit experts are visited in the same ascending order, so the sum is built from the
same additions in the same order.

Two spellings: `expert_idx = expert_idx[0]` first in the body (the row's element, dropped), or
the row [e] itself as the index (Qwen3-MoE, Mixtral in 2025: `self.experts[expert_idx]` of a
module list, which takes [e] and e alike, and `torch.where(M[expert_idx].squeeze(0))`, whose
squeeze the int index makes unneeded, and wrong when top_k is 1)."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import rebound_by_other_loops
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import statement_removal
from onnxfix.rewriter.tensors import in_place_method

ONE_HOT = "torch.nn.functional.one_hot"
# the per-expert count is a sum over the token and top-k dims of the (experts, top_k, tokens) mask
COUNT_DIMS = ({-1, -2}, {1, 2})
POSITIVE = frozenset({"torch.greater", "torch.gt"})
NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode"})
# torch functions and tensor methods that return a new value, have no other effect and accept an
# empty batch (no error on zero rows)
PURE_FUNCTIONS = frozenset({
    "torch.where", "torch.matmul", "torch.mm", "torch.mul", "torch.add", "torch.sigmoid", "torch.tanh",
    "torch.nn.functional.linear", "torch.nn.functional.silu", "torch.nn.functional.gelu",
    "torch.nn.functional.relu",
})
PURE_METHODS = frozenset({
    "to", "float", "double", "half", "bfloat16", "type_as", "view", "view_as", "reshape", "chunk",
    "split", "t", "transpose", "permute", "squeeze", "unsqueeze", "contiguous", "flatten", "expand",
    "expand_as", "matmul", "mul", "add", "sub", "sigmoid", "tanh", "relu", "exp", "neg",
})
# calls that turn a value into Python data or write into a container: the body would do
# something for an empty expert that the loop over the hit ones never did
EFFECT_METHODS = frozenset({
    "item", "tolist", "numpy", "append", "extend", "insert", "pop", "update", "setdefault", "backward",
})


def expert_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `for ROW in HIT:` / `J = ROW[0]` / [`if J == A: continue`] /
    body, HIT bound once to `torch.greater(M.sum(dim=(-1, -2)), 0).nonzero()` and M to
    `one_hot(X, num_classes=N).permute(2, 1, 0)` (N a model constant): the loop becomes
    `for J in range(N):`, without the `J = ROW[0]` line."""
    if node.orelse or not isinstance(node.target, ast.Name) or not isinstance(node.iter, ast.Name):
        return None, ""
    row, hit = node.target.id, node.iter.id
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
    if not _static(count, ctx) or _rebinds_attribute(count, ctx):
        return None, ""
    first = node.body[0]
    squeezes: list[ast.Call] = []
    if (
        isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)
        and isinstance(first.value, ast.Subscript) and isinstance(first.value.value, ast.Name)
        and first.value.value.id == row and _is_int(first.value.slice, 0)
    ):
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
    padded = isinstance(count, ast.BinOp) and isinstance(count.op, ast.Add) and _is_int(count.right, 1)
    if padded and (guard is None or ast.dump(guard) != ast.dump(count.left)):
        return None, ""  # row N-1 (the padding class) would run the body with an index past the experts
    body = _body(rest, index, mask, ctx)
    if body is None:
        return None, ""
    indexed, unknown_calls = body
    # the mask is only read (the loop sees the mask the hit list was counted from): by its
    # permute, by the count and by `torch.where(M[...])`
    allowed = {id(permute_receiver), id(count_call.func.value)}
    if any(id(n) not in allowed and not _selected_from(n, ctx) for n in _loads(ctx.fn.node, mask)):
        return None, ""
    if row != index and _read_outside(row, node, ctx, allowed=(first.value.value,)):
        return None, ""
    if any(_read_outside(name, node, ctx) for name in {index, *_body_names(_flatten(rest, ctx) or [])}):
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
            squeeze = _squeeze_of(subscript, ctx)
            if squeeze is None:
                return None
            squeezes.append(squeeze)
        elif not _module_list(subscript.value, ctx):
            return None
    return squeezes


def _squeeze_of(node: ast.expr, ctx: FunctionContext) -> ast.Call | None:
    """The call of `node.squeeze(0)`."""
    attribute = ctx.parent(node)
    call = ctx.parent(attribute)
    if (isinstance(attribute, ast.Attribute) and attribute.attr == "squeeze" and isinstance(call, ast.Call)
            and call.func is attribute and len(call.args) == 1 and _is_int(call.args[0], 0) and not call.keywords):
        return call
    return None


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
    if not _is_int(bound, 0):
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
    if not (isinstance(one_hot, ast.Call) and ctx.qualname(one_hot.func) == ONE_HOT):
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


def _rebinds_attribute(count: ast.expr, ctx: FunctionContext) -> bool:
    """The function assigns to an attribute N reads (N would be read again at the loop)."""
    read = {ast.dump(n) for n in ast.walk(count) if isinstance(n, ast.Attribute)}
    for node in ast.walk(ctx.fn.node):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            for sub in ast.walk(target):
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
        return other if _static(other, ctx) else None
    return None


def _body(statements: list[ast.stmt], index: str, mask: str, ctx: FunctionContext) -> tuple[list[str], list[str]] | None:
    """(what the body indexes by J besides the mask, the calls not known to accept an empty batch
    without another effect), or None when the body could do something for an expert with no
    token: its only effect must be `Y.index_add_(0, T, V)` with T from `_, T = torch.where(M[J])`
    and V computed from the selection; it assigns plain names only, none read before it assigns
    them (a value carried from the previous expert) or after the loop."""
    flat = _flatten(statements, ctx)
    if flat is None:
        return None
    names = _body_names(flat)
    assigned: set[str] = set()
    selections: set[str] = set()  # names computed from the selection of tokens
    tokens: set[str] = set()
    adds = 0
    indexed: list[ast.expr] = []
    unknown: list[ast.expr] = []
    for statement in flat:
        value = statement.value
        for sub in ast.walk(value):
            if isinstance(sub, (ast.NamedExpr, ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await, ast.comprehension)):
                return None
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                parent = ctx.parent(sub)
                if sub.id == index:
                    if not (isinstance(parent, ast.Subscript) and parent.slice is sub and isinstance(parent.ctx, ast.Load)):
                        return None  # J used as a value: an int now, a 0-d tensor before
                    if not (isinstance(parent.value, ast.Name) and parent.value.id == mask):
                        indexed.append(parent.value)
                elif sub.id in names and sub.id not in assigned:
                    return None  # read before the body assigns it: a value carried across experts
            if isinstance(sub, ast.Call):
                kind = _call_kind(sub, ctx)
                if kind == "effect" and not (isinstance(statement, ast.Expr) and sub is value):
                    return None
                if kind == "unknown":
                    unknown.append(sub.func)
        if isinstance(statement, ast.Expr):
            if not _index_add(value, tokens, selections, assigned):
                return None
            adds += 1
            continue
        targets = [n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        if index in targets or mask in targets:
            return None
        if _is_selection(statement, index, mask, ctx):
            tokens.add(targets[1])
            selections.update(targets)
        else:
            tokens.difference_update(targets)
            if any(isinstance(n, ast.Name) and n.id in selections for n in ast.walk(value)):
                selections.update(targets)
            else:
                selections.difference_update(targets)
        assigned.update(targets)
    if not adds:
        return None
    return _in_order(indexed, ctx), _in_order(unknown, ctx)


def _flatten(statements: list[ast.stmt], ctx: FunctionContext) -> list[ast.Assign | ast.Expr] | None:
    """The body's statements in order, `with torch.no_grad():` blocks opened; None for any other
    kind of statement (a branch, a nested loop, a `break`, a write through an attribute or an
    index, an augmented assignment)."""
    flat: list[ast.Assign | ast.Expr] = []
    for statement in statements:
        if isinstance(statement, ast.With):
            if not all(
                isinstance(i.context_expr, ast.Call) and ctx.qualname(i.context_expr.func) in NO_GRAD
                and not i.context_expr.args and not i.context_expr.keywords and i.optional_vars is None
                for i in statement.items
            ):
                return None
            inner = _flatten(statement.body, ctx)
            if inner is None:
                return None
            flat.extend(inner)
        elif isinstance(statement, ast.Assign) and all(_plain_target(t) for t in statement.targets):
            flat.append(statement)
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            flat.append(statement)
        else:
            return None
    return flat


def _plain_target(target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts)


def _body_names(flat: list[ast.Assign | ast.Expr]) -> set[str]:
    return {
        n.id for s in flat if isinstance(s, ast.Assign) for t in s.targets for n in ast.walk(t) if isinstance(n, ast.Name)
    }


def _is_selection(statement: ast.Assign, index: str, mask: str, ctx: FunctionContext) -> bool:
    """`A, T = torch.where(M[J])`: the (top-k slot, token) pairs routed to expert J."""
    if len(statement.targets) != 1:
        return False
    target, value = statement.targets[0], statement.value
    if not (isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2):
        return False
    if not (isinstance(value, ast.Call) and ctx.qualname(value.func) == "torch.where" and len(value.args) == 1 and not value.keywords):
        return False
    row = value.args[0]
    if isinstance(row, ast.Call) and isinstance(row.func, ast.Attribute) and _squeeze_of(row.func.value, ctx) is row:
        row = row.func.value  # `M[J].squeeze(0)`: the rows [e] form, whose squeeze the fix drops
    return (
        isinstance(row, ast.Subscript) and isinstance(row.value, ast.Name) and row.value.id == mask
        and isinstance(row.slice, ast.Name) and row.slice.id == index
    )


def _index_add(call: ast.Call, tokens: set[str], selections: set[str], assigned: set[str]) -> bool:
    """`Y.index_add_(0, T, V)`: Y a name from outside the body, T the tokens of the selection, V
    computed from the selection (no rows when no token is routed: nothing is added)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "index_add_" and isinstance(func.value, ast.Name)):
        return False
    if func.value.id in assigned or call.keywords or len(call.args) != 3:
        return False
    dim, position, source = call.args
    if not (_is_int(dim, 0) and isinstance(position, ast.Name) and position.id in tokens):
        return False
    return any(isinstance(n, ast.Name) and n.id in selections for n in ast.walk(source))


def _call_kind(call: ast.Call, ctx: FunctionContext) -> str:
    """'pure' (a known torch function or tensor method), 'effect' (an in-place method, a
    conversion to Python data, a builtin, an `out=`), or 'unknown' (the model's own code)."""
    func = call.func
    if any(k.arg == "out" for k in call.keywords):
        return "effect"
    if isinstance(func, ast.Name) and ctx.is_builtin(func.id):
        return "effect"
    qualname = ctx.qualname(func)
    if qualname is not None and qualname.startswith("torch."):
        if qualname.rpartition(".")[2].endswith("_"):
            return "effect"
        return "pure" if qualname in PURE_FUNCTIONS else "unknown"
    if isinstance(func, ast.Attribute):
        if func.attr in EFFECT_METHODS or in_place_method(func.attr):
            return "effect"
        if func.attr in PURE_METHODS and not ctx.is_self_attr(func):
            return "pure"
    return "unknown"


def _selected_from(name: ast.Name, ctx: FunctionContext) -> bool:
    """`torch.where(M[...])`: a read of the mask that writes nothing and keeps no view."""
    row = ctx.parent(name)
    if not (isinstance(row, ast.Subscript) and row.value is name and isinstance(row.ctx, ast.Load)):
        return False
    argument = _squeeze_of(row, ctx) or row  # `M[J].squeeze(0)`: the rows [e] form
    call = ctx.parent(argument)
    return (isinstance(call, ast.Call) and call.args == [argument] and not call.keywords
            and ctx.qualname(call.func) == "torch.where")


def _loads(tree: ast.AST, name: str) -> list[ast.Name]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]


def _read_outside(name: str, loop: ast.For, ctx: FunctionContext, allowed: tuple[ast.AST, ...] = ()) -> bool:
    """``name`` is read after the loop (Python keeps the loop's last value bound: a 0-d tensor
    before, an int after) or, for the row, anywhere but the allowed reads; reads inside other
    loops or comprehensions that rebind it do not count."""
    inside = {id(n) for n in ast.walk(loop)}
    skip = {id(n) for n in allowed}
    rebinding = rebound_by_other_loops(name, loop, ctx.fn.node)
    for node in _loads(ctx.fn.node, name):
        if id(node) in skip or id(node) in rebinding:
            continue
        if id(node) not in inside or allowed:
            return True
    return False


def _listing(items: list[str]) -> str:
    quoted = [f"`{i}`" for i in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _in_order(nodes: list[ast.expr], ctx: FunctionContext) -> list[str]:
    """The nodes' source texts in source order, each once."""
    texts: list[str] = []
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        if ctx.segment(node) not in texts:
            texts.append(ctx.segment(node))
    return texts


def _is_int(node: ast.AST, value: int) -> bool:
    return int_constant(node) == value


def _is_constant(node: ast.AST, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value
