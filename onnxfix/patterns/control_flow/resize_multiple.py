"""ONX608's resize to a multiple of a patch size, under an `if` on the remainders (MobileViT's
`resize_input_if_needed`)::

    batch_size, in_channels, orig_h, orig_w = x.shape
    if orig_h % self.patch_h != 0 or orig_w % self.patch_w != 0:
        new_h = int(math.ceil(orig_h / self.patch_h) * self.patch_h)
        new_w = int(math.ceil(orig_w / self.patch_w) * self.patch_w)
        x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=True)

Where every remainder is 0, each size rounded up to the multiple is the size itself, and the
resize is to the size the tensor already has: the branch can always run. Unsafe: a resize to the
same size is the identity only up to a neighbour's zero weight (inf or NaN beside a value gives
NaN, -0.0 gives 0.0).
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.vanishing import structure
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.statements import block_of, single_name_assignment
from onnxfix.rewriter.tree_walk import walk

_INTERPOLATE = frozenset({"torch.nn.functional.interpolate", "torch.nn.functional.upsample"})
UNSAFE = ("a resize to the size the tensor has is the identity only up to a neighbour's zero weight (inf or NaN "
          "beside a value gives NaN, -0.0 gives 0.0), and for a positive divisor; what the body draws or prints "
          "happens where the sizes are multiples too")


def resized_to_multiple(node: ast.If, ctx: FunctionContext) -> str | None:
    """The name of the tensor the `if` resizes to multiples of the sizes its test takes the
    remainders of, when every rounded-up size is the size itself where the test fails; else None."""
    pairs = _remainders(node.test)
    if not pairs or len(node.body) < 1:
        return None
    *computed, last = node.body
    name = single_name_assignment(last)
    call = last.value if name is not None else None
    if not (isinstance(call, ast.Call) and ctx.qualname(call.func) in _INTERPOLATE and call.args
            and isinstance(call.args[0], ast.Name) and call.args[0].id == name):
        return None
    size = next((k.value for k in call.keywords if k.arg == "size"), call.args[1] if len(call.args) > 1 else None)
    if not isinstance(size, (ast.Tuple, ast.List)) or len(size.elts) != len(pairs):
        return None
    tested = {n.id for a, b in pairs for n in walk(ast.Tuple([a, b], ast.Load())) if isinstance(n, ast.Name)}
    local = {}
    for statement in computed:
        target = single_name_assignment(statement)
        if target is None or target == name or target in tested:
            return None  # the tensor or a tested size changed before the resize
        local[target] = statement.value
    unpacked = _dims_of(name, node, ctx)
    if unpacked is None:
        return None  # no sizes read where they hold
    dims, rank, read_at = unpacked
    if len(size.elts) != rank - 2 or any(_stored_between(n, read_at, node, ctx) for n in {name, *tested}):
        return None  # not every spatial dim resized, or the tensor or a tested size changed since
    used = set()
    for position, element in enumerate(size.elts):
        value = local.get(element.id, element) if isinstance(element, ast.Name) else element
        pair = next((p for p in pairs if _rounds_up(value, *p)), None)
        if pair is None or dims.get(structure(pair[0])) != position - len(size.elts):
            return None  # not the size of that dim rounded up to the multiple
        used.add(id(pair))
    return name if len(used) == len(pairs) else None


def _remainders(test: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """[(A, B)] of `A % B != 0` (or `> 0`), joined by `or`."""
    values = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    pairs = []
    for value in values:
        if not (isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], (ast.NotEq, ast.Gt))
                and isinstance(value.left, ast.BinOp) and isinstance(value.left.op, ast.Mod)
                and isinstance(value.comparators[0], ast.Constant) and value.comparators[0].value == 0):
            return []
        pairs.append((value.left.left, value.left.right))
    return pairs


def _rounds_up(value: ast.expr, a: ast.expr, b: ast.expr) -> bool:
    """`int(math.ceil(A / B) * B)`, `math.ceil(A / B) * B`, `(A + B - 1) // B * B` (and B first)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "int" and len(value.args) == 1:
        value = value.args[0]
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult)):
        return False
    A, B = structure(a), structure(b)
    for quotient, factor in ((value.left, value.right), (value.right, value.left)):
        if structure(factor) != B:
            continue
        if (isinstance(quotient, ast.Call) and len(quotient.args) == 1 and not quotient.keywords
                and isinstance(quotient.func, ast.Attribute) and quotient.func.attr == "ceil"
                and isinstance(quotient.func.value, ast.Name) and quotient.func.value.id in ("math", "np", "numpy")):
            division = quotient.args[0]
            if (isinstance(division, ast.BinOp) and isinstance(division.op, ast.Div)
                    and structure(division.left) == A and structure(division.right) == B):
                return True
        if isinstance(quotient, ast.BinOp) and isinstance(quotient.op, ast.FloorDiv) and structure(quotient.right) == B:
            rounded = quotient.left  # (A + B - 1)
            if (isinstance(rounded, ast.BinOp) and isinstance(rounded.op, ast.Sub)
                    and isinstance(rounded.right, ast.Constant) and rounded.right.value == 1
                    and isinstance(rounded.left, ast.BinOp) and isinstance(rounded.left.op, ast.Add)
                    and structure(rounded.left.left) == A and structure(rounded.left.right) == B):
                return True
    return False


def _dims_of(name: str, node: ast.If, ctx: FunctionContext) -> tuple[dict[str, int], int, int] | None:
    """({structure of a size of `name`: its dim counted from the end}, its rank, the line the sizes
    were read at) of `b, c, h, w = x.shape` (or `x.size()`) in the `if`'s block before it (the last
    such unpacking); None without one."""
    block = block_of(node, ctx)
    earlier = block[: block.index(node)] if node in block else []
    unpacked = None
    for statement in earlier:
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Tuple) and _shape_of(statement.value, name)):
            unpacked = statement
    if unpacked is None:
        return None
    targets = unpacked.targets[0].elts
    found = {structure(ast.Name(t.id, ast.Load())): i - len(targets) for i, t in enumerate(targets) if isinstance(t, ast.Name)}
    return found, len(targets), unpacked.end_lineno


def _stored_between(name: str, start: int, node: ast.If, ctx: FunctionContext) -> bool:
    """`name` bound anywhere (a tuple target, a loop, a nested block) after line ``start`` and
    before the `if`, or in the `if`'s body before its last statement."""
    last = node.body[-1]
    for n in walk(ctx.fn.node):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del)):
            if start < n.lineno < node.lineno or node.lineno <= n.lineno < last.lineno:
                return True
    return False


def _shape_of(value: ast.expr, name: str) -> bool:
    if isinstance(value, ast.Call) and not value.args and isinstance(value.func, ast.Attribute) and value.func.attr == "size":
        value = value.func
        return isinstance(value.value, ast.Name) and value.value.id == name
    return isinstance(value, ast.Attribute) and value.attr == "shape" and isinstance(value.value, ast.Name) and value.value.id == name
