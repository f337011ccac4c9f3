"""Export-time scope: ``forward`` of ``nn.Module`` subclasses and everything it calls.

Only this code runs under ``torch.onnx.export``; findings elsewhere (training loops, data
loading, ``__main__`` blocks) would be noise. ``ScopeBuilder`` follows the calls from each entry
over the files' ``ModuleIndex`` (module_index.py), keeping away from the code an exporter never
runs (export_guards.py) and walking each function's body as exported (function_body.py).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Iterator

from onnxfix.rewriter.constructed import (
    calls_behind, constructed_classes, constructor_arguments, container_elements, local_constructions, returned_calls,
    setter_constructions,
)
from onnxfix.rewriter.call_modes import CallSiteModes
from onnxfix.rewriter.function_body import scope_of_function, walk_function_body
from onnxfix.rewriter.module_index import (
    KNOWN_MODULE_BASES,
    ClassInfo,
    ModuleIndex,
    NoResolver,
    Resolver,
    class_info,
    is_torch_module_qualname,
    module_statements,
)
from onnxfix.rewriter.names import FUNCTION_NODES, Scope, dotted_parts, walk_scope
from onnxfix.rewriter.scripting import decorator_name, unbound_in_class
from onnxfix.rewriter.tree_walk import walk

ALL_MODES = frozenset({"dynamo", "legacy"})


@dataclass(frozen=True)
class Entry:
    """The forward through which a function runs at export time."""

    qualname: str  # "Model.forward"
    path: str  # the forward's file: ModuleIndex.identity (shown through paths.shown)
    line: int
    # Union over the call sites reaching the function: a call under `if torch.jit.is_tracing():`
    # brings it the legacy exporter only.
    modes: frozenset[str] = ALL_MODES


@dataclass
class ExportFunction:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    module: ModuleIndex
    cls: ClassInfo | None
    scope: Scope | None  # None until build() needs it (computed from parent_scope)
    entry: Entry
    is_entry: bool
    key: str = ""  # dotted path in its file: "Model.forward", "helper", "Model.forward.inner"
    parent_scope: Scope | None = None


@dataclass
class ExportScope:
    functions: list[ExportFunction] = field(default_factory=list)

    def in_module(self, module: ModuleIndex) -> Iterator[ExportFunction]:
        return (f for f in self.functions if f.module is module)


# The decomposition helpers onnxfix writes into a file (`_onnx_cumprod`, onnxfix/decompositions/)
# export by construction, and their eager branch calls the very op they replace: a later round
# that linted them rewrote `return torch.linalg.matrix_power(A, n)` inside `_onnx_matrix_power`
# into a call to itself.
HELPER_PREFIX = "_onnx_"


def is_written_helper(fn: ExportFunction) -> bool:
    """A module-level `_onnx_*` function: a helper onnxfix wrote. Nested ones (`_onnx_when_true`,
    `_onnx_if_12`: an `if`'s branches moved by ONX601 / ONX613) hold the user's code and are linted."""
    return getattr(fn.node, "name", "").startswith(HELPER_PREFIX) and fn.key == fn.node.name


class ScopeBuilder:
    """Finds module classes and walks calls from each forward."""

    def __init__(self, resolver: Resolver | None = None):
        self.resolver = resolver or NoResolver()
        self._module_class_memo: dict[int, bool] = {}
        # id(function node) -> (call site, callee) pairs: a function reached again (by another
        # forward, or with more exporter modes) resolves the same names to the same callees.
        self._targets_memo: dict[int, list[tuple[ast.AST, ExportFunction]]] = {}
        # A class's bases and what `self.<attr>` calls in it do not depend on the caller: a
        # forward reads `self.config`, `self.dropout`... many times, its siblings the same names.
        self._bases_memo: dict[int, list[tuple[ModuleIndex, ClassInfo]]] = {}
        self._self_attr_memo: dict[tuple[int, str], list[ExportFunction]] = {}
        self._container_memo: dict[int, dict[str, str]] = {}  # id(function node) -> container_elements
        self._locals_memo: dict[int, dict[str, list[ast.Call]]] = {}  # id(function node) -> local_constructions

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

    def bases_of(self, module: ModuleIndex, info: ClassInfo) -> list[tuple[ModuleIndex, ClassInfo]]:
        """Linearised bases (depth-first, good enough for method lookup)."""
        key = id(info.node)
        if key not in self._bases_memo:
            self._bases_memo[key] = list(self._linearised_bases(module, info))
        return self._bases_memo[key]

    def _linearised_bases(self, module: ModuleIndex, info: ClassInfo) -> Iterator[tuple[ModuleIndex, ClassInfo]]:
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
        found: dict[int, ExportFunction] = {}
        worklist: list[ExportFunction] = []
        for module in modules:
            instance_forwards = module.instance_forwards()
            for info in module.classes.values():
                if not self.is_module_class(module, info) or _is_loss_class(info):
                    continue
                for name in ("forward", *sorted(instance_forwards & info.methods.keys() - {"forward"})):
                    forward = info.methods.get(name)
                    if forward is not None:
                        entry = Entry(f"{info.name}.{name}", module.identity, forward.lineno)
                        worklist.append(
                            ExportFunction(forward, module, info, None, entry, True, entry.qualname, module.scope)
                        )
        while worklist:
            current = worklist.pop(0)
            known = found.get(id(current.node))
            if known is not None:
                # The first caller names the entry; a call site adding modes walks on with them.
                if current.entry.modes <= known.entry.modes:
                    continue
                known.entry = replace(known.entry, modes=known.entry.modes | current.entry.modes)
                current = known
            else:
                found[id(current.node)] = current
                if current.scope is None:  # computed once per function, not once per call site
                    current.scope = scope_of_function(current.node, current.parent_scope)
                result.functions.append(current)
            worklist.extend(self._callees(current))
        return result

    def _callees(self, fn: ExportFunction) -> Iterator[ExportFunction]:
        key = id(fn.node)
        if key not in self._targets_memo:
            self._targets_memo[key] = list(self._targets(fn))
        sites = CallSiteModes(fn)
        for node, callee in self._targets_memo[key]:
            if is_written_helper(callee):
                continue  # a helper onnxfix wrote: not user code (its guard calls the op it replaces)
            modes = sites.callee_modes(node, callee.node)
            if modes:  # no exporter runs the call: the callee is not reached from here
                yield replace(callee, entry=replace(fn.entry, modes=modes))

    def _targets(self, fn: ExportFunction) -> Iterator[tuple[ast.AST, ExportFunction]]:
        """(call site, callee) for every function ``fn`` may call, whatever the modes."""
        self_name = _self_name(fn)
        nested = fn.scope.functions
        for node, parent in walk_function_body(fn.node):
            if isinstance(node, FUNCTION_NODES) and node is not fn.node:
                callees = [self._reached(fn, fn.module, node, fn.cls, fn.scope, f"{fn.key}.{node.name}")]
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in nested:
                    continue  # yielded above as a nested def
                callees = self._name_target(fn, node.id)
                if isinstance(parent, ast.Call) and parent.func is node:
                    callees = [*callees, *self._constructor(fn, node), *self._local_instance_call(fn, node, self_name)]
            elif isinstance(node, ast.Attribute) and node.attr == "apply":
                callees = self._autograd_forward(fn, node.value)
            elif isinstance(node, ast.Attribute):
                callees = [*(self._attribute_target(fn, node, self_name) if fn.cls is not None else ()),
                           *self._local_instance_methods(fn, node, self_name), *self._class_methods(fn, node)]
            else:
                continue
            for callee in callees:
                yield node, callee

    def _name_target(self, fn: ExportFunction, name: str) -> Iterator[ExportFunction]:
        scope = fn.scope
        # A name bound in an enclosing function (other than by def) is a local value.
        if scope.is_local(name) and scope.lookup(name) is None:
            return
        module = fn.module
        if name in module.functions and module.scope.lookup(name) is None:
            node = module.functions[name]
            yield self._reached(fn, module, node, None, module.scope, name)
            return
        qualname = scope.lookup(name)
        if qualname:
            external = self.resolver.external_function(qualname)
            if external:
                ext_module, node = external
                yield self._reached(fn, ext_module, node, None, ext_module.scope, node.name)

    def _constructor(self, fn: ExportFunction, node: ast.Name) -> Iterator[ExportFunction]:
        """``SquashedNormal(mu, std)``: building an instance of a user class runs its
        ``__init__`` (the first one up its bases) while the model is exported."""
        if fn.scope.is_local(node.id) and fn.scope.lookup(node.id) is None:
            return
        found = self._class_named(fn.module, node)
        if found is not None:
            yield from self._methods_named(fn, found[0], found[1], "__init__", skip_self=False)

    def _attribute_target(self, fn: ExportFunction, node: ast.Attribute, self_name: str | None) -> Iterator[ExportFunction]:
        value = node.value
        if isinstance(value, ast.Name) and value.id == self_name:
            # Memoised as found for the first caller: _callees gives each caller its own entry.
            key = (id(fn.cls.node), node.attr)
            if key not in self._self_attr_memo:
                self._self_attr_memo[key] = [
                    *self._methods_named(fn, fn.module, fn.cls, node.attr, skip_self=False),
                    *self._submodule_forwards(fn, node.attr),
                ]
            yield from self._self_attr_memo[key]
        elif _is_super_call(value):
            yield from self._methods_named(fn, fn.module, fn.cls, node.attr, skip_self=True)
        elif (
            isinstance(value, ast.Attribute)
            and isinstance(value.value, ast.Name)
            and value.value.id == self_name
        ):
            # self.sub.method(): follow the class assigned to self.sub in __init__, or passed to
            # the constructor parameter __init__ stored there (a wrapper around a backbone)
            assigned = fn.cls.self_attrs.get(value.attr)
            for module, info in self._attribute_classes(fn, assigned):
                yield from self._methods_named(fn, module, info, node.attr, skip_self=False)
        elif isinstance(value, ast.Name) and value.id != self_name:
            # `layer.backward(y)` for a layer taken out of `self.layers` (a loop, an index)
            key = id(fn.node)
            if key not in self._container_memo:
                self._container_memo[key] = container_elements(fn.node, self_name)
            container = self._container_memo[key].get(value.id)
            if container is not None:
                yield from self._element_methods(fn, container, node.attr)

    def _class_methods(self, fn: ExportFunction, node: ast.Attribute) -> Iterator[ExportFunction]:
        """`ImageList.from_tensors(images, ...)` (detectron2), `Util.helper(x)`: a static or class
        method called through its class, a user class of this module or one it imports."""
        value = node.value
        if not isinstance(value, ast.Name) or (fn.scope.is_local(value.id) and fn.scope.lookup(value.id) is None):
            return
        found = self._class_named(fn.module, value)
        if found is not None:
            yield from self._methods_named(fn, found[0], found[1], node.attr, skip_self=False)

    def _local_instance_methods(self, fn: ExportFunction, node: ast.Attribute, self_name: str | None):
        """`dist = Categorical(logits)` (or `dist = self.head(x)`, a submodule whose forward returns
        `Categorical(...)`), then `dist.log_prob(a)`: the method of the class the local is built from."""
        if not isinstance(node.value, ast.Name) or node.value.id == self_name:
            return
        key = id(fn.node)
        if key not in self._locals_memo:
            self._locals_memo[key] = local_constructions(fn.node)
        for call in self._locals_memo[key].get(node.value.id, ()):
            for module, info in self._instance_classes(fn, call, self_name):
                yield from self._methods_named(fn, module, info, node.attr, skip_self=False)

    def _local_instance_call(self, fn: ExportFunction, node: ast.Name, self_name: str | None):
        """`geo_fn = Combined_Geo_Encoding_Volume(...)`, then `geo_fn(disp, coords)` (RT-IGEV): calling
        a local instance of a user class runs its forward, or a plain object's `__call__`."""
        if node.id == self_name:
            return
        key = id(fn.node)
        if key not in self._locals_memo:
            self._locals_memo[key] = local_constructions(fn.node)
        for call in self._locals_memo[key].get(node.id, ()):
            for found in self._instance_classes(fn, call, self_name):
                yield from self._called_method(fn, found)

    def _instance_classes(self, fn: ExportFunction, call: ast.Call, self_name: str | None):
        """The class ``call`` builds, or that a submodule's forward it calls returns."""
        found = self._class_named(fn.module, call.func)
        if found:
            yield found
        elif fn.cls is not None and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == self_name:
            for module, info in self._built_into(fn, call.func.attr):
                forward = info.methods.get("forward")
                for returned in returned_calls(forward) if forward is not None else ():
                    found = self._class_named(module, returned.func)
                    if found:
                        yield found

    def _attribute_classes(self, fn: ExportFunction, assigned: ast.expr | None) -> Iterator[tuple[ModuleIndex, ClassInfo]]:
        """The classes an attribute's value is built from: `Block(...)`, or for `self.model = model`
        (an __init__ parameter) the classes this file passes to that parameter when it builds the
        class (`Wrapper(Backbone(...))`, or a name assigned `Backbone(...)`)."""
        if isinstance(assigned, ast.Call):
            found = self._class_named(fn.module, assigned.func)
            if found:
                yield found
            return
        init = fn.cls.methods.get("__init__")
        if not isinstance(assigned, ast.Name) or init is None:
            return
        names = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
        if assigned.id not in names and assigned.id not in [a.arg for a in init.args.kwonlyargs]:
            return
        position = names.index(assigned.id) if assigned.id in names else None
        seen = set()
        for argument in constructor_arguments(fn.module, fn.cls, position, assigned.id, self._class_named):
            for call in calls_behind(fn.module, argument):
                found = self._class_named(fn.module, call.func)
                if found and id(found[1].node) not in seen:
                    seen.add(id(found[1].node))
                    yield found

    def _autograd_forward(self, fn: ExportFunction, value: ast.expr) -> Iterator[ExportFunction]:
        """``MyFunction.apply(...)`` runs the static ``MyFunction.forward`` of a
        ``torch.autograd.Function`` subclass while the model is exported."""
        found = self._class_named(fn.module, value)
        if found and any(is_autograd_function(mod, info) for mod, info in self.bases_of(*found)):
            yield from self._methods_named(fn, found[0], found[1], "forward", skip_self=False)

    def _submodule_forwards(self, fn: ExportFunction, attr: str) -> Iterator[ExportFunction]:
        """``self.block`` where ``__init__`` assigned ``Block(...)``, or a container
        (``nn.ModuleList([...])``, ``nn.Sequential(...)``) of such calls: their forwards run
        when the parent's forward uses the attribute."""
        for found in self._built_into(fn, attr):
            if not _is_loss_class(found[1]):
                yield from self._called_method(fn, found)
        for module, info in self.bases_of(fn.module, fn.cls):  # `self.processor = processor` in a setter
            for call in setter_constructions(module, info, attr):
                found = self._class_named(module, call.func)
                if found:
                    yield from self._called_method(fn, found)
        value = fn.cls.self_attrs.get(attr)
        if isinstance(value, ast.Name):  # `self.model = model`: what is passed in
            for found in self._attribute_classes(fn, value):
                yield from self._called_method(fn, found)
            # `self.extractor = get_mel_spectrogram`: a function of the module held as an attribute
            init = fn.cls.methods.get("__init__")
            parameters = {a.arg for a in walk(init.args) if isinstance(a, ast.arg)} if init else set()
            if value.id not in parameters:
                yield from self._name_target(fn, value.id)

    def _element_methods(self, fn: ExportFunction, container: str, name: str) -> Iterator[ExportFunction]:
        """Method ``name`` of the classes built into container attribute ``container``."""
        for module, info in self._built_into(fn, container):
            yield from self._methods_named(fn, module, info, name, skip_self=False)

    def _built_into(self, fn: ExportFunction, attr: str) -> Iterator[tuple[ModuleIndex, ClassInfo]]:
        """The classes whose construction the first class up ``fn``'s bases assigning ``attr``
        assigns to it (directly or inside a container)."""
        for module, info in self.bases_of(fn.module, fn.cls):
            value = info.self_attrs.get(attr)
            if value is None:
                continue
            for call in constructed_classes(module, value):
                found = self._class_named(module, call.func)
                if found:
                    yield found
            return

    def _called_method(self, fn: ExportFunction, found: tuple[ModuleIndex, ClassInfo]) -> Iterator[ExportFunction]:
        """What calling an instance runs: a module's forward, or a plain object's __call__ (DA3's
        PositionGetter, a callable helper object held by the module)."""
        forwards = list(self._methods_named(fn, found[0], found[1], "forward", skip_self=False))
        yield from forwards or self._methods_named(fn, found[0], found[1], "__call__", skip_self=False)

    def _methods_named(self, fn: ExportFunction, module: ModuleIndex, cls: ClassInfo, name: str, skip_self: bool):
        for mod, info in self.bases_of(module, cls):
            if skip_self and info is cls:
                continue
            method = info.methods.get(name)
            if method is not None:
                yield self._reached(fn, mod, method, info, mod.scope, f"{info.name}.{name}")
                return

    @staticmethod
    def _reached(caller: ExportFunction, module: ModuleIndex, node, cls, parent_scope, key: str) -> ExportFunction:
        return ExportFunction(node, module, cls, None, caller.entry, False, key, parent_scope)


def functions_from_reach(module: ModuleIndex, reach: dict[str, Entry]) -> ExportScope:
    """The export functions of ``module`` given which of its functions (by key) some forward
    reaches, possibly from another file. Scopes and classes are rebuilt as ScopeBuilder does."""
    result = ExportScope()
    if not reach:
        return result

    # Only reached functions and those enclosing one get a scope (the costly part).
    wanted = {key.rsplit(".", n)[0] for key in reach for n in range(key.count(".") + 1)}

    def visit_function(node, key: str, cls: ClassInfo | None, parent: Scope, inherited: Entry | None = None) -> None:
        if key not in wanted and inherited is None:
            return
        scope = scope_of_function(node, parent)
        entry = reach.get(key) or inherited
        if entry is not None:
            is_entry = entry.qualname == key and entry.path == module.identity
            result.functions.append(ExportFunction(node, module, cls, scope, entry, is_entry, key))
        for sub, _ in walk_scope(node):
            if isinstance(sub, FUNCTION_NODES):
                # a function a fix nested in a reached one since the reach was taken (the branches
                # ONX613 makes functions in a later fix round): reached as its enclosing function is
                made = entry if entry is not None and sub.name.startswith(HELPER_PREFIX) else None
                if made is not None or any(k.startswith(key + ".") for k in reach):
                    visit_function(sub, f"{key}.{sub.name}", cls, scope, made)

    for node in module_statements(module.tree):
        if isinstance(node, FUNCTION_NODES):
            visit_function(node, node.name, None, module.scope)
        elif isinstance(node, ast.ClassDef) and node.name in wanted:
            info = module.classes.get(node.name)
            if info is None or info.node is not node:
                info = class_info(node)
            for name, method in info.methods.items():  # aliases too (`forward = simple_test`): reach names them
                visit_function(method, f"{node.name}.{name}", info, module.scope)
    return result


def is_autograd_function(module: ModuleIndex, info: ClassInfo) -> bool:
    for base in info.node.bases:
        qualname = module.scope.qualname(base) or ".".join(dotted_parts(base) or ())
        if qualname in AUTOGRAD_FUNCTION_BASES or qualname.rsplit(".", 1)[-1] == "Function" and "autograd" in qualname:
            return True
    return False


AUTOGRAD_FUNCTION_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function",
                                     "torch.autograd.function.InplaceFunction", "Function"})


def _is_loss_class(info: ClassInfo) -> bool:
    """``OneFormerLoss``, ``HungarianMatcher``-style criteria: modules that compute training
    losses are not exported, so their forward is no entry point."""
    return info.name.endswith(("Loss", "Criterion", "Matcher"))


def _self_name(fn: ExportFunction) -> str | None:
    args = fn.node.args.posonlyargs + fn.node.args.args
    if fn.cls is None or not args:
        return None
    if unbound_in_class(fn.node):
        return None
    return args[0].arg


def _is_super_call(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "super"
    )


