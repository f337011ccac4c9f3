"""One file as reachability sees it: its classes (methods, ``self.<attr>`` assignments, buffers)
and functions (``ModuleIndex``), and the ``Resolver`` that answers for names imported from other
files (the single-file resolver answers none, the project resolver follows imports across the
scanned tree). scope.py builds the export-time scope from these.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Protocol

from onnxfix.rewriter.attr_changes import attribute_changes
from onnxfix.rewriter.names import FUNCTION_NODES, Scope, module_scope, walk_scope
from onnxfix.rewriter.tree_walk import walk

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
        self._attrs: tuple[dict[str, ast.expr], dict[str, ast.expr], dict[str, list[ast.expr]]] | None = None
        self._writers: dict[str, list[str]] | None = None

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def self_attrs(self) -> dict[str, ast.expr]:
        """self.<attr> = <value> assignments found in any method (first one wins)."""
        return self._scan()[0]

    def only_self_attr(self, attr: str) -> ast.expr | None:
        """The value every `self.<attr> = <value>` of the class stores, when they all store the same
        text (MMAction2's `if spatial_pool_type == 'avg': self.pool = nn.AdaptiveAvgPool3d(...)
        else: self.pool = nn.AdaptiveMaxPool3d(...)`: which one runs is the config's, not the
        first line's); None where they differ or there is none."""
        values = self._scan()[2].get(attr, [])
        if not values or any(ast.dump(v) != ast.dump(values[0]) for v in values[1:]):
            return None
        return values[0]

    @property
    def buffers(self) -> set[str]:
        return set(self._scan()[1])

    @property
    def buffer_values(self) -> dict[str, ast.expr]:
        """register_buffer("<name>", <value>) calls found in any method (first one wins)."""
        return self._scan()[1]

    def writers(self, attr: str) -> list[str]:
        """The methods that store `<obj>.<attr>` or register it as a buffer, once per store (a
        method storing it twice is listed twice): who can rebind a model attribute."""
        if self._writers is None:
            self._writers = _attribute_writers(self.node)
        return self._writers.get(attr, [])

    def _scan(self) -> tuple[dict[str, ast.expr], dict[str, ast.expr], dict[str, list[ast.expr]]]:
        if self._attrs is None:
            self._attrs = _self_assignments(self.methods)
        return self._attrs


def class_info(node: ast.ClassDef) -> ClassInfo:
    """The class's methods by name, aliases in its body included (mmdetection's detectors:
    `forward = simple_test` after `def simple_test(...)`)."""
    methods: dict[str, ast.FunctionDef] = {}
    for statement in node.body:
        if isinstance(statement, FUNCTION_NODES):
            methods[statement.name] = statement
        elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name) and statement.value.id in methods:
            methods.update((t.id, methods[statement.value.id]) for t in statement.targets if isinstance(t, ast.Name))
    return ClassInfo(node, methods)


def _self_assignments(methods: dict[str, ast.FunctionDef]) \
        -> tuple[dict[str, ast.expr], dict[str, ast.expr], dict[str, list[ast.expr]]]:
    self_attrs: dict[str, ast.expr] = {}
    buffers: dict[str, ast.expr] = {}
    stored: dict[str, list[ast.expr]] = {}
    for method in methods.values():
        if not method.args.args:
            continue
        self_name = method.args.args[0].arg
        for statement in _statements(method.body):
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if _is_self_attr(target, self_name):
                        self_attrs.setdefault(target.attr, statement.value)
                        stored.setdefault(target.attr, []).append(statement.value)
            elif isinstance(statement, ast.Expr) and _is_register_buffer(statement.value):
                args = statement.value.args
                if isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
                    buffers.setdefault(args[0].value, args[1] if len(args) > 1 else args[0])
    return self_attrs, buffers, stored


def _attribute_writers(cls: ast.ClassDef) -> dict[str, list[str]]:
    """Every def of the class body, also under `if` and a property's getter beside its setter
    (``ClassInfo.methods`` keeps one def per name); a def nested in a method counts under its own
    name (not `__init__`'s)."""
    writers: dict[str, list[str]] = {}
    for method in (n for n in walk(cls) if isinstance(n, FUNCTION_NODES)):
        for node, _ in walk_scope(method):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
                writers.setdefault(node.attr, []).append(method.name)
            elif _is_register_buffer(node) and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                writers.setdefault(node.args[0].value, []).append(method.name)
    return writers


def module_statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """The module's own statements, also those in its `if` / `try` / `with` blocks (ReXNet's `if
    USE_MEMORY_EFFICIENT_SWISH:` defining its autograd Function, a `try: import ... except
    ImportError:` fallback def): definitions there are module-level ones. Not inside defs."""
    for statement in tree.body:
        yield from _block_statements(statement)


def _block_statements(statement: ast.stmt) -> Iterator[ast.stmt]:
    yield statement
    if isinstance(statement, (ast.If, ast.Try, ast.With, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))):
        for block in ("body", "orelse", "finalbody"):
            for inner in getattr(statement, block, None) or ():
                yield from _block_statements(inner)
        for handler in getattr(statement, "handlers", None) or ():
            for inner in handler.body:
                yield from _block_statements(inner)


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


def _names_bound(node: ast.AST) -> list[str]:
    """The names one node of a scope binds."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return [node.id]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
        return [node.name]
    return []


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
    _constants: dict[type, dict[str, object]] = field(default_factory=dict, repr=False, compare=False)
    _changes: dict[str, set[str]] | None = field(default=None, repr=False, compare=False)
    _bound: tuple[dict[str, list[ast.AST]], set[str]] | None = field(default=None, repr=False, compare=False)
    _instance_forwards: frozenset[str] | None = field(default=None, repr=False, compare=False)

    def changes_of(self, attr: str) -> set[str]:
        """How functions of this file change `<x>.<attr>` (rewriter/attr_changes.py)."""
        if self._changes is None:
            self._changes = attribute_changes(self.tree)
        return self._changes.get(attr, set())

    @property
    def identity(self) -> str:
        """What Entry.path holds: independent of the working directory, so a reach map cached
        by a run from another folder still names the same files."""
        return self.file or self.path

    def constant_int(self, name: str) -> int | None:
        """The value of a module-level `NAME = 32`: its only binding at module scope (imports,
        `if`/`try` blocks, loops, definitions included) an int literal assigned at the top
        level, and never declared `global` in a function (which could rebind it)."""
        return self._literal_constants(int).get(name)

    def constant_bool(self, name: str) -> bool | None:
        """The value of a module-level `MASK_FALSE = False`, bound as `constant_int`'s are."""
        return self._literal_constants(bool).get(name)

    def _literal_constants(self, kind: type) -> dict[str, object]:
        if kind not in self._constants:
            bound, rebound = self._bindings()
            literals = {  # the target of a top-level `NAME = <literal of the kind>` -> its value
                id(s.targets[0]): s.value.value for s in self.tree.body
                if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                and isinstance(s.value, ast.Constant) and type(s.value.value) is kind
            }
            self._constants[kind] = {n: literals[id(b[0])] for n, b in bound.items()
                                     if len(b) == 1 and n not in rebound and id(b[0]) in literals}
        return self._constants[kind]

    def global_value(self, name: str) -> ast.expr | None:
        """The value of a top-level `name = <value>`, the module's only binding of ``name`` (no
        function declares it `global`); None otherwise."""
        bound, rebound = self._bindings()
        nodes = bound.get(name, ())
        if len(nodes) != 1 or name in rebound:
            return None
        return next((s.value for s in self.tree.body if isinstance(s, ast.Assign) and s.targets == [nodes[0]]), None)

    def bound_once(self, name: str) -> bool:
        """The module binds ``name`` by one statement of its own scope (a class not re-imported or
        reassigned under the same name) and no function declares it `global`."""
        bound, rebound = self._bindings()
        return len(bound.get(name, ())) == 1 and name not in rebound

    def _bindings(self) -> tuple[dict[str, list[ast.AST]], set[str]]:
        """(name -> the nodes of the module's own scope binding it, names declared `global`)."""
        if self._bound is None:
            bound: dict[str, list[ast.AST]] = {}
            for node, _ in walk_scope(self.tree):  # the module's own scope: not inside functions or classes
                for bound_name in _names_bound(node):
                    bound.setdefault(bound_name, []).append(node)
            rebound = {n for node in walk(self.tree) if isinstance(node, ast.Global) for n in node.names}
            self._bound = (bound, rebound)
        return self._bound

    def instance_forwards(self) -> frozenset[str]:
        """Method names some code of the file sets as an instance's forward (diffusers' export
        scripts: `checker.forward = checker.forward_onnx`; NeMo's `_prepare_for_export`:
        `self.forward = self.forward_for_export`): calling that module runs the method, so it is
        export-time code. Statements only are walked (no expression holds an assignment)."""
        if self._instance_forwards is None:
            names = set()
            for node in _all_statements(self.tree.body):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and any(
                        isinstance(t, ast.Attribute) and t.attr == "forward" for t in node.targets):
                    names.add(node.value.attr)
            self._instance_forwards = frozenset(names)
        return self._instance_forwards

    @classmethod
    def build(cls, tree: ast.Module, path: str = "", package: str | None = None, file: str = "") -> "ModuleIndex":
        # the first definition of a name wins (an `if`'s before its `else`'s)
        classes, functions = {}, {}
        for n in module_statements(tree):
            if isinstance(n, ast.ClassDef):
                classes.setdefault(n.name, class_info(n))
            elif isinstance(n, FUNCTION_NODES):
                functions.setdefault(n.name, n)
        return cls(tree, module_scope(tree, package), classes, functions, path, file)


def _all_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body``, in nested blocks, functions and classes too."""
    for statement in _statements(body):
        yield statement
        if isinstance(statement, (*FUNCTION_NODES, ast.ClassDef)):
            yield from _all_statements(statement.body)


class Resolver(Protocol):
    """Answers for names bound by imports from other files (issue: cross-file analysis)."""

    def external_class(self, qualname: str) -> tuple["ModuleIndex", ClassInfo] | None: ...

    def external_function(self, qualname: str) -> tuple["ModuleIndex", ast.FunctionDef] | None: ...


class NoResolver:
    def external_class(self, qualname: str):
        return None

    def external_function(self, qualname: str):
        return None
