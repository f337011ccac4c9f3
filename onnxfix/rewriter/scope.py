"""Export-time scope: ``forward`` of ``nn.Module`` subclasses and everything it calls.

Only this code runs under ``torch.onnx.export``; findings elsewhere (training loops, data
loading, ``__main__`` blocks) would be noise. A ``ModuleIndex`` describes one file; a
``Resolver`` answers questions about names imported from other files (the single-file resolver
answers none, the project resolver follows imports across the scanned tree).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator, Protocol

from onnxfix.rewriter.names import (
    FUNCTION_NODES,
    child_nodes,
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


class ClassInfo:
    """A class's methods, and (computed on first use: most classes of a resolved file are never
    asked) the ``self.<attr> = <value>`` assignments of its methods and its buffers."""

    def __init__(self, node: ast.ClassDef, methods: dict[str, ast.FunctionDef]):
        self.node = node
        self.methods = methods
        self._attrs: tuple[dict[str, ast.expr], set[str]] | None = None

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def self_attrs(self) -> dict[str, ast.expr]:
        """self.<attr> = <value> assignments found in any method (first one wins)."""
        return self._scan()[0]

    @property
    def buffers(self) -> set[str]:
        return self._scan()[1]

    def _scan(self) -> tuple[dict[str, ast.expr], set[str]]:
        if self._attrs is None:
            self._attrs = _self_assignments(self.methods)
        return self._attrs


def _class_info(node: ast.ClassDef) -> ClassInfo:
    return ClassInfo(node, {m.name: m for m in node.body if isinstance(m, FUNCTION_NODES)})


def _self_assignments(methods: dict[str, ast.FunctionDef]) -> tuple[dict[str, ast.expr], set[str]]:
    self_attrs: dict[str, ast.expr] = {}
    buffers: set[str] = set()
    for method in methods.values():
        if not method.args.args:
            continue
        self_name = method.args.args[0].arg
        for statement in _statements(method.body):
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if _is_self_attr(target, self_name):
                        self_attrs.setdefault(target.attr, statement.value)
            elif isinstance(statement, ast.Expr) and _is_register_buffer(statement.value):
                first = statement.value.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    buffers.add(first.value)
    return self_attrs, buffers


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a method, in nested blocks too (not in nested defs); assignments and
    register_buffer calls are statements, so expressions need not be walked (10x cheaper)."""
    for statement in body:
        yield statement
        if isinstance(statement, (*FUNCTION_NODES, ast.ClassDef)):
            continue
        for block in ("body", "orelse", "finalbody"):
            inner = getattr(statement, block, None)
            if inner:
                yield from _statements(inner)
        for handler in getattr(statement, "handlers", None) or ():
            yield from _statements(handler.body)
        for case in getattr(statement, "cases", None) or ():
            yield from _statements(case.body)


def _is_register_buffer(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "register_buffer"
        and bool(node.args)
    )


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
    path: str = ""  # as displayed in reports
    file: str = ""  # absolute path, the identity used across files (empty for text checks)

    @property
    def identity(self) -> str:
        """What Entry.path holds: independent of the working directory, so a reach map cached
        by a run from another folder still names the same files."""
        return self.file or self.path

    @classmethod
    def build(cls, tree: ast.Module, path: str = "", package: str | None = None, file: str = "") -> "ModuleIndex":
        classes = {n.name: _class_info(n) for n in tree.body if isinstance(n, ast.ClassDef)}
        functions = {n.name: n for n in tree.body if isinstance(n, FUNCTION_NODES)}
        return cls(tree, module_scope(tree, package), classes, functions, path, file)


class Resolver(Protocol):
    """Answers for names bound by imports from other files (issue: cross-file analysis)."""

    def external_class(self, qualname: str) -> tuple["ModuleIndex", ClassInfo] | None: ...

    def external_function(self, qualname: str) -> tuple["ModuleIndex", ast.FunctionDef] | None: ...


class NoResolver:
    def external_class(self, qualname: str):
        return None

    def external_function(self, qualname: str):
        return None


# How the exporters run a reached function: "dynamo" and "legacy" trace it as Python; SCRIPTED
# is the legacy exporter running it compiled by TorchScript (a `@torch.jit._script_if_tracing`
# function and what it calls), where no Python runs at trace time.
SCRIPTED = "scripted"
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
            for info in module.classes.values():
                forward = info.methods.get("forward")
                if forward is not None and self.is_module_class(module, info) and not _is_loss_class(info):
                    entry = Entry(f"{info.name}.forward", module.identity, forward.lineno)
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
        sites = _CallSites(fn)
        for node, callee in self._targets_memo[key]:
            modes = sites.callee_modes(node, callee.node)
            if modes:  # no exporter runs the call: the callee is not reached from here
                yield replace(callee, entry=replace(fn.entry, modes=modes))

    def _targets(self, fn: ExportFunction) -> Iterator[tuple[ast.AST, ExportFunction]]:
        """(call site, callee) for every function ``fn`` may call, whatever the modes."""
        self_name = _self_name(fn)
        nested = fn.scope.functions
        for node, _ in walk_function_body(fn.node):
            if isinstance(node, FUNCTION_NODES) and node is not fn.node:
                callees = [self._reached(fn, fn.module, node, fn.cls, fn.scope, f"{fn.key}.{node.name}")]
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in nested:
                    continue  # yielded above as a nested def
                callees = self._name_target(fn, node.id)
            elif isinstance(node, ast.Attribute) and node.attr == "apply":
                callees = self._autograd_forward(fn, node.value)
            elif isinstance(node, ast.Attribute) and fn.cls is not None:
                callees = self._attribute_target(fn, node, self_name)
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
            # self.sub.method(): follow the class assigned to self.sub in __init__
            assigned = fn.cls.self_attrs.get(value.attr)
            if isinstance(assigned, ast.Call):
                found = self._class_named(fn.module, assigned.func)
                if found:
                    yield from self._methods_named(fn, found[0], found[1], node.attr, skip_self=False)

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
        for module, info in self.bases_of(fn.module, fn.cls):
            value = info.self_attrs.get(attr)
            if value is None:
                continue
            for call in _constructed_classes(module, value):
                found = self._class_named(module, call.func)
                if found and not _is_loss_class(found[1]):
                    yield from self._methods_named(fn, found[0], found[1], "forward", skip_self=False)
            return

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


class _CallSites:
    """How the exporters run what a function calls: as they run the function, less the
    exporters its export guards keep away from the call site; a `@torch.jit._script_if_tracing`
    callee is compiled by TorchScript under the legacy exporter (and traced as Python by dynamo,
    which is not tracing in TorchScript's sense: measured in tests/test_export_guards.py)."""

    def __init__(self, fn: ExportFunction):
        self.modes = fn.entry.modes
        body = walk_function_body(fn.node)
        # Most functions have no guard: their call sites need no parent map.
        self.parents = {id(n): p for n, p in body} if any(_is_guard_call(n) for n, _ in body) else None

    def callee_modes(self, site: ast.AST, callee: ast.AST) -> frozenset[str]:
        modes = set(self.modes)
        if self.parents is not None:
            skipped = exporters_skipping(site, self._ancestors(site))
            modes = {m for m in modes if exporter_of_mode(m) not in skipped}
        if "legacy" in modes and _scripted_if_tracing(callee):
            modes = (modes - {"legacy"}) | {SCRIPTED}
        return frozenset(modes)

    def _ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        current = self.parents.get(id(node))
        while current is not None:
            yield current
            current = self.parents.get(id(current))


def exporter_of_mode(mode: str) -> str:
    return "legacy" if mode == SCRIPTED else mode


def exporters_not_running(modes: frozenset[str], python_hazard: bool) -> frozenset[str]:
    """Exporters that never run a function reached in ``modes`` so that a rule's hazard occurs:
    a ``python_hazard`` (Python running at trace time: a loop unrolled, a number baked in) does
    not occur where the legacy exporter runs the function compiled by TorchScript."""
    running = {m for m in modes if m != SCRIPTED}
    if SCRIPTED in modes and not python_hazard:
        running.add("legacy")
    return frozenset({"dynamo", "legacy"} - running)


def _scripted_if_tracing(node: ast.AST) -> bool:
    decorators = getattr(node, "decorator_list", ())
    return any(_decorator_name(d) == "_script_if_tracing" for d in decorators)


def _is_guard_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name in TRUE_UNDER_DYNAMO_EXPORT or name in TRUE_UNDER_LEGACY_EXPORT or name in TRUE_UNDER_BOTH_EXPORTS


CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict"})


def _constructed_classes(module: ModuleIndex, value: ast.expr) -> Iterator[ast.Call]:
    """The calls that may construct the submodule(s) held by an attribute."""
    if not isinstance(value, ast.Call):
        return
    if module.scope.qualname(value.func) in CONTAINERS:
        for argument in [*value.args, *(k.value for k in value.keywords)]:
            yield from (n for n in ast.walk(argument) if isinstance(n, ast.Call))
    else:
        yield value


def functions_from_reach(module: ModuleIndex, reach: dict[str, Entry]) -> ExportScope:
    """The export functions of ``module`` given which of its functions (by key) some forward
    reaches, possibly from another file. Scopes and classes are rebuilt as ScopeBuilder does."""
    result = ExportScope()
    if not reach:
        return result

    # Only reached functions and those enclosing one get a scope (the costly part).
    wanted = {key.rsplit(".", n)[0] for key in reach for n in range(key.count(".") + 1)}

    def visit_function(node, key: str, cls: ClassInfo | None, parent: Scope) -> None:
        if key not in wanted:
            return
        scope = scope_of_function(node, parent)
        entry = reach.get(key)
        if entry is not None:
            is_entry = entry.qualname == key and entry.path == module.identity
            result.functions.append(ExportFunction(node, module, cls, scope, entry, is_entry, key))
        if any(k.startswith(key + ".") for k in reach):
            for sub, _ in walk_scope(node):
                if isinstance(sub, FUNCTION_NODES):
                    visit_function(sub, f"{key}.{sub.name}", cls, scope)

    for node in module.tree.body:
        if isinstance(node, FUNCTION_NODES):
            visit_function(node, node.name, None, module.scope)
        elif isinstance(node, ast.ClassDef) and node.name in wanted:
            info = module.classes.get(node.name)
            if info is None or info.node is not node:
                info = _class_info(node)
            for method in node.body:
                if isinstance(method, FUNCTION_NODES):
                    visit_function(method, f"{node.name}.{method.name}", info, module.scope)
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
    stack = [(child, fn) for child in reversed(child_nodes(fn))]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        stack.extend((child, node) for child in reversed(_children_run_in_eval(node)))


def _children_run_in_eval(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.If):
        training = True if _loss_branch(node) else _training_test(node.test)
        if training is True:  # `if self.training:` / `if cond and self.training:`
            return [node.test, *node.orelse]
        if training is False:  # `if not self.training:` ... else: <training only>
            return [node.test, *node.body]
    return child_nodes(node)


# Calls that tell the exporters apart while a model is exported (measured on torch 2.13): True
# under the dynamo exporter (torch.export) and False under the legacy one, or the reverse.
# torchvision's `_is_tracing()` is `torch._C._get_tracing_state()`, the TorchScript tracer's
# state, like torch.jit.is_tracing() (tests/test_export_guards.py measures all three).
TRUE_UNDER_DYNAMO_EXPORT = frozenset({
    "is_exporting", "is_compiling", "is_dynamo_compiling", "is_torchdynamo_exporting", "is_torchdynamo_compiling",
})
TRUE_UNDER_LEGACY_EXPORT = frozenset({"is_tracing", "_is_tracing", "_get_tracing_state"})
# True under both exporters while they trace (torch.onnx.__init__: the legacy exporter's
# GLOBALS.in_onnx_export or the dynamo exporter's _flags._is_onnx_exporting), False in eager:
# the body of `if not torch.onnx.is_in_onnx_export():` is never exported (the ONX522 helpers).
TRUE_UNDER_BOTH_EXPORTS = frozenset({"is_in_onnx_export"})
EXPORTERS = frozenset({"dynamo", "legacy"})


def exporters_skipping(node: ast.AST, ancestors: Iterable[ast.AST]) -> frozenset[str]:
    """Exporters under which ``node`` never runs, from the export guards around it: the body of
    `if not torch.compiler.is_exporting():` (or of `if torch.jit.is_tracing():`) is skipped by
    the dynamo exporter, the other branch by the legacy one, and so is the code after `if
    torchvision._is_tracing(): return ...`. ``ancestors``: innermost first."""
    skipped: set[str] = set()
    child = node
    for ancestor in ancestors:
        if isinstance(ancestor, (ast.If, ast.IfExp)):
            in_body = child in ancestor.body if isinstance(ancestor, ast.If) else child is ancestor.body
            in_else = child in ancestor.orelse if isinstance(ancestor, ast.If) else child is ancestor.orelse
            test = ancestor.test
            conjuncts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
            for conjunct in conjuncts if in_body else [test] if in_else else []:
                runs_under = _export_guard(conjunct)  # the exporters under which the test holds
                if runs_under is not None:
                    skipped.update(EXPORTERS - runs_under if in_body else runs_under)
        if isinstance(ancestor, ast.BoolOp) and child in ancestor.values:
            # `guard or check` (`assert torch.onnx.is_in_onnx_export() or n.item() <= k`): the
            # operands after a guard run only where it is false; after it in an `and`, true
            for earlier in ancestor.values[: ancestor.values.index(child)]:
                runs_under = _export_guard(earlier)
                if runs_under is not None:
                    skipped.update(runs_under if isinstance(ancestor.op, ast.Or) else EXPORTERS - runs_under)
        skipped.update(_skipped_by_early_exits(child, ancestor))
        child = ancestor
    return frozenset(skipped)


def _skipped_by_early_exits(statement: ast.AST, block_owner: ast.AST) -> Iterator[str]:
    """`if <guard>: ...; return ...` before ``statement`` in the same block: the statement runs
    only where the guard is false (as in an `else:`)."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(block_owner, name, None)
        if isinstance(block, list) and statement in block:
            for earlier in block[: block.index(statement)]:
                if isinstance(earlier, ast.If) and not earlier.orelse and _always_exits(earlier.body):
                    runs_under = _export_guard(earlier.test)
                    if runs_under is not None:
                        yield from runs_under
            return


def _always_exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def _export_guard(test: ast.expr) -> frozenset[str] | None:
    """The exporters under which ``test`` is true, for an export guard; None for other tests."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _export_guard(test.operand)
        return None if inner is None else EXPORTERS - inner
    if isinstance(test, ast.Call) and not test.args and not test.keywords:
        func = test.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name in TRUE_UNDER_DYNAMO_EXPORT:
            return frozenset({"dynamo"})
        if name in TRUE_UNDER_LEGACY_EXPORT:
            return frozenset({"legacy"})
        if name in TRUE_UNDER_BOTH_EXPORTS:
            return EXPORTERS
    return None


def in_training_only_code(node: ast.AST, ancestors: Iterable[ast.AST]) -> bool:
    """``node`` sits where only training (or loss, or scripting) code runs: the body of `if
    self.training:` or the `else` of `if not self.training:`. Models are exported in eval mode,
    so that code is never traced. ``ancestors``: innermost first."""
    child = node
    for ancestor in ancestors:
        if isinstance(ancestor, ast.If):
            training = True if _loss_branch(ancestor) else _training_test(ancestor.test)
            if (training is True and child in ancestor.body) or (training is False and child in ancestor.orelse):
                return True
        child = ancestor
    return False


def _training_test(test: ast.expr) -> bool | None:
    """True if the test can only hold in training mode (or while computing a loss, or under
    TorchScript scripting), False if only in eval mode."""
    if isinstance(test, ast.Attribute) and test.attr in ("training", "is_training"):
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


def _loss_branch(node: ast.If) -> bool:
    """`if future_values is not None: ... loss = ...` (TimesFM): a branch on an optional input
    that computes `loss` is the loss computation for targets, which an exported model is not
    given (like `if labels is not None:`, whatever the targets are called)."""
    test = node.test
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    ):
        return False
    stack = list(node.body)
    while stack:
        statement = stack.pop()
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        targets = ()
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            targets = (statement.target,)
        if any(isinstance(t, ast.Name) and t.id == "loss" for t in targets):
            return True
        stack.extend(child for child in ast.iter_child_nodes(statement) if isinstance(child, ast.stmt))
    return False


def _loss_only_test(test: ast.expr) -> bool:
    if isinstance(test, ast.Name) and test.id == "return_loss":
        return True
    return (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.left, ast.Name) and test.left.id == "labels"
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    )


def walk_function_body(fn: ast.AST) -> list[tuple[ast.AST, ast.AST | None]]:
    """_walk_with_lambdas, computed once per function node: reachability, the engine (parents,
    visitors) and rules all walk the same bodies, and walking is the bulk of a scan."""
    walked = getattr(fn, "_onnxfix_body", None)
    if walked is None:
        walked, fn._onnxfix_scope_nodes = _walk_function(fn)
        fn._onnxfix_body = walked
    return walked


def scope_of_function(fn: ast.AST, parent: Scope) -> Scope:
    """names.function_scope, its scope scan taken from the body walk's traversal."""
    walk_function_body(fn)
    return function_scope(fn, parent)


def _walk_function(fn: ast.AST) -> tuple[list, list]:
    """One traversal, two views of a function (both (node, parent) in walk order): its body
    as exported (_walk_with_lambdas: lambdas entered, training-only branches skipped) and its
    own scope (names.walk_scope: lambdas not entered, every branch), which
    names.function_scope scans for bindings."""
    body: list[tuple[ast.AST, ast.AST | None]] = []
    own: list[tuple[ast.AST, ast.AST | None]] = []
    stack = [(child, fn, False, False) for child in reversed(child_nodes(fn))]
    while stack:
        node, parent, in_lambda, in_training = stack.pop()
        if not in_lambda:
            own.append((node, parent))
        if not in_training:
            body.append((node, parent))
        kind = type(node)
        if kind in _NOT_ENTERED or (kind is ast.Lambda and in_training):
            continue
        children = child_nodes(node)
        if kind is ast.Lambda:
            in_lambda = True
        elif kind is ast.If and not in_training:
            run = {id(child) for child in _children_run_in_eval(node)}
            if len(run) != len(children):
                stack.extend((c, node, in_lambda, id(c) not in run) for c in reversed(children))
                continue
        stack.extend((c, node, in_lambda, in_training) for c in reversed(children))
    return body, own


_NOT_ENTERED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def in_training_branch(node: ast.AST, ctx) -> bool:
    """Inside `if self.training:` (or another training/loss-only branch, as reachability
    decides them): models are exported in eval mode, so that code is not traced."""
    return in_training_only_code(node, ctx.ancestors(node))
