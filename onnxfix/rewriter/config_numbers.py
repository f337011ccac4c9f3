"""Is ``self.<attr>`` a number of the model's configuration? (``self.new_sr`` in julius's
``self.new_sr * length / self.old_sr``, ``self.patch_size`` in ``h // self.patch_size``.)

Size math mixes a traced size with such numbers: ``__init__`` computes them from its parameters
and literals, and nothing else writes them, so they are Python numbers while the model exports,
as a literal is. The answer is True only on that evidence: every assignment of the attribute is
in ``__init__`` and is a number expression there (literals, parameters annotated or defaulting
to a number, arithmetic and ``math.gcd``/``int``/``min``... of those, other such attributes).
A tensor, a module or a value ``forward`` rebinds is never one.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.attr_changes import REBOUND
from onnxfix.rewriter.integers import int_constant, is_number
from onnxfix.rewriter.tuple_helpers import repeated_length
from onnxfix.rewriter.tree_walk import walk

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext
    from onnxfix.rewriter.module_index import ClassInfo

NUMBER_BUILTINS = frozenset({"int", "float", "round", "min", "max", "abs"})
NUMBER_MATH = frozenset({"math.gcd", "math.ceil", "math.floor", "math.prod", "math.isqrt", "math.sqrt"})
NUMBER_ANNOTATIONS = frozenset({"int", "float"})


def is_config_number(node: ast.AST, ctx: "FunctionContext") -> bool:
    """``self.<attr>`` that only ``__init__`` assigns, each time a number expression."""
    if not ctx.is_self_attr(node):
        return False
    key = ("config number", node.attr)  # one walk of the class per attribute and function
    if key not in ctx.cache:
        ctx.cache[key] = _attribute_number(ctx.fn.cls, node.attr, ctx, depth=0)
    return ctx.cache[key]


def is_config_int(node: ast.AST, ctx: "FunctionContext", nonneg: bool = False) -> bool:
    """A configuration number that is an int: ``__init__`` computes it with int literals, parameters
    annotated ``int`` or defaulting to an int, and integer arithmetic (``self.attn_num_splits``);
    or any item of a sequence or dict of such ints (``self.feature_strides[idx]``)."""
    if isinstance(node, ast.Subscript) and ctx.is_self_attr(node.value) and int_constant(node.slice) is not None \
            and not nonneg:
        return _attribute_item_int(node.value.attr, int_constant(node.slice), ctx)
    if isinstance(node, ast.Subscript) and ctx.is_self_attr(node.value) and not isinstance(node.slice, ast.Slice):
        key = ("config int items", node.value.attr, nonneg)
        if key not in ctx.cache:
            ctx.cache[key] = ctx.fn.cls is not None and _all_items_int(ctx.fn.cls, node.value.attr, ctx, 0, nonneg)
        return ctx.cache[key]
    if nonneg:
        return False
    if not ctx.is_self_attr(node):
        return False
    key = ("config int", node.attr)
    if key not in ctx.cache:
        ctx.cache[key] = _attribute_number(ctx.fn.cls, node.attr, ctx, depth=0, ints=True)
    return ctx.cache[key]


def _attribute_number(cls: "ClassInfo", attr: str, ctx: "FunctionContext", depth: int, ints: bool = False) -> bool:
    init = cls.methods.get("__init__")
    if init is None or depth > 4 or not init.args.args:
        return False
    values = _init_values(init, attr)
    if not values or REBOUND in ctx.file.module.changes_of(attr):
        return False
    checker = _InitNumbers(init, cls, ctx, depth, ints)
    return all(checker.number(v) for v in values)


def _attribute_item_int(attr: str, index: int, ctx: "FunctionContext") -> bool:
    """`self.patch_size[1]` where ``__init__`` sets `self.patch_size` to a tuple of config ints,
    directly or through the parameter made a pair (`patch_size = (patch_size, patch_size)`)."""
    key = ("config int item", attr, index)
    if key not in ctx.cache:
        init = ctx.fn.cls.methods.get("__init__") if ctx.fn.cls else None
        values = _init_values(init, attr) if init is not None and init.args.args else []
        checker = _InitNumbers(init, ctx.fn.cls, ctx, 0, ints=True) if values else None
        ctx.cache[key] = bool(values) and REBOUND not in ctx.file.module.changes_of(attr) and all(
            checker.item_number(v, index) for v in values)
    return ctx.cache[key]


def _all_items_int(cls: "ClassInfo", attr: str, ctx: "FunctionContext", depth: int, nonneg: bool = False) -> bool:
    """Every item of ``self.<attr>`` (a list, tuple or dict literal, a comprehension of such
    items, each value ``__init__`` assigns) is a config int, and no other method changes it:
    DNTextSpotter's `self.feature_strides = [self.backbone.strides[f] for f in (...)]` with the
    backbone's `self.strides = {"res4": 8, "res5": 16}`. ``nonneg``: every item a literal >= 0."""
    init = cls.methods.get("__init__")
    # any change the file makes to `<x>.<attr>` (appended to, an item stored, aliased, setattr,
    # also in __init__ after the literal) and its items are not proven
    if init is None or depth > 3 or not init.args.args or ctx.file.module.changes_of(attr):
        return False
    if len([n for n in walk(init) if isinstance(n, ast.Attribute) and n.attr == attr
            and isinstance(n.ctx, ast.Store)]) != 1:
        return False  # bound twice in __init__ (`self.strides = [...]; if c: self.strides = ...`)
    values = _init_values(init, attr)
    checker = _InitNumbers(init, cls, ctx, depth, ints=True)
    return bool(values) and all(checker.all_items(v, nonneg) for v in values)


INT_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
INT_BUILTINS = frozenset({"int", "min", "max", "abs"})
INT_MATH = frozenset({"math.gcd", "math.ceil", "math.floor", "math.prod", "math.isqrt"})


def _init_values(init: ast.FunctionDef, attr: str) -> list[ast.expr]:
    """The values ``__init__`` assigns to ``self.<attr>`` (None for an augmented assignment or an
    unpacking, which are not judged; a tuple assigned to a tuple, `self.a, self.b = a, b`, pairs up)."""
    self_name = init.args.args[0].arg
    values = []
    for node in walk(init):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            if _is_attr(target, self_name, attr):
                values.append(node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None)
            elif isinstance(target, (ast.Tuple, ast.List)) and any(_is_attr(t, self_name, attr) for t in target.elts):
                values.append(_paired_value(target, node.value, self_name, attr))
    return values


def _paired_value(target: ast.Tuple | ast.List, value: ast.AST, self_name: str, attr: str) -> ast.expr | None:
    """`self.low, self.high = low, high`: the value in the position of ``self.<attr>`` when both sides
    are tuples (or lists) of one length without starred items; None otherwise (not judged)."""
    if not (isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)):
        return None
    if any(isinstance(e, ast.Starred) for e in [*target.elts, *value.elts]):
        return None
    return next(v for t, v in zip(target.elts, value.elts) if _is_attr(t, self_name, attr))


def _is_attr(node: ast.AST, self_name: str, attr: str) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name)
            and node.value.id == self_name)


class _InitNumbers:
    """Number expressions of one ``__init__``."""

    def __init__(self, init: ast.FunctionDef, cls: "ClassInfo", ctx: "FunctionContext", depth: int, ints: bool = False):
        self.ints = ints  # int expressions only (is_config_int)
        self.init = init
        self.cls = cls
        self.ctx = ctx
        self.depth = depth
        self.self_name = init.args.args[0].arg
        self.parameters = {a.arg: a for a in init.args.posonlyargs + init.args.args + init.args.kwonlyargs}
        self.defaults = parameter_defaults(init)
        self._locals: dict[str, bool] = {}

    def number(self, node: ast.AST | None) -> bool:
        if node is None:
            return False
        if is_number(node):
            return not self.ints or int_constant(node) is not None
        if isinstance(node, ast.BinOp):
            if self.ints and not isinstance(node.op, INT_OPERATORS):
                return False
            return self.number(node.left) and self.number(node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.number(node.operand)
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self.self_name:
            return _attribute_number(self.cls, node.attr, self.ctx, self.depth + 1, self.ints)
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice) and isinstance(node.value, ast.Attribute):
            return self.ints and self.all_items(node.value)  # `self.backbone.strides[f]`: any item
        if isinstance(node, ast.Call) and not node.keywords and node.args:
            func = node.func
            builtins, math = (INT_BUILTINS, INT_MATH) if self.ints else (NUMBER_BUILTINS, NUMBER_MATH)
            known = (isinstance(func, ast.Name) and func.id in builtins
                     and self.ctx.file.module.scope.lookup(func.id) is None) or (
                self.ctx.file.module.scope.qualname(func) in math)
            # int(x) is an int whatever x is: a number is enough
            if self.ints and isinstance(func, ast.Name) and func.id == "int" and known:
                return all(_InitNumbers(self.init, self.cls, self.ctx, self.depth).number(a) for a in node.args)
            return known and all(self.number(a) for a in node.args)
        return False

    def all_items(self, value: ast.AST | None, nonneg: bool = False) -> bool:
        """Every item of a list, tuple or set literal, every value of a dict literal, the element
        of a one-generator comprehension (its variable used only as an index), or every item of
        another config attribute, of this class or of a submodule built in this file; each a
        number (``nonneg``: an int literal >= 0, or an item of such a container)."""
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            return bool(value.elts) and all(self._item(e, nonneg) for e in value.elts)
        if isinstance(value, ast.Dict):
            return bool(value.values) and None not in value.keys and all(self._item(v, nonneg) for v in value.values)
        if isinstance(value, (ast.ListComp, ast.GeneratorExp)) and len(value.generators) == 1:
            return self._item(value.elt, nonneg)
        if isinstance(value, ast.Attribute):
            owner = self._owner_class(value.value)
            return owner is not None and _all_items_int(owner, value.attr, self.ctx, self.depth + 1, nonneg)
        return False

    def _item(self, node: ast.AST, nonneg: bool) -> bool:
        if not nonneg:
            return self.number(node)
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            return self.all_items(node.value, nonneg=True)
        constant = int_constant(node)
        return constant is not None and constant >= 0

    def _owner_class(self, node: ast.AST) -> "ClassInfo | None":
        """``self`` -> this class; ``self.<sub>`` built once in ``__init__`` as ``Cls(...)`` of a
        class of this file -> that class."""
        if isinstance(node, ast.Name) and node.id == self.self_name:
            return self.cls
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self.self_name:
            values = _init_values(self.init, node.attr)
            if len(values) == 1 and isinstance(values[0], ast.Call) and isinstance(values[0].func, ast.Name) \
                    and self.ctx.file.module.bound_once(values[0].func.id):
                return self.ctx.file.module.classes.get(values[0].func.id)
        return None

    def item_number(self, value: ast.AST | None, index: int) -> bool:
        """Item ``index`` of a tuple or list literal is a number; a parameter rebound once to
        such a literal of itself (timm's `patch_size = (patch_size, patch_size)`) is read as
        that literal, its items as the parameter's given value."""
        pair_of = None
        if isinstance(value, ast.Name) and value.id in self.parameters:
            rebinds = [n for n in walk(self.init) if isinstance(n, ast.Assign) and len(n.targets) == 1
                       and isinstance(n.targets[0], ast.Name) and n.targets[0].id == value.id]
            stores = sum(1 for n in walk(self.init) if isinstance(n, ast.Name) and n.id == value.id
                         and isinstance(n.ctx, ast.Store))
            if len(rebinds) != 1 or stores != 1:
                return False
            pair_of, value = value.id, rebinds[0].value
        repeated = repeated_length(value, self.ctx.file.module, self.init)
        if repeated is not None:  # `to_3tuple(patch_size)`: a number repeated, a sequence passed on
            if not -repeated <= index < repeated:
                return False
            item = value.args[0]
            if isinstance(item, ast.Name) and item.id in self.parameters and item.id != pair_of:
                return not _rebound(self.init, item.id) and self._given_item(item.id, index)
            if isinstance(item, ast.Name) and item.id == pair_of:
                return self._given_item(pair_of, index)
        elif not (isinstance(value, (ast.Tuple, ast.List)) and -len(value.elts) <= index < len(value.elts)
                  and not any(isinstance(e, ast.Starred) for e in value.elts)):  # `[*base, 4]` shifts the items
            return False
        else:
            item = value.elts[index]
        if isinstance(item, ast.Name) and item.id == pair_of:  # the parameter's value before the rebinding
            default = self.defaults.get(pair_of)
            return int_constant(default) is not None and self._constructed_with_ints(pair_of)
        return self.number(item)

    def _given_item(self, name: str, index: int) -> bool:
        """Parameter ``name``'s value through a repeat helper: an int, or a sequence whose item
        ``index`` is an int literal, by default and in every construction of the class."""
        return _int_or_item(self.defaults.get(name), index) and self._constructed_with_ints(name, index)

    def _constructed_with_ints(self, name: str, index: int | None = None) -> bool:
        """Every `Cls(...)` in the file passes an int literal for ``name``, or nothing (with
        ``index``: or a sequence literal whose item ``index`` is one)."""
        passed = _passed_arguments(self.init, self.cls, name, self.ctx)
        return passed is not None and all(
            (_int_or_item(g, index) if index is not None else int_constant(g) is not None)
            or self._passed_on(call, g, index) for call, g in passed)

    def _passed_on(self, call: ast.Call, given: ast.expr, index: int | None = None) -> bool:
        """`Head(patch_size=patch_size)` in another class's `__init__` whose own `patch_size` is a
        config int there (an int default, not rebound, constructed with ints): the same int."""
        if not isinstance(given, ast.Name) or self.depth > 3:
            return False
        for cls in self.ctx.file.module.classes.values():
            init = cls.methods.get("__init__")
            if init is None or cls is self.cls or not init.args.args or not _within(call, init):
                continue
            outer = _InitNumbers(init, cls, self.ctx, self.depth + 1, ints=True)
            if given.id not in outer.parameters:  # a local there: ints where bound (a loop over a literal config)
                return index is None and outer._name(given.id)
            if index is not None and not _rebound(init, given.id) and outer._given_item(given.id, index):
                return True  # nnFormer's `patch_size=[2, 4, 4]` handed on to a `to_3tuple`
            return outer._name(given.id)
        return False

    def _name(self, name: str) -> bool:
        if name in self.parameters:
            if _rebound(self.init, name):
                return False
            annotation = self.parameters[name].annotation
            if annotation is not None:
                if self.ints:  # annotated int, and no construction in the file passing something else
                    return isinstance(annotation, ast.Name) and annotation.id == "int" and self._constructed_with_ints(name)
                return isinstance(annotation, ast.Name) and annotation.id in NUMBER_ANNOTATIONS
            default = self.defaults.get(name)
            if self.ints:  # an int default, and no construction in the file passing something else
                return int_constant(default) is not None and self._constructed_with_ints(name)
            return is_number(default)
        if name in self._locals:
            return self._locals[name]
        self._locals[name] = False  # a name defined through itself is not proven
        values = [n.value for n in walk(self.init) if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
        loops = [n for n in walk(self.init) if isinstance(n, ast.For) and _binds(n.target, name)]
        items = [_loop_items(self.init, loop, name) for loop in loops]
        stores = sum(1 for n in walk(self.init) if isinstance(n, ast.Name) and n.id == name
                     and isinstance(n.ctx, ast.Store))
        answer = (bool(values or loops) and len(values) + len(loops) == stores and None not in items
                  and all(self.number(v) for v in values + [i for each in items for i in each]))
        self._locals[name] = answer
        return answer


def _binds(target: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in walk(target))


def _loop_items(init: ast.FunctionDef, loop: ast.For, name: str) -> list[ast.expr] | None:
    """What ``name`` takes in a loop over a literal (YOLOv4's `for cin, cout, pool_size, stride in
    blocks:`, `blocks` a list of tuple literals bound once): the item, or the tuple item at the name's
    place; None where the loop's sequence or its items are not literals."""
    sequence = loop.iter
    if isinstance(sequence, ast.Name):
        bound = [n.value for n in walk(init) if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == sequence.id for t in n.targets)]
        stores = sum(1 for n in walk(init) if isinstance(n, ast.Name) and n.id == sequence.id
                     and isinstance(n.ctx, ast.Store))
        # read only as a loop's sequence: no `.append`, item store or `+` changes what the loops see
        loops = {id(n.iter) for n in walk(init) if isinstance(n, (ast.For, ast.AsyncFor))}
        read_elsewhere = any(isinstance(n, ast.Name) and n.id == sequence.id and isinstance(n.ctx, ast.Load)
                             and id(n) not in loops for n in walk(init))
        sequence = bound[0] if len(bound) == 1 and stores == 1 and not read_elsewhere else None
    if not isinstance(sequence, (ast.List, ast.Tuple)) or not sequence.elts:
        return None
    if isinstance(loop.target, ast.Name):
        return list(sequence.elts)
    if not isinstance(loop.target, ast.Tuple):
        return None
    position = next((i for i, t in enumerate(loop.target.elts) if isinstance(t, ast.Name) and t.id == name), None)
    width = len(loop.target.elts)
    if position is None or not all(isinstance(e, (ast.Tuple, ast.List)) and len(e.elts) == width for e in sequence.elts):
        return None
    return [e.elts[position] for e in sequence.elts]


def _only_constructed_by_name(cls: "ClassInfo", tree: ast.AST) -> bool:
    """The file names the class only to call it (`Enc(...)`), derives no class from it, and the
    class makes no `cls(...)` of itself: its constructions are the calls the checks read."""
    called = {id(n.func) for n in walk(tree) if isinstance(n, ast.Call)}
    # `super(Cls, self).__init__()`: the old spelling of super(), no construction
    called |= {id(a) for n in walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id == "super" for a in n.args}
    for node in walk(tree):
        if isinstance(node, ast.ClassDef) and any(
                (isinstance(b, ast.Name) and b.id == cls.name) or (isinstance(b, ast.Attribute) and b.attr == cls.name)
                for b in node.bases):
            return False
        if isinstance(node, ast.Name) and node.id == cls.name and isinstance(node.ctx, ast.Load) and id(node) not in called:
            return False
    own = next((n for n in walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.name), None)
    return own is None or not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "cls"
                                  for n in walk(own))


def _int_or_item(value: ast.AST | None, index: int) -> bool:
    """An int literal, or a tuple / list literal whose item ``index`` is one."""
    if int_constant(value) is not None:
        return True
    return (isinstance(value, (ast.Tuple, ast.List)) and -len(value.elts) <= index < len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in value.elts) and int_constant(value.elts[index]) is not None)


def _constructions(tree: ast.AST, class_name: str):
    for node in walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if called == class_name:
                yield node


def _within(node: ast.AST, function: ast.FunctionDef) -> bool:
    return function.lineno <= node.lineno and node.end_lineno <= function.end_lineno and any(
        n is node for n in walk(function))


def _rebound(function: ast.FunctionDef, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in walk(function))


def parameter_defaults(function: ast.FunctionDef) -> dict[str, ast.expr]:
    """{parameter: its default expression} of a function's signature."""
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return defaults



def is_config_bool(node: ast.AST, ctx: "FunctionContext") -> bool:
    """``self.<attr>`` a Python bool of the model's configuration: ``__init__`` alone assigns it,
    each time a bool literal or a parameter with a bool default (not rebound there), which every
    construction of the class in the file passes as a bool literal or leaves out."""
    if not ctx.is_self_attr(node) or ctx.fn.cls is None:
        return False
    key = ("config bool", node.attr)
    if key not in ctx.cache:
        ctx.cache[key] = _attribute_bool(ctx.fn.cls, node.attr, ctx)
    return ctx.cache[key]


def _attribute_bool(cls: "ClassInfo", attr: str, ctx: "FunctionContext") -> bool:
    init = cls.methods.get("__init__")
    if init is None or not init.args.args or REBOUND in ctx.file.module.changes_of(attr):
        return False
    if not _only_constructed_by_name(cls, ctx.file.module.tree):
        return False  # a subclass, `cls(...)`, a partial or a factory could pass anything
    values = _init_values(init, attr)
    defaults = parameter_defaults(init)

    def literal_bool(value: ast.AST | None) -> bool:
        return isinstance(value, ast.Constant) and type(value.value) is bool

    def bool_value(value: ast.AST | None) -> bool:
        if literal_bool(value):
            return True
        if not (isinstance(value, ast.Name) and literal_bool(defaults.get(value.id))) or _rebound(init, value.id):
            return False
        passed = _passed_arguments(init, cls, value.id, ctx)
        return passed is not None and all(literal_bool(g) for _, g in passed)

    return bool(values) and all(bool_value(v) for v in values)


def _passed_arguments(init: ast.FunctionDef, cls: "ClassInfo", name: str,
                      ctx: "FunctionContext") -> list[tuple[ast.Call, ast.expr]] | None:
    """(construction, value) for every `Cls(...)` in the file that passes parameter ``name`` of
    ``__init__``, by keyword or position; None where a construction splats (`*a`, `**kw`), so
    what it passes is not in the source."""
    positional = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    position = positional.index(name) if name in positional else None
    passed = []
    for call in _constructions(ctx.file.module.tree, cls.name):
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        passed += [(call, k.value) for k in call.keywords if k.arg == name]
        if position is not None and position < len(call.args):
            passed.append((call, call.args[position]))
    return passed
