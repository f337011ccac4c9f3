"""Is this expression a Python int (or a non-negative one)? ``IntegerOracle`` answers for the
fixes whose exactness depends on it (floor division, modulo, ``math`` calls on sizes), with the
small constant and assignment helpers sizes.py shares.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable

from onnxfix.rewriter.evidence import all_int_sequences, all_ints
from onnxfix.rewriter.names import module_level_read
from onnxfix.rewriter.returned import all_returned, target_position
from onnxfix.rewriter.tree_walk import walk

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

def int_constant(node: ast.AST) -> int | None:
    """The value of an integer literal, signed or not (`3`, `-1`; not a bool); None otherwise."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = int_constant(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def is_number(node: ast.AST) -> bool:
    """A numeric literal, signed or not (not a bool)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


# Calls on a tensor that return a Python int, and builtins that return one from ints.
INT_METHODS = frozenset({"dim", "numel", "ndimension", "nelement"})
INT_MATH = frozenset({"math.ceil", "math.floor", "math.prod", "math.isqrt"})
# onnxfix's own size helpers (ONX203's, ONX402's, ONX403's fixes), read as the call each replaces:
# name -> its arity and the index of its first value argument (before it: the caller's function,
# max's flag). `_onnx_sym_int(x)` is `int(x)`, `_onnx_size_round(math.ceil, x)` `math.ceil(x)`,
# `_onnx_size_sqrt(math.sqrt, d)` `math.sqrt(d)`, `_onnx_size_extreme(True, a, b)` `max(a, b)`.
OWN_SIZE_HELPERS = {"_onnx_sym_int": (1, 0), "_onnx_size_round": (2, 1), "_onnx_size_sqrt": (2, 1),
                    "_onnx_size_extreme": (None, 1)}


def own_size_helper(node: ast.Call) -> str | None:
    """The name of the onnxfix size helper ``node`` calls with its arity; None for other calls."""
    name = node.func.id if isinstance(node.func, ast.Name) else None
    if name not in OWN_SIZE_HELPERS:
        return None
    arity, start = OWN_SIZE_HELPERS[name]
    return name if (len(node.args) == arity if arity else len(node.args) > start + 1) else None


INT_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
NONNEGATIVE_OPERATORS = (ast.Add, ast.Mult, ast.FloorDiv, ast.Mod)


class IntegerOracle:
    """Is a size expression a Python *int* (not a float), and is it known to be >= 0?

    Exact rewrites of Python math depend on both: ``math.ceil(a / b) == (a + b - 1) // b``
    needs integer ``a`` and ``b > 0``; ``math.sqrt(d) == d ** 0.5`` needs ``d >= 0`` (a
    negative base gives a complex number). Answers True only on evidence: tensor sizes, ``len``,
    integer constants and integer arithmetic of those, items of config sequences, what every
    return of a certain callee of the file gives (returned.py), and names only ever assigned such.
    ``at_least_zero`` asks less: >= 0, an int or a number not known to be a float."""

    def __init__(self, ctx: "FunctionContext"):
        self.ctx = ctx
        self._names: dict[tuple[str, str], bool] = {}

    def is_int(self, node: ast.AST) -> bool:
        return self._check(node, "int")

    def is_nonnegative_int(self, node: ast.AST) -> bool:
        return self._check(node, "nonneg")

    def _check(self, node: ast.AST, kind: str) -> bool:
        nonneg = kind == "nonneg"
        if isinstance(node, ast.Constant):
            return type(node.value) is int and (node.value >= 0 or not nonneg)
        if isinstance(node, ast.Attribute):  # a rank, or an int of the model's configuration
            return node.attr == "ndim" or (kind == "int" and self.ctx.is_config_int(node))
        if isinstance(node, ast.Subscript):
            return not isinstance(node.slice, ast.Slice) and (
                _is_shape(node.value) or is_whole_shape(node.value) or self._shape_name(node.value)
                or (kind == "int" and (self._int_sequence_item(node) or self.ctx.is_config_int(node)))
                or (nonneg and self.ctx.is_config_int(node, nonneg=True)))
        if isinstance(node, ast.Call):
            return self._call(node, kind)
        if isinstance(node, ast.BinOp):
            return self._binop(node, kind)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return not nonneg and self._check(node.operand, kind)
        if isinstance(node, ast.Name) and self.ctx.inner_scope(node) is not None:
            # a lambda's parameter or a comprehension's variable is not the function's name: an
            # item of a shape (`[int(t) for t in x.size()[1:]]`) or what the run saw
            return self.ctx.shape_element(node.id) or (kind == "int" and all_ints(self.ctx.observed(node)))
        if isinstance(node, ast.Name) and (constant := self.module_constant(node)) is not None:
            return constant >= 0 or not nonneg
        if isinstance(node, ast.Name):
            # run-time evidence proves the type only: an int, never its sign (a guard may)
            if self._name(node.id, kind):
                return True
            an_int = self._name(node.id, "int") or all_ints(self.ctx.observed(node))
            return an_int and (kind == "int" or self._guarded_positive(node))
        return False

    def at_least_zero(self, node: ast.AST) -> bool:
        """>= 0, an int or a number not known to be a float: a non-negative int, `max(..., <int >= 0>)`
        (mmcv's pad amounts, `max((out - 1) * stride + k - size, 0)`, of config numbers the oracle
        cannot type; not where a float literal, a true division or a float config number enters,
        whose `0.0` the caller could not use as an int), a name bound once to one, or the item every
        return of the function it is unpacked from gives it."""
        key = ("at least 0", id(node))
        if key not in self.ctx.cache:
            self.ctx.cache[key] = False  # while answered: a name defined through itself proves nothing
            self.ctx.cache[key] = self._at_least_zero(node)
        return self.ctx.cache[key]

    def _at_least_zero(self, node: ast.AST) -> bool:
        if self.is_nonnegative_int(node):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "max" \
                and self._is_builtin("max") and not node.keywords:
            return not any(self._may_be_float(a) for a in node.args) and any(self.at_least_zero(a) for a in node.args)
        if isinstance(node, ast.Call) and own_size_helper(node) == "_onnx_size_extreme" and node.args \
                and isinstance(node.args[0], ast.Constant) and node.args[0].value is True:  # ONX403's max()
            return not any(self._may_be_float(a) for a in node.args[1:]) and any(
                self.at_least_zero(a) for a in node.args[1:])
        if isinstance(node, ast.Call):
            return all_returned(self.ctx, node, None, "at least 0", lambda callee, item: callee.ints.at_least_zero(item))
        if not isinstance(node, ast.Name) or self.ctx.is_parameter(node.id) or self.ctx.inner_scope(node) is not None:
            return False
        values = self.ctx.assignments(node.id)
        if len(values) != 1:
            return False
        value = values[0]
        if not isinstance(value, ast.Assign):
            return isinstance(value, ast.expr) and self.at_least_zero(value)
        unpacked = target_position(value, node.id)
        return unpacked is not None and all_returned(
            self.ctx, value.value, unpacked, "at least 0", lambda callee, item: callee.ints.at_least_zero(item))

    def _may_be_float(self, node: ast.AST) -> bool:
        """A float literal, a true division, `float()` or a config number that is no int in it
        (not inside a call returning an int: `math.ceil(h / s)`, `int(...)`, `len(...)`)."""
        if isinstance(node, ast.Call) and (self.ctx.qualname(node.func) in INT_MATH or (
                isinstance(node.func, ast.Name) and node.func.id in ("int", "len", "round") and self._is_builtin(node.func.id))):
            return False
        if isinstance(node, ast.Constant) and type(node.value) is float:
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float":
            return True
        if self.ctx.is_self_attr(node) and self.ctx.is_config_number(node) and not self.ctx.is_config_int(node):
            return True
        return any(self._may_be_float(child) for child in ast.iter_child_nodes(node))

    def module_constant(self, node: ast.AST) -> int | None:
        """The int of a module-level constant (`SEQ_MULTI_OF = 32`) that the function reads."""
        name = module_level_read(node, self.ctx)
        return None if name is None else self.ctx.file.module.constant_int(name)

    def _guarded_positive(self, node: ast.Name) -> bool:
        """Read inside `if n > 0:` (or `n >= 1`), n the name itself (never rebound) or a name
        never assigned that it is bound to once (`stride = size_divisibility` under
        `if size_divisibility > 0:`, size_divisibility a parameter)."""
        if self.ctx.inner_scope(node) is not None:
            return False  # a lambda's parameter or a comprehension's variable: not the name tested
        names = {node.id}
        values = self.ctx.assignments(node.id)
        if len(values) == 1 and isinstance(values[0], ast.Name):
            names.add(values[0].id)
        elif values:
            return False  # rebound: the value read may not be the one tested
        for parent in self.ctx.enclosing(node):
            if (isinstance(parent, ast.If) and _positive_test(parent.test, names) and _in_body(node, parent)
                    and not any(self.ctx.assignments(name) for name in names - {node.id})
                    and not (node.id in _tested_names(parent.test) and self.ctx.assignments(node.id))):
                return True
        return False


    def _int_sequence_item(self, node: ast.Subscript) -> bool:
        """`max_size[-2]` where a recorded run saw `max_size` hold only tuples or lists of ints
        (the type only, never the sign)."""
        return (int_constant(node.slice) is not None and isinstance(node.value, ast.Name)
                and all_int_sequences(self.ctx.observed(node.value)))

    def _shape_name(self, node: ast.AST) -> bool:
        """`hw[0]` with `hw = x.shape[-2:]` bound once: an item of a torch.Size."""
        if not isinstance(node, ast.Name) or self.ctx.is_parameter(node.id):
            return False
        values = self.ctx.assignments(node.id)
        return len(values) == 1 and is_whole_shape(values[0])

    def _binop(self, node: ast.BinOp, kind: str) -> bool:
        divisor = int_constant(node.right) if int_constant(node.right) is not None else self.module_constant(node.right)
        if kind == "nonneg" and isinstance(node.op, ast.Mod) and (divisor or 0) > 0:
            return self._check(node.left, "int")  # Python's int % c is in [0, c) for c > 0: `(32 - h % 32) % 32`
        operators = NONNEGATIVE_OPERATORS if kind == "nonneg" else INT_OPERATORS
        if isinstance(node.op, operators):
            return self._check(node.left, kind) and self._check(node.right, kind)
        if isinstance(node.op, ast.Pow):  # int ** non-negative int constant
            exponent = node.right
            return (
                isinstance(exponent, ast.Constant) and type(exponent.value) is int and exponent.value >= 0
                and self._check(node.left, kind)
            )
        return False

    def _call(self, node: ast.Call, kind: str) -> bool:
        func = node.func
        if kind == "int" and self.ctx.qualname(func) in INT_MATH:  # math.ceil/floor return ints
            return True
        if all_returned(self.ctx, node, None, kind, lambda callee, item: callee.ints._check(item, kind)):
            return True  # n = self.amount(x), every return of it an int (>= 0)
        helper = own_size_helper(node)
        if helper in ("_onnx_sym_int", "_onnx_size_round"):
            return kind == "int" or self._nonnegative_number(node.args[-1])  # int(x), math.ceil(x) of x >= 0
        if helper == "_onnx_size_extreme":
            return self._extreme(isinstance(node.args[0], ast.Constant) and node.args[0].value is True,
                                 node.args[1:], kind)
        if self.ctx.qualname(func) == "torch.sym_int" and len(node.args) == 1:  # int() itself in eager
            return kind == "int" or self._nonnegative_number(node.args[0])
        if self.ctx.qualname(func) in ("math.ceil", "math.floor") and len(node.args) == 1 and not node.keywords:
            return self._nonnegative_number(node.args[0])  # of a quotient of ints >= 0: an int >= 0
        if isinstance(func, ast.Attribute):
            if func.attr == "size" and len(node.args) == 1 and not node.keywords:
                return True
            return func.attr in INT_METHODS and not node.args
        if isinstance(func, ast.Name) and self._is_builtin(func.id):
            if func.id == "len":
                return True
            if func.id == "int":  # int() of a size expression: sign kept, truncated
                return len(node.args) == 1 and (kind == "int" or self._nonnegative_number(node.args[0]))
            if func.id in ("max", "min") and len(node.args) >= 2:
                return self._extreme(func.id == "max", node.args, kind)
            if func.id == "abs" and len(node.args) == 1:
                return self.is_int(node.args[0])
        return False

    def _extreme(self, is_max: bool, arguments: list[ast.expr], kind: str) -> bool:
        """`max(...)` / `min(...)` of ints: an int; >= 0 when one argument is (max) or all are (min)."""
        checks = [self.is_int(a) for a in arguments]
        if kind == "nonneg":
            signs = [self.is_nonnegative_int(a) for a in arguments]
            return all(checks) and (any(signs) if is_max else all(signs))
        return all(checks)

    def _nonnegative_number(self, node: ast.AST) -> bool:
        """A non-negative int, or a true quotient of two (`h / scale`): what `int()` keeps >= 0."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return self.is_nonnegative_int(node.left) and self.is_nonnegative_int(node.right)
        return self.is_nonnegative_int(node)

    def _is_builtin(self, name: str) -> bool:
        return self.ctx.is_builtin(name)

    def _name(self, name: str, kind: str) -> bool:
        key = (name, kind)
        return held_assuming_cycles(self.ctx.file.cycles, self._names, key,
                                    lambda: self._name_bindings_hold(name, kind, key))

    def _name_bindings_hold(self, name: str, kind: str, key: tuple[str, str]) -> bool:
        values = self.ctx.assignments(name)
        if self.ctx.is_parameter(name):
            # every call site passes an int (a non-negative one for "nonneg"), every rebinding too
            # the annotation is the evidence only where the file does not show every call (its
            # call sites, when all known, speak for themselves: `crop(x, 2.5)` despite `c: int`)
            answer = self.ctx.across_calls(kind, name, lambda caller, arg: caller.ints._check(arg, kind)) or (
                kind == "int" and self.ctx.annotated_int(name) and not _contradicted(self.ctx, name))
            answer = answer and all(self._assigned(name, v, kind) for v in values)
        elif self.ctx.shape_element(name):  # an item of a torch.Size: an int >= 0
            answer = True
        else:
            answer = bindings_hold(name, values, lambda v: self._assigned(name, v, kind),
                                   lambda: self._names.__setitem__(key, True))
        return answer

    def _assigned(self, name: str, value: ast.AST, kind: str) -> bool:
        if isinstance(value, ast.Assign):  # b, s = x.shape[:2] / h, w = a, b
            element = unpacked_element(value, name)
            if element is not None:
                return self._check(element, kind)
            shape = is_whole_shape(value.value) or self.ctx.is_shape_sequence(value.value)  # h, w = size (a shape)
            if shape and not _is_starred_target(value, name):
                return True
            unpacked = target_position(value, name)
            return unpacked is not None and (_config_item(self.ctx, value.value, unpacked[0], kind) or all_returned(
                self.ctx, value.value, unpacked, kind, lambda callee, item: callee.ints._check(item, kind)))
        if isinstance(value, ast.stmt):
            return False
        return self._check(value, kind)


def _config_item(ctx: "FunctionContext", sequence: ast.expr, position: int, kind: str) -> bool:
    """`kernel_h, kernel_w = self.kernel_size`: the item is `self.kernel_size[position]`, a config
    int (a literal >= 0 for "nonneg")."""
    if not ctx.is_self_attr(sequence):
        return False
    item = ast.Subscript(value=sequence, slice=ast.Constant(position), ctx=ast.Load())
    return ctx.is_config_int(item, nonneg=kind == "nonneg")


def _contradicted(ctx: "FunctionContext", name: str) -> bool:
    """Some call in the file passes the parameter a value that is no int: a float or other
    literal, or a true division (`crop(x, 2.5)` despite `c: int`)."""
    return any(
        (isinstance(argument, ast.Constant) and type(argument.value) is not int)
        or (isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Div))
        for _, argument in ctx.parameter_bindings(name) or ()
    )


class CycleLedger:
    """The questions being answered across one file's oracles (a parameter's question goes to its
    callers' oracles), and the answers given, in order: when an assumed answer turns out False,
    every answer given since it was assumed, in any function's oracle, is dropped."""

    def __init__(self):
        self.pending: set = set()
        self.given: list[tuple[dict, object]] = []


def held_assuming_cycles(ledger: CycleLedger, answers: dict, key, check: Callable[[], bool]) -> bool:
    """``answers[key]``, computed by ``check`` once. A question met again while it is being
    answered (a cycle through other names: Swin's `H, W = Wh, Ww` ... `Wh = (H + 1) // 2`) is
    assumed to hold: every binding holding then proves it, each value the name takes at run time
    coming from a base binding through the same operations. When it does not hold, what was
    concluded meanwhile may rest on the assumption and is dropped (ledger: across functions)."""
    if key in answers:
        return answers[key]
    marker = (id(answers), key)
    if marker in ledger.pending:
        return True
    ledger.pending.add(marker)
    since = len(ledger.given)
    try:
        answer = check()
    finally:
        ledger.pending.discard(marker)
    if not answer:
        for concluded, stale in ledger.given[since:]:
            concluded.pop(stale, None)
        del ledger.given[since:]
    answers[key] = answer
    ledger.given.append((answers, key))
    return answer


def bindings_hold(name: str, values: list, holds: Callable[[ast.AST], bool], assume: Callable[[], None]) -> bool:
    """Every binding of ``name`` satisfies ``holds`` (an oracle's check). A rebinding through the
    name itself (mmedit's `b, c, h, w = x.shape` then `h = int(h / scale)`) reads an earlier
    binding: it is judged after ``assume`` records the name as holding, once the bindings that
    do not mention it hold."""
    rebinds = [v for v in values if _mentions(v, name)]
    base = [v for v in values if not _mentions(v, name)]
    if not base or not all(holds(v) for v in base):
        return False
    assume()
    return all(holds(v) for v in rebinds)


def _mentions(binding: ast.AST, name: str) -> bool:
    value = binding.value if isinstance(binding, (ast.Assign, ast.AugAssign)) else binding
    return isinstance(value, ast.AST) and any(isinstance(n, ast.Name) and n.id == name for n in walk(value))


def _is_shape(node: ast.AST) -> bool:
    """``x.shape`` or ``x.size()``: a torch.Size, whose items are non-negative ints."""
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
        and not node.args and not node.keywords
    )


def is_whole_shape(value: ast.AST) -> bool:
    """``x.shape``, ``x.size()``, ``x.shape[:2]``: a torch.Size (``b, c, h, w = x.shape``)."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        value = value.value
    return _is_shape(value)


def _is_starred_target(assign: ast.Assign, name: str) -> bool:
    """``b, *rest = x.shape``: ``rest`` is a list, not an int."""
    return any(
        isinstance(node, ast.Starred) and isinstance(node.value, ast.Name) and node.value.id == name
        for target in assign.targets
        for node in walk(target)
    )


def unpacked_element(assign: ast.Assign, name: str) -> ast.AST | None:
    """For ``h, w = a, b`` the expression assigned to ``name``; None if not element-wise."""
    if not isinstance(assign.value, (ast.Tuple, ast.List)):
        return None
    for target in assign.targets:
        if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(assign.value.elts):
            for element, value in zip(target.elts, assign.value.elts):
                if isinstance(element, ast.Name) and element.id == name:
                    return value
    return None


def _positive_test(test: ast.expr, names: set[str]) -> bool:
    """`n > 0` or `n >= 1` (n one of ``names``), alone or as a term of an `and`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_positive_test(value, names) for value in test.values)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and test.left.id in names):
        return False
    bound = int_constant(test.comparators[0])
    return bound is not None and (isinstance(test.ops[0], ast.Gt) and bound >= 0
                                  or isinstance(test.ops[0], ast.GtE) and bound >= 1)


def _tested_names(test: ast.expr) -> set[str]:
    return {n.id for n in walk(test) if isinstance(n, ast.Name)}


def _in_body(node: ast.AST, branch: ast.If) -> bool:
    """``node`` is in the `if`'s body, not its test or `else`."""
    return any(node is n for statement in branch.body for n in walk(statement))
