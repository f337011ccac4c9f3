"""Export-time scope: ``forward`` of ``nn.Module`` subclasses and everything it calls.

Only this code runs under ``torch.onnx.export``; findings elsewhere (training loops, data
loading, ``__main__`` blocks) would be noise. A ``ModuleIndex`` describes one file; a
``Resolver`` answers questions about names imported from other files (the single-file resolver
answers none, the project resolver follows imports across the scanned tree).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Protocol

from onnxfix.rewriter.names import (
    FUNCTION_NODES,
    Scope,
    dotted_parts,
    function_scope,
    module_scope,
    walk_scope,
)

# Bases from outside torch.nn that are nn.Module subclasses, matched on the last name part so
# that relative imports (``from ...modeling_utils import PreTrainedModel``) match too.
KNOWN_MODULE_BASES = frozenset({"PreTrainedModel", "LightningModule", "ModelMixin"})


def is_torch_module_qualname(qualname: str) -> bool:
    """torch.nn.Module and the torch.nn classes deriving from it (Linear, Sequential, ...)."""
    if not qualname.startswith("torch.nn.") or ".functional" in qualname:
        return False
    last = qualname.rsplit(".", 1)[-1]
    return last[:1].isupper() and last not in {"Parameter", "ParameterList", "ParameterDict"}


@dataclass
class ClassInfo:
    node: ast.ClassDef
    methods: dict[str, ast.FunctionDef]
    # self.<attr> = <value> assignments found in any method (first one wins)
    self_attrs: dict[str, ast.expr]
    buffers: set[str]

    @property
    def name(self) -> str:
        return self.node.name


def _class_info(node: ast.ClassDef) -> ClassInfo:
    methods = {m.name: m for m in node.body if isinstance(m, FUNCTION_NODES)}
    self_attrs: dict[str, ast.expr] = {}
    buffers: set[str] = set()
    for method in methods.values():
        if not method.args.args:
            continue
        self_name = method.args.args[0].arg
        for sub in ast.walk(method):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    if _is_self_attr(target, self_name):
                        self_attrs.setdefault(target.attr, sub.value)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
                if sub.func.attr == "register_buffer" and sub.args:
                    first = sub.args[0]
                    if isinstance(first, ast.Constant) and isinstance(first.value, str):
                        buffers.add(first.value)
    return ClassInfo(node=node, methods=methods, self_attrs=self_attrs, buffers=buffers)


def _is_self_attr(node: ast.AST, self_name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == self_name
    )


@dataclass
class ModuleIndex:
    """The top-level definitions of one file."""

    tree: ast.Module
    scope: Scope
    classes: dict[str, ClassInfo]
    functions: dict[str, ast.FunctionDef]
    path: str = ""

    @classmethod
    def build(cls, tree: ast.Module, path: str = "", package: str | None = None) -> "ModuleIndex":
        classes = {n.name: _class_info(n) for n in tree.body if isinstance(n, ast.ClassDef)}
        functions = {n.name: n for n in tree.body if isinstance(n, FUNCTION_NODES)}
        return cls(tree, module_scope(tree, package), classes, functions, path)


class Resolver(Protocol):
    """Answers for names bound by imports from other files (issue: cross-file analysis)."""

    def external_class(self, qualname: str) -> tuple["ModuleIndex", ClassInfo] | None: ...

    def external_function(self, qualname: str) -> tuple["ModuleIndex", ast.FunctionDef] | None: ...


class NoResolver:
    def external_class(self, qualname: str):
        return None

    def external_function(self, qualname: str):
        return None


@dataclass(frozen=True)
class Entry:
    """The forward through which a function runs at export time."""

    qualname: str  # "Model.forward"
    path: str
    line: int


@dataclass
class ExportFunction:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    module: ModuleIndex
    cls: ClassInfo | None
    scope: Scope
    entry: Entry
    is_entry: bool


@dataclass
class ExportScope:
    functions: list[ExportFunction] = field(default_factory=list)

    def in_module(self, module: ModuleIndex) -> Iterator[ExportFunction]:
        return (f for f in self.functions if f.module is module)


class ScopeBuilder:
    """Finds module classes and walks calls from each forward."""

    def __init__(self, resolver: Resolver | None = None):
        self.resolver = resolver or NoResolver()
        self._module_class_memo: dict[int, bool] = {}

    # -- which classes are nn.Module subclasses -----------------------------------------------
    def is_module_class(self, module: ModuleIndex, info: ClassInfo) -> bool:
        key = id(info.node)
        if key not in self._module_class_memo:
            self._module_class_memo[key] = False  # breaks cycles
            self._module_class_memo[key] = any(
                self._base_is_module(module, base) for base in info.node.bases
            )
        return self._module_class_memo[key]

    def _base_is_module(self, module: ModuleIndex, base: ast.expr) -> bool:
        if isinstance(base, ast.Subscript):  # Generic[...] style bases
            base = base.value
        qualname = module.scope.qualname(base)
        if qualname:
            if is_torch_module_qualname(qualname):
                return True
            if qualname.rsplit(".", 1)[-1] in KNOWN_MODULE_BASES:
                return True
            external = self.resolver.external_class(qualname)
            return bool(external) and self.is_module_class(*external)
        parts = dotted_parts(base)
        if parts and len(parts) == 1 and parts[0] in module.classes:
            return self.is_module_class(module, module.classes[parts[0]])
        return False

    def bases_of(self, module: ModuleIndex, info: ClassInfo) -> Iterator[tuple[ModuleIndex, ClassInfo]]:
        """Linearised bases (depth-first, good enough for method lookup)."""
        seen: set[int] = set()
        stack = [(module, info)]
        while stack:
            mod, current = stack.pop(0)
            if id(current.node) in seen:
                continue
            seen.add(id(current.node))
            yield mod, current
            for base in current.node.bases:
                found = self._class_named(mod, base)
                if found:
                    stack.append(found)

    def _class_named(self, module: ModuleIndex, expr: ast.expr) -> tuple[ModuleIndex, ClassInfo] | None:
        if isinstance(expr, ast.Subscript):
            expr = expr.value
        parts = dotted_parts(expr)
        if parts and len(parts) == 1 and parts[0] in module.classes and not module.scope.lookup(parts[0]):
            return module, module.classes[parts[0]]
        qualname = module.scope.qualname(expr)
        return self.resolver.external_class(qualname) if qualname else None

    # -- reachability --------------------------------------------------------------------------
    def build(self, modules: list[ModuleIndex]) -> ExportScope:
        result = ExportScope()
        seen: set[int] = set()
        worklist: list[ExportFunction] = []
        for module in modules:
            for info in module.classes.values():
                forward = info.methods.get("forward")
                if forward is not None and self.is_module_class(module, info) and not _is_loss_class(info):
                    entry = Entry(f"{info.name}.forward", module.path, forward.lineno)
                    scope = function_scope(forward, module.scope)
                    worklist.append(ExportFunction(forward, module, info, scope, entry, True))
        while worklist:
            current = worklist.pop(0)
            if id(current.node) in seen:
                continue
            seen.add(id(current.node))
            result.functions.append(current)
            worklist.extend(self._callees(current))
        return result

    def _callees(self, fn: ExportFunction) -> Iterator[ExportFunction]:
        self_name = _self_name(fn)
        nested = {
            n.name: n for n, _ in walk_scope(fn.node) if isinstance(n, FUNCTION_NODES)
        }
        for node, _ in _walk_with_lambdas(fn.node):
            if isinstance(node, FUNCTION_NODES) and node is not fn.node:
                yield self._reached(fn, fn.module, node, fn.cls, function_scope(node, fn.scope))
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in nested:
                    continue  # yielded above as a nested def
                yield from self._name_target(fn, node.id)
            elif isinstance(node, ast.Attribute) and fn.cls is not None:
                yield from self._attribute_target(fn, node, self_name)

    def _name_target(self, fn: ExportFunction, name: str) -> Iterator[ExportFunction]:
        scope = fn.scope
        # A name bound in an enclosing function (other than by def) is a local value.
        if scope.is_local(name) and scope.lookup(name) is None:
            return
        module = fn.module
        if name in module.functions and module.scope.lookup(name) is None:
            node = module.functions[name]
            yield self._reached(fn, module, node, None, function_scope(node, module.scope))
            return
        qualname = scope.lookup(name)
        if qualname:
            external = self.resolver.external_function(qualname)
            if external:
                ext_module, node = external
                yield self._reached(fn, ext_module, node, None, function_scope(node, ext_module.scope))

    def _attribute_target(self, fn: ExportFunction, node: ast.Attribute, self_name: str | None) -> Iterator[ExportFunction]:
        value = node.value
        if isinstance(value, ast.Name) and value.id == self_name:
            yield from self._methods_named(fn, fn.module, fn.cls, node.attr, skip_self=False)
        elif _is_super_call(value):
            yield from self._methods_named(fn, fn.module, fn.cls, node.attr, skip_self=True)
        elif (
            isinstance(value, ast.Attribute)
            and isinstance(value.value, ast.Name)
            and value.value.id == self_name
        ):
            # self.sub.method(): follow the class assigned to self.sub in __init__
            assigned = fn.cls.self_attrs.get(value.attr)
            if isinstance(assigned, ast.Call):
                found = self._class_named(fn.module, assigned.func)
                if found:
                    yield from self._methods_named(fn, found[0], found[1], node.attr, skip_self=False)

    def _methods_named(self, fn: ExportFunction, module: ModuleIndex, cls: ClassInfo, name: str, skip_self: bool):
        for mod, info in self.bases_of(module, cls):
            if skip_self and info is cls:
                continue
            method = info.methods.get(name)
            if method is not None:
                yield self._reached(fn, mod, method, info, function_scope(method, mod.scope))
                return

    @staticmethod
    def _reached(caller: ExportFunction, module: ModuleIndex, node, cls, scope) -> ExportFunction:
        return ExportFunction(node, module, cls, scope, caller.entry, False)


def _is_loss_class(info: ClassInfo) -> bool:
    """``OneFormerLoss``, ``HungarianMatcher``-style criteria: modules that compute training
    losses are not exported, so their forward is no entry point."""
    return info.name.endswith(("Loss", "Criterion"))


def _self_name(fn: ExportFunction) -> str | None:
    args = fn.node.args.posonlyargs + fn.node.args.args
    if fn.cls is None or not args:
        return None
    if any(_decorator_name(d) == "staticmethod" for d in fn.node.decorator_list):
        return None
    return args[0].arg


def _decorator_name(node: ast.expr) -> str | None:
    parts = dotted_parts(node)
    return parts[-1] if parts else None


def _is_super_call(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "super"
    )


def _walk_with_lambdas(fn: ast.AST) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """walk_scope, but entering lambdas (their bodies run as part of the function) and
    skipping training-only branches (models are exported in eval mode)."""
    stack = [(child, fn) for child in reversed(list(ast.iter_child_nodes(fn)))]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        stack.extend((child, node) for child in reversed(_children_run_in_eval(node)))


def _children_run_in_eval(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.If):
        training = _training_test(node.test)
        if training is True:  # `if self.training:` / `if cond and self.training:`
            return [node.test, *node.orelse]
        if training is False:  # `if not self.training:` ... else: <training only>
            return [node.test, *node.body]
    return list(ast.iter_child_nodes(node))


def _training_test(test: ast.expr) -> bool | None:
    """True if the test can only hold in training mode (or while computing a loss, or under
    TorchScript scripting), False if only in eval mode."""
    if isinstance(test, ast.Attribute) and test.attr == "training":
        return True
    if _loss_only_test(test):  # losses are not exported: `if return_loss:`, `if labels is not None:`
        return True
    if _scripting_only_test(test):  # `elif torch.jit.is_scripting():` never runs under export
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _training_test(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return True if any(_training_test(v) is True for v in test.values) else None
    return None


def _scripting_only_test(test: ast.expr) -> bool:
    parts = dotted_parts(test.func) if isinstance(test, ast.Call) else None
    return bool(parts) and parts[-1] == "is_scripting"


def _loss_only_test(test: ast.expr) -> bool:
    if isinstance(test, ast.Name) and test.id == "return_loss":
        return True
    return (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.left, ast.Name) and test.left.id == "labels"
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    )


walk_function_body = _walk_with_lambdas
