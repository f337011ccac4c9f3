"""What a parameter receives: the arguments passed to it at the call sites of its function.

``self.merge(tokens, H, W)`` with ``H, W`` taken from ``x.shape``, and inside the callee
``if H % 2 == 1:``: analysis of the callee alone cannot tell that ``H`` is a size. The oracles of
rewriter/tensors.py ask this index for the expressions a parameter is bound to, and evaluate
each in its caller's context (so a caller's own parameters resolve the same way, transitively).

Soundness over reach: the answer is None (nothing known) unless *every* call of the function in
the file is a plain call from an export-time function of this file that binds the parameter to
an explicit argument. A function also referenced other than by a call (passed as a value, a
``functools.partial``, a module attribute held elsewhere), called with ``*args``/``**kwargs``, a
decorated function, or a module class constructed other than into ``self.<attr> = Class(...)``
and called other than ``self.<attr>(...)``, gets None. Calls from other files are not seen: a
helper imported and called elsewhere with other values is the known limit (docs/rules-values.md).
Static and torch-free; one walk of the file, built on first use.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.scope import FUNCTION_NODES, ExportFunction, walk_function_body

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

Binding = tuple["FunctionContext", ast.expr]


class CallSites:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.contexts: dict[int, "FunctionContext"] = {}  # id(function node) -> its context
        self._index: dict | None = None
        self._bindings: dict[tuple[int, str], list[Binding] | None] = {}
        self.in_progress: set[tuple] = set()  # (oracle kind, function, parameter): cycles prove nothing

    def register(self, ctx: "FunctionContext") -> None:
        self.contexts[id(ctx.fn.node)] = ctx

    # -- the index: every call and every other reference, by name, with the function holding it ----
    def _build(self) -> dict:
        name_calls: dict[str, list[tuple[ast.Call, ast.AST | None]]] = {}
        attr_calls: dict[str, list[tuple[ast.Call, ast.AST | None]]] = {}
        other_names: set[str] = set()
        other_attrs: set[str] = set()
        definitions: dict[str, int] = {}
        stored: dict[int, str] = {}  # id(call) -> attr, for `self.<attr> = <call>`

        def visit(scope: ast.AST, owner: ast.AST | None) -> None:
            called: set[int] = set()
            nodes = list(_walk_all(scope))
            for node, _ in nodes:
                if isinstance(node, FUNCTION_NODES) and node is not scope:
                    definitions[node.name] = definitions.get(node.name, 0) + 1
                    visit(node, node)
                elif isinstance(node, ast.Lambda):
                    visit(node, None)  # its parameters are not the function's names
                elif isinstance(node, ast.ClassDef):
                    for statement in node.body:
                        if isinstance(statement, FUNCTION_NODES):
                            definitions[statement.name] = definitions.get(statement.name, 0) + 1
                            visit(statement, statement)
                        else:
                            visit_statement(statement, owner=None)
                elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1:
                    target = node.targets[0]
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                        stored[id(node.value)] = target.attr
                if isinstance(node, ast.Call):
                    called.add(id(node.func))
                    if isinstance(node.func, ast.Name):
                        name_calls.setdefault(node.func.id, []).append((node, owner))
                    elif isinstance(node.func, ast.Attribute):
                        attr_calls.setdefault(node.func.attr, []).append((node, owner))
            for node, _ in nodes:
                if id(node) in called:
                    continue
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    other_names.add(node.id)
                elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store):
                    other_attrs.add(node.attr)

        def visit_statement(statement: ast.stmt, owner) -> None:
            wrapper = ast.Module(body=[statement], type_ignores=[])
            visit(wrapper, owner)

        visit(self.tree, None)
        return {
            "name_calls": name_calls, "attr_calls": attr_calls, "other_names": other_names,
            "other_attrs": other_attrs, "definitions": definitions, "stored": stored,
        }

    @property
    def index(self) -> dict:
        if self._index is None:
            self._index = self._build()
        return self._index

    # -- bindings of one parameter --------------------------------------------------------------
    def bindings(self, fn: ExportFunction, name: str) -> list[Binding] | None:
        """(caller context, argument) for every call of ``fn`` in the file, or None when some
        call is not known (see the module docstring)."""
        key = (id(fn.node), name)
        if key not in self._bindings:
            self._bindings[key] = self._compute(fn, name)
        return self._bindings[key]

    def _compute(self, fn: ExportFunction, name: str) -> list[Binding] | None:
        node = fn.node
        if any(_simple_name(d) in ("staticmethod", "classmethod", "property") for d in node.decorator_list):
            return None
        index = self.index
        is_method = fn.cls is not None and fn.cls.methods.get(node.name) is node
        if not is_method and index["definitions"].get(node.name, 0) != 1:
            return None  # two functions of that name: calls cannot be told apart by name
        # (methods: every `.name(...)` call in the file counts, a superset of the true callers)
        if is_method and node.name == "forward":
            calls = self._module_calls(fn)
            skip = 1
        elif is_method:
            if node.name in index["other_attrs"] or node.name.startswith("__"):
                return None
            calls = index["attr_calls"].get(node.name, [])
            skip = 1
        elif fn.cls is None:
            if node.name in index["other_names"] or node.name in index["other_attrs"]:
                return None
            calls = index["name_calls"].get(node.name, [])
            skip = 0
        else:
            return None
        if not calls:
            return None  # an entry point or called from elsewhere: its inputs are unknown
        if _type_tested(node, name):
            return None  # `if not isinstance(start, torch.Tensor):` the parameter's type varies by branch
        positional = _positional(node)[skip:]
        found: list[Binding] = []
        for call, owner in calls:
            ctx = self.contexts.get(id(owner)) if owner is not None else None
            if ctx is None:
                return None  # a call from code that does not run at export (or at module level)
            argument = _argument(call, positional, name, node)
            if argument is None:
                return None
            found.append((ctx, argument))
        return found

    def _module_calls(self, fn: ExportFunction) -> list[tuple[ast.Call, ast.AST | None]] | None:
        """Calls ``self.<attr>(...)`` of the attributes that hold an instance of ``fn``'s class,
        when the class is only ever constructed into such attributes and those attributes are
        only ever called."""
        class_name = fn.cls.name
        index = self.index
        if class_name in index["other_names"]:
            return []  # referenced as a value (a factory, a type check): calls not known
        constructions = index["name_calls"].get(class_name, [])
        attributes: set[str] = set()
        for call, _ in constructions:
            attribute = index["stored"].get(id(call))
            if attribute is None:
                return []
            attributes.add(attribute)
        calls = []
        for attribute in attributes:
            if attribute in index["other_attrs"]:
                return []  # `self.<attr>` used other than by a call (iterated, passed on)
            calls.extend(
                (call, owner) for call, owner in index["attr_calls"].get(attribute, [])
                if isinstance(call.func.value, ast.Name) and call.func.value.id == "self"
            )
            if any(
                not (isinstance(call.func.value, ast.Name) and call.func.value.id == "self")
                for call, _ in index["attr_calls"].get(attribute, [])
            ):
                return []
        return calls


def _walk_all(scope: ast.AST):
    """(node, parent) in one scope, training-only branches included (a call there still binds
    the parameter, and a fix changes that call too); nested functions, classes and lambdas are
    yielded, not entered."""
    stack = [(child, scope) for child in reversed(list(ast.iter_child_nodes(scope)))]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        if isinstance(node, (*FUNCTION_NODES, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend((child, node) for child in reversed(list(ast.iter_child_nodes(node))))


TYPE_TESTS = frozenset({"isinstance", "type", "is_tensor", "_is_tracing", "is_scripting"})


def _type_tested(fn: ast.AST, name: str) -> bool:
    """``isinstance(name, ...)``, ``type(name)``, ``torch.is_tensor(name)`` in ``fn``: code
    written for several types of the parameter, where one type for the whole body is wrong."""
    for node, _ in walk_function_body(fn):
        if isinstance(node, ast.Call) and _simple_name(node) in TYPE_TESTS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id == name:
                return True
    return False


def _simple_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _positional(node: ast.AST) -> list[str]:
    return [a.arg for a in [*node.args.posonlyargs, *node.args.args]]


def _argument(call: ast.Call, positional: list[str], name: str, node: ast.AST) -> ast.expr | None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    if name in positional:
        position = positional.index(name)
        if position < len(call.args):
            return call.args[position]
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None  # the default: not an argument of the caller's
