"""Operator precedence, so that a fix writing ``d ** 0.5`` for ``math.sqrt(d)`` never changes
how the surrounding expression groups (``math.sqrt(d) ** 2`` must become ``(d ** 0.5) ** 2``)."""

from __future__ import annotations

import ast

LAMBDA, IFEXP, OR, AND, NOT, COMPARE, BITOR, BITXOR, BITAND, SHIFT, ARITH, TERM, UNARY, POWER, AWAIT, ATOM = range(16)

BINARY = {
    ast.BitOr: BITOR, ast.BitXor: BITXOR, ast.BitAnd: BITAND, ast.LShift: SHIFT, ast.RShift: SHIFT,
    ast.Add: ARITH, ast.Sub: ARITH, ast.Mult: TERM, ast.Div: TERM, ast.FloorDiv: TERM,
    ast.Mod: TERM, ast.MatMult: TERM, ast.Pow: POWER,
}
# how each binary operator is written (a fix that rebuilds `a <op> b` from the tree)
SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
    ast.BitXor: "^", ast.MatMult: "@",
}
# the Tensor method each binary operator calls (`a << b` is `a.__lshift__(b)`: torch's op there)
METHODS = {op: f"__{name}__" for op, name in (
    (ast.Add, "add"), (ast.Sub, "sub"), (ast.Mult, "mul"), (ast.Div, "truediv"), (ast.FloorDiv, "floordiv"),
    (ast.Mod, "mod"), (ast.Pow, "pow"), (ast.LShift, "lshift"), (ast.RShift, "rshift"), (ast.BitAnd, "and"),
    (ast.BitOr, "or"), (ast.BitXor, "xor"), (ast.MatMult, "matmul"))}


def precedence(node: ast.AST) -> int:
    """How tightly an existing expression binds."""
    if isinstance(node, ast.BinOp):
        return BINARY[type(node.op)]
    if isinstance(node, ast.UnaryOp):
        return NOT if isinstance(node.op, ast.Not) else UNARY
    if isinstance(node, ast.BoolOp):
        return OR if isinstance(node.op, ast.Or) else AND
    if isinstance(node, ast.Compare):
        return COMPARE
    if isinstance(node, ast.IfExp):
        return IFEXP
    if isinstance(node, (ast.Lambda, ast.NamedExpr)):
        return LAMBDA
    if isinstance(node, ast.Await):
        return AWAIT
    return ATOM


def operand(text: str, node: ast.AST, minimum: int) -> str:
    """``text`` (the source of ``node``) parenthesized unless it binds at least ``minimum``."""
    return text if precedence(node) >= minimum else f"({text})"


def fits(parent: ast.AST | None, child: ast.AST, level: int) -> bool:
    """Can an expression binding at ``level`` stand where ``child`` stands in ``parent``
    without parentheses?"""
    if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is child:
        return level >= ATOM
    if isinstance(parent, ast.Call) and parent.func is child:
        return level >= ATOM
    if isinstance(parent, ast.BinOp):
        own = BINARY[type(parent.op)]
        if own == POWER:
            return level > POWER if parent.left is child else level >= UNARY
        return level > own or (level == own and parent.left is child)
    if isinstance(parent, ast.UnaryOp):
        return level >= (NOT if isinstance(parent.op, ast.Not) else UNARY)
    if isinstance(parent, ast.Compare):
        return level > COMPARE
    if isinstance(parent, ast.BoolOp):
        return level > precedence(parent)
    if isinstance(parent, ast.Await):
        return level >= ATOM
    if isinstance(parent, ast.IfExp):
        return level > IFEXP
    return True


def in_place_of(parent: ast.AST | None, child: ast.AST, text: str, level: int) -> str:
    """``text`` (binding at ``level``) ready to replace ``child``."""
    return text if fits(parent, child, level) else f"({text})"
