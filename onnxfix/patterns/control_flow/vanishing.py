"""ONX608's empty blocks: a branch on an amount whose taken side only adds blocks that are empty
when the amount is 0 (TabPFN's feature groups, Z-Image's patch sequence, LongT5's globals)::

    if missing_to_next > 0:
        x[k] = torch.cat((x[k], torch.zeros(s, b, missing_to_next)), dim=-1)

    feat = torch.cat([image, image[-1:].repeat(pad_len, 1)], dim=0) if pad_len > 0 else image

Where the test fails the amount is 0 (`!= 0`, or `> 0` of an amount proven non-negative), every
block sized by it along the concatenation is empty, and what is left is the other side: the
taken side computes the same values, so it can be taken always. Checked on the expressions
themselves: blocks from the factories, `new_*`, `expand` and `repeat` whose size along the
concatenated dim evaluates to 0, and `F.pad` whose amounts all evaluate to 0.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.cat_pad import same_dtype, size_along
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.statements import single_name_assignment

_CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})
_PAD = "torch.nn.functional.pad"
_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.FloorDiv: lambda a, b: a // b if b else None, ast.Mod: lambda a, b: a % b if b else None}


def int_value(node: ast.expr, known: dict[str, int | None]) -> int | None:
    """The int an expression of int literals and the names ``known`` holds evaluates to; None
    when it reads anything else."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = int_value(node.operand, known)
        return None if inner is None else -inner
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = int_value(node.left, known), int_value(node.right, known)
        return None if left is None or right is None else _ARITHMETIC[type(node.op)](left, right)
    return None


def structure(node: ast.AST) -> str:
    """The node's tree without positions: two expressions written alike compare equal."""
    return ast.dump(node, annotate_fields=False, include_attributes=False)


def zero_amounts(test: ast.expr, ctx: FunctionContext, negated: bool = False) -> tuple[set[str], list[str]] | None:
    """({names that are 0 where ``test`` fails}, [why that is not proven]) for `a > 0`, `a != 0`,
    `0 < a`, `a >= 1` or a bare int `a`, joined by `or`; with ``negated``, the names that are 0
    where the test holds (`a == 0`, `not a`). None for any other test."""
    if negated:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return zero_amounts(test.operand, ctx)
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
            return zero_amounts(ast.Compare(test.left, [ast.NotEq()], test.comparators), ctx)
        return None
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    names: set[str] = set()
    why: list[str] = []
    for part in parts:
        amount, positive = _tested_amount(part)
        if not isinstance(amount, ast.Name) or not ctx.ints.is_int(amount):
            return None
        names.add(amount.id)
        if positive and not ctx.ints.is_nonnegative_int(amount):
            divisor = _remainder_divisor(amount, ctx)
            if divisor is None:
                return None  # a negative amount skips the block; the rewrite would crop (F.pad) or fail
            why.append(f"`{amount.id}` is not negative only for a positive `{ctx.segment(divisor)}`: where it is "
                       "negative the original skipped the block and the rewrite builds it")
    return names, why


def _remainder_divisor(amount: ast.Name, ctx: FunctionContext) -> ast.expr | None:
    """`d` of an amount bound once to `... % d` (TabPFN's `(g - f % g) % g`, g from the
    configuration): an int of the sign of `d`."""
    values = ctx.assignments(amount.id)
    value = values[0] if len(values) == 1 else None
    return value.right if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mod) else None


def _tested_amount(part: ast.expr) -> tuple[ast.expr | None, bool]:
    """(the amount, whether the test is `> 0` rather than `!= 0`) of one comparison."""
    if isinstance(part, ast.Name):
        return part, False
    if not (isinstance(part, ast.Compare) and len(part.ops) == 1):
        return None, False
    left, op, right = part.left, part.ops[0], part.comparators[0]
    if int_constant(left) is not None and int_constant(right) is None:
        flipped = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE(), ast.NotEq: ast.NotEq()}.get(type(op))
        left, op, right = right, flipped, left
    bound = int_constant(right)
    if isinstance(op, ast.NotEq) and bound == 0:
        return left, False
    if (isinstance(op, ast.Gt) and bound == 0) or (isinstance(op, ast.GtE) and bound == 1):
        return left, True
    return None, False


def without_empty_blocks(expr: ast.expr, known: dict[str, int | None], ctx: FunctionContext) -> tuple[ast.expr, list[str]] | None:
    """(what ``expr`` computes where the ``known`` names hold their values, [why the values
    may differ]) when that is one of its parts: a concatenation whose other blocks are empty
    along its dim, or a constant pad by amounts that are all 0. None otherwise."""
    if not isinstance(expr, ast.Call):
        return None
    qualname = ctx.qualname(expr.func)
    if qualname in _CONCATENATIONS:
        return _kept_block(expr, known, ctx)
    if qualname == _PAD and len(expr.args) >= 2 and not any(k.arg not in ("value", "mode") for k in expr.keywords):
        mode = [k.value for k in expr.keywords if k.arg == "mode"] + expr.args[2:3]
        amounts = expr.args[1]
        if mode and not (isinstance(mode[0], ast.Constant) and mode[0].value == "constant"):
            return None
        if isinstance(amounts, (ast.Tuple, ast.List)) and amounts.elts and all(
                int_value(a, known) == 0 for a in amounts.elts):
            return expr.args[0], []
    return None


def _kept_block(cat: ast.Call, known: dict[str, int | None], ctx: FunctionContext) -> tuple[ast.expr, list[str]] | None:
    dims = [*cat.args[1:], *(k.value for k in cat.keywords if k.arg in ("dim", "axis"))]
    dim = int_constant(dims[0]) if dims else 0
    parts = cat.args[0] if cat.args else None
    if dim is None or len(dims) > 1 or not isinstance(parts, (ast.Tuple, ast.List)) or any(
            k.arg == "out" for k in cat.keywords):
        return None
    kept = [p for p in parts.elts if not _empty_along(p, dim, known, ctx)]
    if len(kept) != 1 or len(parts.elts) == 1 or isinstance(kept[0], ast.Starred):
        return None
    dropped = [p for p in parts.elts if p is not kept[0]]
    why = []
    if not all(_same_dtype_as(p, kept[0], ctx) for p in dropped):
        why.append("an empty block's dtype is not shown to be the kept one's (torch.cat promotes, even an empty block)")
    if not all(_harmless(p, ctx) for p in dropped):
        why.append("an empty block's other arguments now run where they did not (an index, a call)")
    return kept[0], why


def _harmless(block: ast.expr, ctx: FunctionContext) -> bool:
    """Every part of the block is a name, a number, an attribute, a slice of a name, a size
    (`x.shape[i]`, `x.size(i)`) or arithmetic on those, around the factory or method call
    itself: evaluating it cannot raise or draw random numbers (`x[-1]` of an empty `x` raises)."""
    def plain(node: ast.AST) -> bool:
        if isinstance(node, (ast.Name, ast.Constant, ast.Load, ast.operator, ast.unaryop)):
            return True
        if isinstance(node, ast.Attribute):
            return plain(node.value)
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(plain(e) for e in node.elts)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            return all(plain(c) for c in ast.iter_child_nodes(node))
        if isinstance(node, ast.Subscript):
            index = node.slice
            shape = isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
            sliced = isinstance(index, ast.Slice) or (
                isinstance(index, ast.Tuple) and all(isinstance(e, ast.Slice) for e in index.elts))
            return plain(node.value) and (shape or sliced) and all(plain(c) for c in ast.iter_child_nodes(index))
        if isinstance(node, ast.Slice):
            return all(plain(c) for c in ast.iter_child_nodes(node))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size":
            return plain(node.func.value) and all(plain(a) for a in node.args)
        return False

    if not isinstance(block, ast.Call):
        return False
    receiver_ok = plain(block.func.value) if isinstance(block.func, ast.Attribute) and ctx.qualname(block.func) is None else True
    return receiver_ok and all(plain(a) for a in block.args) and all(plain(k.value) for k in block.keywords)


def _empty_along(block: ast.expr, dim: int, known: dict[str, int | None], ctx: FunctionContext) -> bool:
    size = size_along(block, dim, ctx)
    if size is None and isinstance(block, ast.Call) and isinstance(block.func, ast.Attribute) \
            and block.func.attr == "repeat" and ctx.qualname(block.func) is None:
        reps = block.args[0].elts if len(block.args) == 1 and isinstance(block.args[0], (ast.Tuple, ast.List)) else block.args
        # the result has one dim per repeat count, each multiplied by its count
        size = reps[dim] if -len(reps) <= dim < len(reps) and not any(isinstance(r, ast.Starred) for r in reps) else None
    return size is not None and int_value(size, known) == 0


def _same_dtype_as(block: ast.expr, kept: ast.expr, ctx: FunctionContext) -> bool:
    """The block is built from the kept tensor (`x[-1:].repeat(...)`, `x.new_zeros(...)`, a
    factory given `dtype=x.dtype`), or both are factories given the same dtype."""
    if isinstance(kept, ast.Name):
        return same_dtype(block, kept.id, ctx)
    dtypes = [next((structure(k.value) for k in getattr(e, "keywords", []) if k.arg == "dtype"), None) for e in (block, kept)]
    kept_dtype = structure(ast.Attribute(kept, "dtype", ast.Load()))
    return dtypes[0] is not None and dtypes[0] in (dtypes[1], kept_dtype)


def vanishing_body(node: ast.If, ctx: FunctionContext) -> tuple[list[ast.expr], dict[str, ast.expr], list[str]] | None:
    """([targets padded], {local name: value}, [why unsafe]) when ``node`` is `if <amounts>:`
    (no else) whose body only computes ints into local names and reassigns targets (`x`, `x[k]`)
    to themselves plus blocks that are empty where the test fails."""
    if node.orelse:
        return None
    zero = zero_amounts(node.test, ctx)
    if zero is None:
        return None
    names, why = zero
    known: dict[str, int | None] = dict.fromkeys(names, 0)
    targets, local = [], {}
    for statement in node.body:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            return None
        target = statement.targets[0]
        name = single_name_assignment(statement)
        if name and name not in known and int_value(statement.value, known) is not None and name not in local:
            local[name] = statement.value
            known[name] = int_value(statement.value, known)
            continue
        reduced = without_empty_blocks(statement.value, known, ctx)
        if not (isinstance(target, (ast.Name, ast.Subscript)) and reduced and structure(reduced[0]) == _loadstructure(target)):
            return None
        targets.append(target)
        why.extend(reduced[1])
    return (targets, local, why) if targets else None


def _loadstructure(target: ast.expr) -> str:
    """The dump of a target read back (`x[k] = ...` stores; `x[k]` in the block loads)."""
    return structure(ast.parse(ast.unparse(target), mode="eval").body)
