"""ONX531: a tensor and a Python bool in arithmetic (`can_bus * self.use_can_bus`) or compared
(`mask == MASK_FALSE`), which the legacy exporter cannot record.

BEVFormer's and MapTR's BEV encoders add `can_bus * self.use_can_bus`, a config flag. The legacy
tracer records `aten::mul(Tensor, bool)`, an overload TorchScript has no schema for, and the export
fails in alias analysis ("We don't have an op for aten::mul but it isn't a special case. Argument
types: Tensor, bool"). `int(flag)` is the same number: the product of a tensor that is not bool
and 1 or 0 is the same values and dtype (a Python scalar promotes neither).
"""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.patterns.operators.mixed_arange import provably_float
from onnxfix.rewriter.bool_dtype import MASK_METHODS
from onnxfix.rewriter.config_numbers import is_config_bool, is_config_number
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.names import module_level_read
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc

# not `-`: torch refuses a bool in a subtraction (eager raises too)
_OPERATORS = {ast.Mult: "*", ast.Add: "+", ast.Div: "/", ast.Pow: "**"}
_NOT_BOOL = frozenset({"float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64"})


def python_bool(node: ast.AST, ctx: FunctionContext) -> bool:
    """A bool literal, a bool of the model's configuration (`self.use_can_bus`), or a module's
    bool constant (mead's `MASK_FALSE = False`)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is bool
    name = module_level_read(node, ctx)
    if name is not None:
        return ctx.file.module.constant_bool(name) is not None
    return is_config_bool(node, ctx)


def _as_number(flag: ast.AST, ctx: FunctionContext) -> str:
    """The int a bool stands for: `1` for `True`, `int(MASK_FALSE)`, `int(self.flag)`."""
    return str(int(flag.value)) if isinstance(flag, ast.Constant) else f"int({ctx.segment(flag)})"


_BITWISE = (ast.BitOr, ast.BitAnd, ast.BitXor)


def _number_comparison(node: ast.AST, ctx: FunctionContext) -> bool:
    """`low == 0` with both sides known numbers (literals, the configuration's numbers, ints, or what a
    recorded run saw): a Python bool."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return False
    return all(_known_number(side, ctx) for side in (node.left, node.comparators[0]))


def _known_number(node: ast.AST, ctx: FunctionContext) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    observed = ctx.observed(node)
    if observed and all(v.kind in ("int", "float") for v in observed):
        return True
    return ctx.ints.is_int(node) or is_config_number(node, ctx)


def _maybe_tensor(node: ast.AST, ctx: FunctionContext) -> bool:
    """A tensor, or what may be one (a module's output the inference cannot type); not a Python
    number (a literal, an int the inference knows, a number of the configuration), whose
    arithmetic with a bool is Python's own."""
    known = ctx.tensors.is_tensor(node)
    if known is not None:
        return known
    return not (isinstance(node, ast.Constant) or ctx.ints.is_int(node) or is_config_number(node, ctx)
                or python_bool(node, ctx) or provably_float(node, ctx) or _annotated_number(node, ctx))


def _used_as_mask(node: ast.AST, ctx: FunctionContext) -> bool:
    """`x.masked_fill(mask == False, v)`, `torch.where(mask == False, a, b)`: the mask argument."""
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.Call) and parent.args and parent.args[0] is node):
        return False
    func = parent.func
    return (ctx.qualname(func) == "torch.where"
            or isinstance(func, ast.Attribute) and ctx.qualname(func) is None and func.attr in MASK_METHODS)


def _annotated_number(node: ast.AST, ctx: FunctionContext) -> bool:
    """A parameter annotated `float`, `int` or `bool`."""
    return isinstance(node, ast.Name) and ctx.annotation(node.id) in ("float", "int", "bool")


class BoolScalarOperand(Rule):
    code = "ONX531"
    name = "bool-scalar-operand"
    summary = ("A tensor times (plus, over, to the power of) or compared with a Python bool: the legacy exporter has no "
               "`aten::mul(Tensor, bool)` or `aten::eq(Tensor, bool)`; also a tensor filled with a bool (`torch.full(size, True, ...)`)")
    fix_availability = "sometimes"
    default_safety = "per-finding"
    exporters = (LEGACY,)  # torch.export takes the bool (measured: tests/export_models/bool_flag_mul.py)
    doc = RuleDoc(
        what="Finds `t * flag`, `flag * t`, `t + flag`, `t / flag`, `t ** flag` where `t` is a tensor and "
        "`flag` a bool literal or a bool of the model's configuration (`self.use_can_bus`, set in "
        "`__init__` from a parameter with a bool default that every construction passes as a literal; "
        "a class the file derives from, calls as `cls(...)` or names other than in a call is not read). "
        "Not `t - flag`: torch refuses a bool in a subtraction, in eager too. Also `t == flag` and `t != flag` "
        "(`t.eq(flag)`, `torch.ne(t, flag)`), the flag also a module's bool constant (mead's `MASK_FALSE = "
        "False`), where `t` is known to be a tensor or the comparison is the mask of `masked_fill` / "
        "`torch.where` (a Python value compared with a bool is Python's own). And a tensor filled with a bool: "
        "`torch.full(size, True, dtype=...)`, `x.new_full(size, False)`, `torch.full_like(x, True)`. And a bool "
        "in `|`, `&` or `^` with a tensor, the bool also a comparison of known numbers (`(low == 0) | (t > low)` "
        "with `low` a number of the configuration, or one a recorded run saw).",
        why="The legacy tracer records the op with a bool scalar (`aten::mul(Tensor, bool)`), which "
        "TorchScript has no schema for: the export fails with \"INTERNAL ASSERT FAILED ... We don't have "
        "an op for aten::mul but it isn't a special case. Argument types: Tensor, bool\" (BEVFormer, "
        "MapTR; measured on torch 2.13); `mask == False` the same for `aten::eq` (mead-baseline's attention "
        "masks). The dynamo exporter exports both.",
        example="def forward(self, q, can_bus: torch.Tensor):\n    return q + can_bus * True  # a flag from the config",
        use_instead="def forward(self, q, can_bus: torch.Tensor):\n    return q + can_bus * 1  # a flag from the config",
        fix_safety="`int(flag)` is 1 or 0, the number the bool stands for: for a tensor that is not bool "
        "the result is the same values and dtype (a Python scalar promotes neither). Safe where a "
        "recorded run saw the tensor with a dtype that is not bool; otherwise unsafe, since a bool tensor "
        "times a bool stays bool and times an int becomes int64. `onnxfix export --fix` runs the same "
        "substitution at export time without an edit (`bool_scalars_as_ints`). A comparison with 1 or 0 "
        "is always safe: `==` / `!=` give the same bools for a tensor of any dtype (a bool tensor's True "
        "equals 1). A fill with 1 or 0 is safe: the dtype is the call's (`dtype=`, or the tensor's for "
        "`new_full` / `full_like`; `dtype=torch.bool` is added where only the bool fill chose it), and "
        "1 / 0 in it are the values True / False are. A bool in a bitwise operator becomes `torch.tensor(flag)`, "
        "a 0-d bool tensor: safe, the same values and dtype (bool is the lowest type category, so the other "
        "tensor's dtype decides with the Python bool and with the 0-d tensor alike).",
        references=("https://github.com/fundamentalvision/BEVFormer",),
    )

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        if isinstance(node.op, _BITWISE):
            yield from self._bitwise(node, ctx)
            return
        symbol = _OPERATORS.get(type(node.op))
        if symbol is None:
            return
        for flag, tensor in ((node.right, node.left), (node.left, node.right)):
            if python_bool(flag, ctx) and _maybe_tensor(tensor, ctx):
                safe = ctx.tensors.dtype(tensor) in _NOT_BOOL
                number = _as_number(flag, ctx)
                fix = Fix("Pass the flag as the int it equals", (ctx.replace(flag, number),),
                          safe=safe) if ctx.is_builtin("int") else None
                note = "" if safe else " (unsafe: the tensor is not known to be other than bool; a bool tensor times an int is int64)"
                yield ctx.report(self, node, f"`{ctx.segment(node)}`: a tensor and a Python "
                                 "bool, which the legacy exporter records as an op TorchScript has no schema for; "
                                 f"`{number}` is the same number{note}", fix=fix)
                return

    def _bitwise(self, node: ast.BinOp, ctx: FunctionContext):
        """`(low == 0) | (t > low)` (joliGEN's CFG interval, `low` a number of the config): a Python bool
        and a tensor in `|`, `&` or `^`. `torch.tensor(flag)`, a 0-d bool tensor, gives the same values
        and dtype (a bool is the lowest type category: the other tensor's dtype decides either way)."""
        for flag, tensor in ((node.left, node.right), (node.right, node.left)):
            if (python_bool(flag, ctx) or _number_comparison(flag, ctx)) and _maybe_tensor(tensor, ctx) \
                    and not _number_comparison(tensor, ctx):  # `(n == 16) & (w == h)` of sizes: Python's own
                torch_name, imports = ctx.torch_name()
                fix = Fix("Make the flag a 0-d bool tensor", (ctx.replace(flag, f"{torch_name}.tensor({ctx.segment(flag)})"),),
                          safe=True, imports=imports)
                yield ctx.report(self, node, f"`{ctx.segment(node)}`: a Python bool and a tensor in a bitwise "
                                 "operator, which the legacy exporter records as an op TorchScript has no schema for "
                                 f"(`aten::bitwise_or(Tensor, bool)`); `torch.tensor(...)` of the flag computes the same",
                                 fix=fix)
                return

    def visit_Compare(self, node: ast.Compare, ctx: FunctionContext):
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            return
        yield from self._compared(node, node.left, node.comparators[0], ctx)

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        filled = _bool_fill(node, ctx)
        if filled is not None:
            yield self._bool_fill(node, *filled, ctx)
            return
        # `mask.eq(False)`, `torch.ne(mask, True)`: the same comparison spelled as a call
        func = node.func
        if node.keywords or not isinstance(func, ast.Attribute) or func.attr not in ("eq", "ne"):
            return
        if ctx.qualname(func) in ("torch.eq", "torch.ne") and len(node.args) == 2:
            yield from self._compared(node, node.args[0], node.args[1], ctx)
        elif ctx.qualname(func) is None and len(node.args) == 1:
            yield from self._compared(node, func.value, node.args[0], ctx)

    def _bool_fill(self, node: ast.Call, flag: ast.AST, typed: bool, ctx: FunctionContext):
        """`torch.full(size, True, dtype=mask.dtype)` (OpenVLA's patch attention mask): the same
        tensor filled with the int the flag equals, in the dtype the call gives (`dtype=torch.bool`
        added where only the bool fill chose it)."""
        number = _as_number(flag, ctx)
        edits, imports = [ctx.replace(flag, number)], ()
        if not typed:  # after the last argument (a trailing comma stays after it)
            torch, imports = ctx.torch_name()
            last = max([*node.args, *(k.value for k in node.keywords)], key=lambda a: (a.end_lineno, a.end_col_offset))
            end = ctx.file.source.span(last)[1]
            edits.append(Edit(end, end, f", dtype={torch}.bool"))
        fix = Fix("Fill with the int the flag equals (same values and dtype)", tuple(edits), safe=True,
                  imports=imports) if ctx.is_builtin("int") or isinstance(flag, ast.Constant) else None
        return ctx.report(self, node, f"`{ctx.segment(node)}`: a tensor filled with a Python bool, which the "
                          "legacy exporter records as an op TorchScript has no schema for (`aten::full` with a "
                          f"bool); `{number}` fills the same values in the same dtype", fix=fix)

    def _compared(self, node: ast.AST, left: ast.AST, right: ast.AST, ctx: FunctionContext):
        # a Python value compared with a bool (`if self.training == False:`) is Python's own: only
        # a known tensor, or a comparison used as a mask, which only a tensor's comparison can be
        for flag, tensor in ((right, left), (left, right)):
            if python_bool(flag, ctx) and (ctx.tensors.is_tensor(tensor) or _used_as_mask(node, ctx)):
                number = _as_number(flag, ctx)
                fix = Fix("Compare with the int the flag equals", (ctx.replace(flag, number),),
                          safe=True) if ctx.is_builtin("int") or isinstance(flag, ast.Constant) else None
                yield ctx.report(self, node, f"`{ctx.segment(node)}`: a tensor compared with a Python bool, "
                                 "which the legacy exporter records as an op TorchScript has no schema for; "
                                 f"`{number}` compares the same", fix=fix)
                return


RULES = [BoolScalarOperand]


# the fill value's position, and whether the dtype comes from a tensor when none is given
_FILLS = {"torch.full": (1, False), "torch.full_like": (1, True)}


def _bool_fill(node: ast.Call, ctx: FunctionContext) -> tuple[ast.AST, bool] | None:
    """(the bool fill, whether the result's dtype is given without it) of `torch.full(size, True,
    ...)`, `torch.full_like(x, True)` or `x.new_full(size, True)`: an explicit dtype, or the
    tensor's (full_like, new_full); else the bool fill makes a bool tensor."""
    qualname = ctx.qualname(node.func)
    if qualname in _FILLS:
        position, from_tensor = _FILLS[qualname]
    elif qualname is None and isinstance(node.func, ast.Attribute) and node.func.attr == "new_full" and \
            ctx.tensors.is_tensor(node.func.value):
        position, from_tensor = 1, True
    else:
        return None
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    flag = node.args[position] if len(node.args) > position else next(
        (k.value for k in node.keywords if k.arg == "fill_value"), None)
    if flag is None or not python_bool(flag, ctx):
        return None
    typed = from_tensor or any(k.arg == "dtype" for k in node.keywords) or len(node.args) > position + 1
    return flag, typed
