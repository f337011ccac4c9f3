"""ONX603's mixture-of-experts loop: what the loop body over one expert may do (expert_loop.py).

Its only effect must be `Y.index_add_(0, T, V)` with T the expert's tokens (`_, T = torch.where(M[J])`)
and V computed from them: then running it for an expert no token is routed to adds nothing.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk

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
    "expand_as", "matmul", "mul", "add", "sub", "sigmoid", "tanh", "relu", "exp", "neg", "clamp", "clip",
})
# calls that turn a value into Python data or write into a container: the body would do
# something for an empty expert that the loop over the hit ones never did
EFFECT_METHODS = frozenset({
    "item", "tolist", "numpy", "append", "extend", "insert", "pop", "update", "setdefault", "backward",
})


def expert_body(statements: list[ast.stmt], index: str, mask: str, ctx: FunctionContext) -> tuple[list[str], list[str]] | None:
    """(what the body indexes by J besides the mask, the calls not known to accept an empty batch
    without another effect), or None when the body could do something for an expert with no
    token: its only effect must be `Y.index_add_(0, T, V)` with T from `_, T = torch.where(M[J])`
    and V computed from the selection; it assigns plain names only, none read before it assigns
    them (a value carried from the previous expert) or after the loop."""
    flat = flatten(statements, ctx)
    if flat is None:
        return None
    names = body_names(flat)
    assigned: set[str] = set()
    selections: set[str] = set()  # names computed from the selection of tokens
    tokens: set[str] = set()
    adds = 0
    indexed: list[ast.expr] = []
    unknown: list[ast.expr] = []
    for statement in flat:
        value = statement.value
        for sub in walk(value):
            if isinstance(sub, (ast.NamedExpr, ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await, ast.comprehension)):
                return None
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                parent = ctx.parent(sub)
                if sub.id == index:
                    if _in_index_tuple(sub, parent, ctx):  # `routing_weights[token_idx, J, None]` (GPT-OSS)
                        parent = ctx.parent(parent)
                    if not (isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load) and (
                            parent.slice is sub or parent.slice is ctx.parent(sub))):
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
        targets = [n.id for t in statement.targets for n in walk(t) if isinstance(n, ast.Name)]
        if index in targets or mask in targets:
            return None
        if _is_selection(statement, index, mask, ctx):
            tokens.add(targets[1])
            selections.update(targets)
        else:
            tokens.difference_update(targets)
            if any(isinstance(n, ast.Name) and n.id in selections for n in walk(value)):
                selections.update(targets)
            else:
                selections.difference_update(targets)
        assigned.update(targets)
    if not adds:
        return None
    return in_order(indexed, ctx), in_order(unknown, ctx)


def _in_index_tuple(name: ast.Name, parent: ast.AST, ctx: FunctionContext) -> bool:
    """J in an index tuple of names, None and ints (no slice): torch indexes with a 0-d int tensor
    there as with the int, the same elements in the same shape."""
    return (isinstance(parent, ast.Tuple) and isinstance(ctx.parent(parent), ast.Subscript)
            and ctx.parent(parent).slice is parent
            and all(isinstance(e, ast.Name) or (isinstance(e, ast.Constant) and (e.value is None or type(e.value) is int))
                    for e in parent.elts))


def flatten(statements: list[ast.stmt], ctx: FunctionContext) -> list[ast.Assign | ast.Expr] | None:
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
            inner = flatten(statement.body, ctx)
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


def body_names(flat: list[ast.Assign | ast.Expr]) -> set[str]:
    return {
        n.id for s in flat if isinstance(s, ast.Assign) for t in s.targets for n in walk(t) if isinstance(n, ast.Name)
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
    if isinstance(row, ast.Call) and isinstance(row.func, ast.Attribute) and squeeze_of(row.func.value, ctx) is row:
        row = row.func.value  # `M[J].squeeze(0)`: the rows [e] form, whose squeeze the fix drops
    return (
        isinstance(row, ast.Subscript) and isinstance(row.value, ast.Name) and row.value.id == mask
        and isinstance(row.slice, ast.Name) and row.slice.id == index
    )


def _index_add(call: ast.Call, tokens: set[str], selections: set[str], assigned: set[str]) -> bool:
    """`Y.index_add_(0, T, V)`: Y a name from outside the body, T the tokens of the selection, V
    computed from the selection (no rows when no token is routed: nothing is added)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in ("index_add_", "copy_") and isinstance(func.value, ast.Name)):
        return False
    if func.attr == "copy_":  # ONX518's `Y.copy_(_onnx_index_add(Y, 0, T, V))`, written by an earlier round
        helper = call.args[0] if len(call.args) == 1 and not call.keywords else None
        if not (isinstance(helper, ast.Call) and isinstance(helper.func, ast.Name) and helper.func.id == "_onnx_index_add"
                and len(helper.args) == 4 and isinstance(helper.args[0], ast.Name) and helper.args[0].id == func.value.id):
            return False
        call = ast.Call(func=func, args=helper.args[1:], keywords=helper.keywords)
    if func.value.id in assigned or call.keywords or len(call.args) != 3:
        return False
    dim, position, source = call.args
    if not (is_int(dim, 0) and isinstance(position, ast.Name) and position.id in tokens):
        return False
    return any(isinstance(n, ast.Name) and n.id in selections for n in walk(source))


def _call_kind(call: ast.Call, ctx: FunctionContext) -> str:
    """'pure' (a known torch function or tensor method), 'effect' (an in-place method, a
    conversion to Python data, a builtin, an `out=`), or 'unknown' (the model's own code)."""
    func = call.func
    if any(k.arg == "out" for k in call.keywords):
        return "effect"
    if isinstance(func, ast.Name) and ctx.is_builtin(func.id):
        return "effect"
    if isinstance(func, ast.Name) and func.id == "_onnx_index_add":
        return "pure"  # ONX518's out-of-place index_add (`Y.copy_(...)` around it is the effect)
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


def squeeze_of(node: ast.expr, ctx: FunctionContext) -> ast.Call | None:
    """The call of `node.squeeze(0)`."""
    attribute = ctx.parent(node)
    call = ctx.parent(attribute)
    if (isinstance(attribute, ast.Attribute) and attribute.attr == "squeeze" and isinstance(call, ast.Call)
            and call.func is attribute and len(call.args) == 1 and is_int(call.args[0], 0) and not call.keywords):
        return call
    return None


def in_order(nodes: list[ast.expr], ctx: FunctionContext) -> list[str]:
    """The nodes' source texts in source order, each once."""
    texts: list[str] = []
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        if ctx.segment(node) not in texts:
            texts.append(ctx.segment(node))
    return texts


def is_int(node: ast.AST, value: int) -> bool:
    return int_constant(node) == value
