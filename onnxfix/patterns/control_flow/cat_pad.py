"""ONX608's concatenated pad: a tensor padded by `torch.cat` with a block whose size along the
concatenation is an amount that is 0 exactly when the branch is not taken (icefall's Zipformer
downsampling)::

    if seq_len != d_seq_len * ds:
        pad = d_seq_len * ds - seq_len
        src_extra = src[src.shape[0] - 1 :].expand(pad, src.shape[1], src.shape[2])
        src = torch.cat((src, src_extra), dim=0)

Where `seq_len == d_seq_len * ds`, `pad` is 0 (checked by expanding both sides as polynomials of
the names, the tested one replaced by the other side), the block is empty and `torch.cat` gives
`src`'s values: the branch can be taken always.
"""

from __future__ import annotations

import ast
from collections import Counter

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.statements import single_name_assignment
from onnxfix.rewriter.tree_walk import walk

_CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})
_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.full"})
_NEW_FACTORIES = frozenset({"new_zeros", "new_ones", "new_empty", "new_full"})
Polynomial = Counter  # (sorted atoms) -> coefficient


def concatenated_pad(node: ast.If, ctx: FunctionContext) -> tuple[str, str] | None:
    """(the padded tensor's name, why the fix is unsafe or "") when ``node`` is `if A != B:` around
    such a pad, else None."""
    test = node.test
    if node.orelse or not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotEq)):
        return None
    tested, other = test.left, test.comparators[0]
    if not ctx.sizes.is_size(tested) or isinstance(tested, ast.BinOp):
        tested, other = other, tested  # the size read as it is (`seq_len`, `x.shape[-1]`) is replaced
    if isinstance(tested, ast.BinOp) or not (ctx.sizes.is_size(tested) or ctx.ints.is_int(tested)):
        return None
    statements = [s for s in node.body if not isinstance(s, ast.Assert)]
    padded = single_name_assignment(statements[-1]) if statements else None
    names = _body_names(statements[:-1], node.test, padded)
    if names is None:
        return None
    cat = statements[-1].value if padded else None
    block = _concatenated_block(cat, padded, ctx)
    if block is None:
        return None
    block, dim = block
    block = names.get(block.id, block) if isinstance(block, ast.Name) else block
    amount = size_along(block, dim, ctx)
    if amount is None:
        return None
    substituted = _polynomial(amount, names, {_atom(tested): _polynomial(other, names, {})})
    if substituted is None or any(substituted.values()):
        return None
    why = []
    if any(isinstance(s, ast.Assert) for s in node.body):
        why.append("the body's asserts now run where the sizes are equal too")
    if not same_dtype(block, padded, ctx):
        why.append("the block's dtype is not shown to be the tensor's (torch.cat promotes, even an empty block)")
    return padded, "; ".join(why)


def _body_names(statements: list[ast.stmt], test: ast.expr, padded: str | None) -> dict[str, ast.expr] | None:
    """{name: value} of the body's assignments before the pad: each name assigned once, none of
    them the padded tensor or a name the test reads, and each value reading only names assigned
    before it (so substituting values is reading them where they were computed)."""
    tested = {n.id for n in walk(test) if isinstance(n, ast.Name)}
    names: dict[str, ast.expr] = {}
    for statement in statements:
        name = single_name_assignment(statement)
        if name is None or name in names or name in tested or name == padded:
            return None
        later = {single_name_assignment(s) for s in statements[statements.index(statement):]}
        if any(isinstance(n, ast.Name) and n.id in later for n in walk(statement.value)):
            return None
        names[name] = statement.value
    return names


def same_dtype(block: ast.expr, padded: str | None, ctx: FunctionContext) -> bool:
    """`x[...].expand(...)` of the padded tensor, `x.new_zeros(...)`, or a factory given
    `dtype=x.dtype`: the block has the tensor's dtype, so the concatenation promotes nothing."""
    func = block.func if isinstance(block, ast.Call) else None
    dtype = next((k.value for k in getattr(block, "keywords", []) if k.arg == "dtype"), None)
    if dtype is not None:  # given, it decides (`x.new_zeros(n, dtype=torch.float64)` is float64)
        return (isinstance(dtype, ast.Attribute) and dtype.attr == "dtype" and isinstance(dtype.value, ast.Name)
                and dtype.value.id == padded)
    if isinstance(func, ast.Attribute) and ctx.qualname(func) is None:
        receiver = func.value
        while isinstance(receiver, ast.Subscript):
            receiver = receiver.value
        return isinstance(receiver, ast.Name) and receiver.id == padded
    return False


def amount_concatenation(body: list[ast.stmt], amounts: list[ast.expr], ctx: FunctionContext) -> tuple[str, str] | None:
    """(the padded tensor's name, why the fix is unsafe or "") when ``body`` pads it by
    concatenating a block whose size along the concatenation is one of ``amounts`` (Chronos-2's
    patching: `padding = torch.full(size=(*x.shape[:-1], P - L % P), ...)`, then
    `x = torch.concat((padding, x), dim=-1)`): single-name assignments, each name once, the
    concatenation last. With the amount taken modulo its divisor the block is empty where the
    size divides, and the concatenation gives the tensor's values."""
    if not body or not all(single_name_assignment(s) for s in body):
        return None
    padded = single_name_assignment(body[-1])
    names = {single_name_assignment(s): s.value for s in body[:-1]}
    if len(names) != len(body) - 1 or padded in names:
        return None
    found = _concatenated_block(body[-1].value, padded, ctx, either_side=True)
    if found is None:
        return None
    block, dim = found
    block = names.get(block.id, block) if isinstance(block, ast.Name) else block
    amount = size_along(block, dim, ctx, names)
    amount = names.get(amount.id, amount) if isinstance(amount, ast.Name) else amount
    if amount is None or not any(ast.dump(amount) == ast.dump(a) for a in amounts):
        return None
    why = "" if same_dtype(block, padded, ctx) else "the block's dtype is not shown to be the tensor's (torch.cat promotes, even an empty block)"
    return padded, why


def _concatenated_block(cat: ast.expr | None, padded: str | None, ctx: FunctionContext,
                        either_side: bool = False) -> tuple[ast.expr, int] | None:
    """(block, dim) of `torch.cat((X, block), dim=d)` with X the assigned name and a literal d
    (or `(block, X)` too, ``either_side``)."""
    if not (isinstance(cat, ast.Call) and ctx.qualname(cat.func) in _CONCATENATIONS and cat.args):
        return None
    parts = cat.args[0]
    dims = [*cat.args[1:], *(k.value for k in cat.keywords if k.arg in ("dim", "axis"))]
    if any(k.arg == "out" for k in cat.keywords) or not (
            isinstance(parts, (ast.Tuple, ast.List)) and len(parts.elts) == 2 and len(dims) <= 1):
        return None
    first, block = parts.elts
    if either_side and isinstance(block, ast.Name) and block.id == padded:
        first, block = block, first
    dim = int_constant(dims[0]) if dims else 0
    if not (isinstance(first, ast.Name) and first.id == padded and dim is not None):
        return None
    return block, dim


def size_along(block: ast.expr, dim: int, ctx: FunctionContext, names: dict[str, ast.expr] | None = None) -> ast.expr | None:
    """The size of `T.expand(s0, s1, ...)` or `torch.zeros(s0, s1, ...)` (`torch.full(size=...,
    fill_value=...)`) along ``dim``; the sizes may be a tuple bound to a name in ``names``, and
    start with `*x.shape[:-1]` for a negative ``dim`` past it."""
    keywords = {k.arg: k.value for k in block.keywords} if isinstance(block, ast.Call) else {}
    if not isinstance(block, ast.Call) or not set(keywords) <= {"dtype", "device", "size", "fill_value"}:
        return None
    func = block.func
    qualname = ctx.qualname(func)
    full = qualname == "torch.full" or getattr(func, "attr", "") == "new_full"
    if isinstance(func, ast.Attribute) and func.attr == "expand" and qualname is None and not keywords.keys() & {"size", "fill_value"}:
        sizes = block.args
    elif qualname in _FACTORIES or (isinstance(func, ast.Attribute) and func.attr in _NEW_FACTORIES):
        if "size" in keywords:
            sizes = [keywords["size"]] if not block.args else []
        else:
            sizes = block.args[:-1] if full and "fill_value" not in keywords else block.args
    else:
        return None
    if len(sizes) == 1 and isinstance(sizes[0], ast.Name) and sizes[0].id in (names or {}):
        sizes = [names[sizes[0].id]]
    if len(sizes) == 1 and isinstance(sizes[0], (ast.Tuple, ast.List)):
        sizes = sizes[0].elts
    if not -len(sizes) <= dim < len(sizes) or any(isinstance(s, ast.Starred) for s in (sizes[dim:] if dim < 0 else sizes[:dim + 1])):
        return None
    return sizes[dim]


def _polynomial(node: ast.expr, names: dict[str, ast.expr], replaced: dict[str, Polynomial], depth: int = 0) -> Polynomial | None:
    """``node`` as a sum of products of atoms (names, and `//`, `%` or calls as opaque text),
    the body's names expanded; None for anything else."""
    if depth > 20:
        return None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Counter({(): node.value})
    if _atom(node) in replaced:
        return None if replaced[_atom(node)] is None else Counter(replaced[_atom(node)])
    if isinstance(node, ast.Name):
        if node.id in names:
            return _polynomial(names[node.id], names, replaced, depth + 1)
        return Counter({(node.id,): 1})
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _polynomial(node.operand, names, replaced, depth + 1)
        return None if inner is None else Counter({k: -v for k, v in inner.items()})
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left = _polynomial(node.left, names, replaced, depth + 1)
        right = _polynomial(node.right, names, replaced, depth + 1)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Mult):
            product: Polynomial = Counter()
            for a, x in left.items():
                for b, y in right.items():
                    product[tuple(sorted(a + b))] += x * y
            return product
        result = Counter(left)
        for key, value in right.items():
            result[key] += value if isinstance(node.op, ast.Add) else -value
        return result
    if isinstance(node, (ast.BinOp, ast.Subscript, ast.Attribute, ast.Call)) and not any(
        _atom(n) in replaced for n in walk(node)
    ):
        return Counter({(_atom(node),): 1})  # opaque, and not made of the tested size
    return None


def _atom(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else ast.dump(node, include_attributes=False)
