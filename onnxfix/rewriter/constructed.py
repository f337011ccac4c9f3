"""Which classes a module attribute is built from: `Block(...)`, the calls inside an
`nn.Sequential(...)` / `nn.ModuleList([...])`, either branch of `A() if flag else None`, and the
classes a file passes to the constructor parameter __init__ stores (`Wrapper(Backbone())`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.module_index import ClassInfo, ModuleIndex
from onnxfix.rewriter.names import walk_scope
from onnxfix.rewriter.tree_walk import walk

CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict"})


def constructor_arguments(module: ModuleIndex, cls: ClassInfo, position: int | None, name: str, class_named):
    """The arguments this file passes to parameter ``name`` (at ``position`` after self) of
    ``cls``'s constructor, wherever it builds the class."""
    for call in (n for n in walk(module.tree) if isinstance(n, ast.Call)):
        found = class_named(module, call.func)
        if not found or found[1].node is not cls.node:
            continue
        for keyword in call.keywords:
            if keyword.arg == name:
                yield keyword.value
        if position is not None and position < len(call.args) and not isinstance(call.args[position], ast.Starred):
            yield call.args[position]


def calls_behind(module: ModuleIndex, argument: ast.expr) -> Iterator[ast.Call]:
    """`Backbone(...)` itself, or the calls a name is assigned from anywhere in the file."""
    return (value for value in _values_behind(module, argument) if isinstance(value, ast.Call))


def constructed_classes(module: ModuleIndex, value: ast.expr) -> Iterator[ast.Call]:
    """The calls that may construct the submodule(s) held by an attribute."""
    if isinstance(value, ast.IfExp):  # `Getter() if self.rope else None`
        yield from constructed_classes(module, value.body)
        yield from constructed_classes(module, value.orelse)
        return
    if not isinstance(value, ast.Call):
        return
    if module.scope.qualname(value.func) in CONTAINERS:
        for argument in [*value.args, *(k.value for k in value.keywords)]:
            yield from (n for n in walk(argument) if isinstance(n, ast.Call))
    else:
        yield value


# Wrappers that hand out a container's elements one by one: `for i, layer in enumerate(reversed(self.layers))`
_ELEMENT_WRAPPERS = frozenset({"enumerate", "reversed", "list", "tuple", "iter"})


def container_elements(function: ast.AST, self_name: str | None) -> dict[str, str]:
    """local name -> `attr` for the names that hold an element of `self.attr` in ``function``:
    bound by `for name in self.attr` (through enumerate / reversed / list), or
    `name = self.attr[i]` (a flow's `layer.backward(y)` over `reversed(self.layers)` runs the
    layers' `backward`); the first binding in walk order decides. One walk for every name: asked
    name by name, a function of n calls on locals took n walks (a 1,500-term expression: 10 s)."""
    elements: dict[str, str] = {}
    for node in walk(function):
        if isinstance(node, (ast.For, ast.comprehension)):
            found = {n.id: iterated_attribute(node.iter, node.target, n.id, self_name)
                     for n in walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
            attribute = _self_attribute(node.value.value, self_name)
            found = {t.id: attribute for t in node.targets if isinstance(t, ast.Name)}
        else:
            continue
        for name, attribute in found.items():
            if attribute is not None:
                elements.setdefault(name, attribute)
    return elements


def local_constructions(function: ast.AST) -> dict[str, list[ast.Call]]:
    """local name -> the calls it is bound to, for the names every binding of which in ``function``
    is `name = <call>` (`dist = Categorical(logits)`, `dist = self.head(x)`): what the name may
    hold is an instance those calls return. One walk of the function's own scope for every name
    (a nested function's local of the same name is another variable)."""
    calls: dict[str, list[ast.Call]] = {}
    targets: set[int] = set()
    stores: list[ast.Name] = []  # bound otherwise: a loop, an unpacking, `with ... as`, a walrus, `del`
    other: set[str] = set()
    for node, _ in walk_scope(function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            other.add(node.name)  # `def name(...)` binds the name too
            _nonlocal_bindings(node, calls, other)  # a nested function's `nonlocal name = Cls()` binds ours
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            calls.setdefault(node.targets[0].id, []).append(node.value)
            targets.add(id(node.targets[0]))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores.append(node)
        elif isinstance(node, ast.arg):
            other.add(node.arg)  # a parameter
    other |= {n.id for n in stores if id(n) not in targets}
    return {name: found for name, found in calls.items() if name not in other}


def _nonlocal_bindings(nested: ast.AST, calls: dict[str, list[ast.Call]], other: set[str]) -> None:
    """What a nested function binds to the names it declares `nonlocal`: calls into ``calls``, any
    other binding into ``other``."""
    names = {n for inner in walk(nested) if isinstance(inner, ast.Nonlocal) for n in inner.names}
    if not names:
        return
    targets: set[int] = set()
    for inner in walk(nested):
        if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name) \
                and inner.targets[0].id in names and isinstance(inner.value, ast.Call):
            calls.setdefault(inner.targets[0].id, []).append(inner.value)
            targets.add(id(inner.targets[0]))
    other.update(inner.id for inner in walk(nested) if isinstance(inner, ast.Name) and inner.id in names
                 and isinstance(inner.ctx, (ast.Store, ast.Del)) and id(inner) not in targets)


def returned_calls(function: ast.AST) -> list[ast.Call]:
    """The calls ``function`` returns when every `return` of its own (not of a nested function)
    returns a call (`return Categorical(logits=self.linear(x))`); empty otherwise."""
    returns = [n for n, _ in walk_function_body(function) if isinstance(n, ast.Return)]
    if not returns or not all(isinstance(r.value, ast.Call) for r in returns):
        return []
    return [r.value for r in returns]


def iterated_attribute(iterated: ast.expr, target: ast.expr, name: str, self_name: str | None) -> str | None:
    while isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and len(iterated.args) == 1:
        if iterated.func.id not in _ELEMENT_WRAPPERS:
            return None
        if iterated.func.id == "enumerate":  # (index, element)
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                return None
            target = target.elts[1]
        iterated = iterated.args[0]
    if not (isinstance(target, ast.Name) and target.id == name):
        return None
    return _self_attribute(iterated, self_name)


def _self_attribute(node: ast.expr, self_name: str | None) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return node.attr
    return None


def setter_constructions(module: ModuleIndex, cls: ClassInfo, attr: str) -> Iterator[ast.Call]:
    """The constructions this file passes to a method other than ``__init__`` that stores its
    parameter in `self.<attr>` (diffusers' `def set_processor(self, processor): self.processor =
    processor`, called as `attn.set_processor(SlicedAttnProcessor(n))`, or with a name assigned
    `AttnProcessor2_0() if ... else AttnProcessor()`): what `self.<attr>(...)` may call."""
    for method in cls.methods.values():
        if method.name == "__init__" or not method.args.args:
            continue
        parameters = [a.arg for a in method.args.args][1:]
        self_name = method.args.args[0].arg
        for statement in walk(method):
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and _self_attribute(statement.targets[0], self_name) == attr
                    and isinstance(statement.value, ast.Name) and statement.value.id in parameters):
                continue
            parameter = statement.value.id
            for argument in _method_arguments(module, method.name, parameters.index(parameter), parameter):
                for value in _values_behind(module, argument):
                    yield from constructed_classes(module, value)


def _method_arguments(module: ModuleIndex, method: str, position: int, name: str) -> Iterator[ast.expr]:
    for call in (n for n in walk(module.tree) if isinstance(n, ast.Call)):
        if isinstance(call.func, ast.Attribute) and call.func.attr == method:
            yield from (k.value for k in call.keywords if k.arg == name)
            if position < len(call.args) and not isinstance(call.args[position], ast.Starred):
                yield call.args[position]


def _values_behind(module: ModuleIndex, argument: ast.expr) -> Iterator[ast.expr]:
    """The argument itself, or what a name is assigned anywhere in the file."""
    if not isinstance(argument, ast.Name):
        yield argument
        return
    for node in walk(module.tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == argument.id for t in node.targets):
            yield node.value
