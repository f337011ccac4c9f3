"""What a rule sees while it checks one export-time function."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterable

from onnxfix.rewriter.attr_changes import REBOUND
from onnxfix.rewriter.bindings import parameter_reaches
from onnxfix.rewriter.config_numbers import is_config_int, is_config_number
from onnxfix.rewriter.evidence import FunctionEvidence, Value
from onnxfix.rewriter.export_guards import skipped_at
from onnxfix.rewriter.file_view import FileContext, FileView
from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.integers import IntegerOracle, held_assuming_cycles, is_whole_shape
from onnxfix.rewriter.size_lists import never_written, sequence_of_sizes, unpacks_size_list
from onnxfix.rewriter.module_index import is_torch_module_qualname
from onnxfix.rewriter.none_defaults import without_defaulted_none
from onnxfix.rewriter.paths import shown
from onnxfix.rewriter.rule import Edit, Finding, Fix
from onnxfix.rewriter.call_modes import exporters_not_running
from onnxfix.rewriter.scope import ExportFunction, ExportScope
from onnxfix.rewriter.scripting import compiled_by_torchscript, not_scriptable, scripted_in_module, unbound_in_class
from onnxfix.rewriter.sizes import SizeOracle
from onnxfix.rewriter.tensors import TensorOracle
from onnxfix.rewriter.tree_walk import walk

if TYPE_CHECKING:
    from onnxfix.rewriter.rule import Rule


_OWN_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _bound_in(scope: ast.AST) -> set[str]:
    """Names local to a lambda (its parameters) or a comprehension (its targets; not a `:=`,
    which binds in the enclosing function)."""
    if isinstance(scope, ast.Lambda):
        args = scope.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
        return {a.arg for a in every}
    return {n.id for g in scope.generators for n in walk(g.target) if isinstance(n, ast.Name)}


def _evaluated_outside(scope: ast.AST, child: ast.AST, node: ast.AST) -> bool:
    """``node`` (reached through ``child``, a direct child of ``scope``) is evaluated in the
    scope around ``scope``: a lambda's default value, a comprehension's first iterable."""
    if isinstance(scope, ast.Lambda):
        return child is scope.args
    first = scope.generators[0]
    return child is first and any(n is node for n in walk(first.iter))


def _rebuilt_from(value: ast.AST, name: str) -> bool:
    """`tuple(int(x) for x in size)` (mmseg's resize), `tuple(size)`: the items of ``name`` again,
    each as it is or through `int()`, in a sequence nothing can write: the same sizes."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "tuple"
            and len(value.args) == 1 and not value.keywords):  # a list could be written in place afterwards
        return False
    inner = value.args[0]
    if isinstance(inner, ast.Name):
        return inner.id == name
    if not (isinstance(inner, (ast.GeneratorExp, ast.ListComp)) and len(inner.generators) == 1):
        return False
    loop = inner.generators[0]
    item = inner.elt
    if isinstance(item, ast.Call) and isinstance(item.func, ast.Name) and item.func.id == "int" and len(item.args) == 1:
        item = item.args[0]
    return (not loop.ifs and isinstance(loop.iter, ast.Name) and loop.iter.id == name and isinstance(loop.target, ast.Name)
            and isinstance(item, ast.Name) and item.id == loop.target.id)


class FunctionContext(FileView):
    def __init__(self, file: FileContext, fn: ExportFunction):
        self.file = file
        self.fn = fn
        self.scope = fn.scope
        self.parents: dict[int, ast.AST] = {}
        self.tensors = TensorOracle(self)
        self.sizes = SizeOracle(self)
        self.ints = IntegerOracle(self)  # int-valued / non-negative size expressions
        self.cache: dict = {}  # per-function analyses shared by the rules of one family
        self.outer_function: FunctionContext | None = None  # a nested function's enclosing one (engine._link_enclosing)
        # run-time evidence for this function (None: no run recorded it; rules stay static)
        self.evidence: FunctionEvidence | None = file.evidence.for_function(fn.node) if file.evidence else None
        if file.calls is not None:
            file.calls.register(self)

    # -- names -----------------------------------------------------------------------------
    def qualname(self, node: ast.AST) -> str | None:
        return self.scope.qualname(node)

    def module_alias(self, module: str) -> str | None:
        """The name this function can use for ``module`` (e.g. 'torch'), if one is bound."""
        for scope in _scope_chain(self.scope):
            for name, target in scope.imports.items():
                if target == module and self.scope.lookup(name) == module:
                    return name
        return None

    def module_name(self, module: str) -> tuple[str, tuple[str, ...]] | None:
        """How new code refers to ``module`` here and the imports that needs; None where the name
        is another value (a local `math = ...`, a parameter, `import numpy as math`)."""
        alias = self.module_alias(module)
        taken = not self.is_builtin(module) or any(isinstance(n, ast.Name) and n.id == module and not isinstance(
            n.ctx, ast.Load) or isinstance(n, ast.arg) and n.arg == module for n in walk(self.fn.node))
        return (alias, ()) if alias else None if taken else (module, (module,))

    def torch_name(self) -> tuple[str, tuple[str, ...]]:
        """How new code refers to torch here, and the imports that name needs."""
        alias = self.module_alias("torch")
        return (alias, ()) if alias else ("torch", ("torch",))

    def is_builtin(self, name: str) -> bool:
        """``name`` here is Python's builtin: not imported, assigned or defined in any enclosing
        scope (the one answer every rule asking "is this `len`/`int`/`zip`?" uses)."""
        scope = self.scope
        while scope is not None:
            if scope.is_local(name):
                return False
            scope = scope.parent
        return True

    @property
    def self_name(self) -> str | None:
        args = self.fn.node.args.posonlyargs + self.fn.node.args.args
        outer = self.outer_function
        if self.fn.cls is not None and outer is not None:
            # a function nested in a method reads the method's `self` as a closure (unless it binds
            # the name itself): the branches ONX613 makes functions, a hook defined in forward
            name = outer.self_name
            return name if name is not None and not self.is_parameter(name) and not self.assignments(name) else None
        if unbound_in_class(self.fn.node):
            return None  # a staticmethod or a ScriptFunction: its first parameter is an argument like the others
        return args[0].arg if self.fn.cls is not None and args else None

    def is_self_attr(self, node: ast.AST) -> bool:
        """``self.<attr>`` in a method (``self`` being this method's first parameter)."""
        return (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == self.self_name
            and self.fn.cls is not None
        )

    def self_attr_value(self, node: ast.AST) -> ast.expr | None:
        """What the class first assigns to ``self.<attr>`` (None for anything else): its initial
        value where forward rebinds it."""
        return self.fn.cls.self_attrs.get(node.attr) if self.is_self_attr(node) else None

    def only_self_attr_value(self, node: ast.AST) -> ast.expr | None:
        """What every assignment of ``self.<attr>`` in the class assigns, where they all assign the
        same (a layer or function chosen by a branch of __init__ is not the first one): None otherwise."""
        return self.fn.cls.only_self_attr(node.attr) if self.is_self_attr(node) else None

    def held_functions(self, node: ast.AST) -> list[str] | None:
        """The qualnames of the functions ``self.<attr>`` holds: __init__ binds it to one (`self.act =
        F.gelu`) or to a choice of them (Cellpose's `F.avg_pool3d if conv_3D else F.avg_pool2d`), and
        no other method rebinds it; None for anything else. A rule matches `self.<attr>(...)` through
        them as it matches the functions' own names."""
        value = self.only_self_attr_value(node)
        if value is None or REBOUND in self.file.module.changes_of(node.attr):
            return None
        choices = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
        names = [self.qualname(choice) if isinstance(choice, (ast.Attribute, ast.Name)) else None for choice in choices]
        return None if None in names else names

    def is_own_parameter(self, node: ast.AST) -> bool:
        """The module's own weights: a registered buffer or an ``nn.Parameter`` / ``nn.Buffer`` of
        ``self``, or ``.weight`` / ``.bias`` of one of its nn layers. Their shapes are model
        constants, whatever the inputs."""
        if not isinstance(node, ast.Attribute):
            return False
        if node.attr in ("weight", "bias") and self.is_nn_module_attr(node.value):
            return True
        if not self.is_self_attr(node):
            return False
        if node.attr in self.fn.cls.buffers:
            return True
        value = self.self_attr_value(node)
        return isinstance(value, ast.Call) and self.file.module.scope.qualname(value.func) in (
            "torch.nn.Parameter", "torch.nn.Buffer",
        )

    def is_nn_module_attr(self, node: ast.AST) -> bool:
        """``self.lin`` where __init__ assigned an nn.* module (or a module class of this file)."""
        value = self.self_attr_value(node)
        if not isinstance(value, ast.Call):
            return False
        qualname = self.file.module.scope.qualname(value.func)
        if qualname and is_torch_module_qualname(qualname):
            return True
        return isinstance(value.func, ast.Name) and value.func.id in self.file.module.classes

    def observed(self, node: ast.AST) -> frozenset[Value] | None:
        """The values a recorded run saw for ``node``: a local name (every value it held; a
        parameter read before any rebinding, the arguments passed), a
        returned expression (values returned at that line), or the value assigned to a name
        assigned only there. None without evidence or for any other expression."""
        evidence = self.evidence
        if evidence is None:
            return None
        if isinstance(node, ast.Name):
            evidence = self._evidence_of_name(node)
            if evidence is self.evidence and evidence.passed(node.id) and parameter_reaches(node, self):
                return evidence.passed(node.id)  # the argument as passed, whatever the body rebinds it to
            values = evidence.values(node.id) if evidence is not None else None
            return without_defaulted_none(node, values, self) if values and evidence is self.evidence else values
        parent = self.parent(node)
        if isinstance(parent, ast.Return) and parent.value is node:
            return evidence.returns.get(parent.lineno) or None
        if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1:
            target = parent.targets[0]
            if isinstance(target, ast.Name) and len(self.assignments(target.id)) == 1:
                return evidence.values(target.id)
        return None

    def _evidence_of_name(self, node: ast.Name) -> FunctionEvidence | None:
        """The record of the code object ``node`` is a local of: its inner scope's (a lambda,
        comprehension or generator expression runs as a code object of its own), else this
        function's."""
        scope = self.inner_scope(node)
        return self.evidence if scope is None else self.file.evidence.for_scope(scope)

    def inner_scope(self, node: ast.Name) -> ast.AST | None:
        """The innermost lambda, comprehension or generator expression of this function that
        binds ``node``'s name (a parameter, a loop target), None for the function's own names:
        `[t.data for t in packed]` is not about the `t = x` of the function. A comprehension's
        first iterable and a lambda's defaults are evaluated in the enclosing scope."""
        if not self._has_inner_scopes():
            return None
        child: ast.AST = node
        for scope in self.ancestors(node):
            if scope is self.fn.node:
                break
            if isinstance(scope, _OWN_SCOPES) and not _evaluated_outside(scope, child, node) \
                    and node.id in _bound_in(scope):
                return scope
            child = scope
        return None

    def _has_inner_scopes(self) -> bool:
        found = self.cache.get("inner scopes")
        if found is None:
            found = self.cache["inner scopes"] = any(
                isinstance(n, _OWN_SCOPES) for n, _ in walk_function_body(self.fn.node))
        return found

    # -- tree ------------------------------------------------------------------------------
    def with_parents(self) -> "FunctionContext":
        """This context with its parent links filled: the engine fills them before it runs the
        rules on the function, and a rule asking about another function (a callee) may ask first."""
        if not self.parents:
            for node, parent in walk_function_body(self.fn.node):
                self.parents[id(node)] = parent
        return self

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def ancestors(self, node: ast.AST) -> Iterable[ast.AST]:
        current = self.parent(node)
        while current is not None:
            yield current
            current = self.parent(current)

    def exporters_skipping(self, node: ast.AST) -> frozenset[str]:
        """export_guards.exporters_skipping of ``node``, memoised along its ancestors: a node's
        answer is its parent's plus the parent's guards on it, so each ancestor is judged once
        (asked node by node, a 1,500-term expression took 1,500 steps per term)."""
        known = self.cache.setdefault("exporters skipping", {})
        unknown, current = [], node
        while current is not None and id(current) not in known:
            unknown.append(current)
            current = self.parent(current)
        skipped = known[id(current)] if current is not None else frozenset()
        for child in reversed(unknown):
            parent = self.parent(child)
            if parent is not None:
                skipped = skipped | skipped_at(child, parent)
            known[id(child)] = skipped
        return known[id(node)]

    def enclosing(self, node: ast.AST) -> Iterable[ast.AST]:
        """The nodes around ``node`` in this function, from a parent map of the whole function
        (``ancestors`` knows only what the rules' walk has visited so far)."""
        parents = self.cache.get("whole parents")
        if parents is None:
            parents = self.cache["whole parents"] = {
                id(child): parent for parent in walk(self.fn.node) for child in ast.iter_child_nodes(parent)}
        current = parents.get(id(node))
        while current is not None:
            yield current
            current = parents.get(id(current))

    def assignments(self, name: str) -> list[ast.AST]:
        """Values assigned to ``name`` in this function; a tuple-unpacking target contributes
        the whole Assign node (the caller decides what the element is)."""
        return self.scope.assignments.get(name, [])

    @property
    def compiled_by_torchscript(self) -> bool:
        """This function is, or may be, compiled by TorchScript (rewriter/scope.py
        compiled_by_torchscript, scripted_in_module)."""
        return (compiled_by_torchscript(self.fn.node, self.fn.entry.modes)
                or scripted_in_module(self.fn.node, self.file.module.tree))

    def is_parameter(self, name: str) -> bool:
        args = self.fn.node.args
        return any(a.arg == name for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])

    def declared_outer(self, name: str) -> bool:
        """``global name`` / ``nonlocal name`` somewhere in the function: its bindings here are
        not the function's own."""
        return any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in walk(self.fn.node))

    def is_config_int(self, node: ast.AST, nonneg: bool = False) -> bool:
        """``self.<attr>`` an int of the model's configuration (config_numbers.is_config_int)."""
        return is_config_int(node, self, nonneg)

    def is_config_number(self, node: ast.AST) -> bool:
        """``self.<attr>`` a number of the model's configuration (config_numbers.is_config_number)."""
        return is_config_number(node, self)

    def annotated_int(self, name: str) -> bool:
        """A parameter annotated ``int`` (``kernel_size: int``): the author's contract, the
        evidence the integer rewrites take when no call site in the file proves it."""
        return self.annotation(name) == "int"

    def annotation(self, name: str) -> str | None:
        """The plain name a parameter is annotated with (``int``, ``"float"``), else None."""
        args = self.fn.node.args
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if a.arg == name:
                note = a.annotation
                if isinstance(note, ast.Name):
                    return note.id
                return note.value if isinstance(note, ast.Constant) and isinstance(note.value, str) else None
        return None

    def parameter_bindings(self, name: str) -> list[tuple["FunctionContext", ast.expr]] | None:
        """The arguments bound to parameter ``name`` at every call of this function in the file,
        each with its caller's context; None when some call is not known (rewriter/callsites.py)."""
        if self.file.calls is None or not self.is_parameter(name) or name == self.self_name:
            return None
        return self.file.calls.bindings(self.fn, name)

    def shape_element(self, name: str) -> bool:
        """``name`` is bound only as a comprehension (or ``for``) target running over the items
        of shapes: ``[int(t) for t in x.size()[2:]]``, ``for s, s0 in zip(new_size, old_size)``
        with both torch.Size values (a parameter: at every call site). Those items are ints >= 0."""
        return held_assuming_cycles(self.file.cycles, self.cache, ("shape_element", name),
                                    lambda: self._bound_to_shape_items(name))

    def _bound_to_shape_items(self, name: str) -> bool:
        loops = self.cache.get("loop_targets")
        if loops is None:  # name -> the comprehensions and `for` loops binding it, one walk per function
            loops = self.cache["loop_targets"] = {}
            for node in walk(self.fn.node):
                if isinstance(node, (ast.comprehension, ast.For)):
                    for target in walk(node.target):
                        if isinstance(target, ast.Name):
                            loops.setdefault(target.id, []).append(node)
        sources = loops.get(name, [])
        if not sources:
            return False
        return not self.is_parameter(name) and all(
            isinstance(v, (ast.For, ast.AsyncFor)) for v in self.assignments(name)
        ) and all(self._over_shape_items(node.target, node.iter, name) for node in sources)

    def _over_shape_items(self, target: ast.expr, iterable: ast.expr, name: str) -> bool:
        if isinstance(target, ast.Name):
            return target.id == name and self.is_shape_sequence(iterable)
        if (
            isinstance(target, ast.Tuple) and isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
            and iterable.func.id == "zip" and self.is_builtin("zip") and not iterable.keywords
            and len(iterable.args) == len(target.elts)
        ):
            return any(
                isinstance(t, ast.Name) and t.id == name and self.is_shape_sequence(arg)
                for t, arg in zip(target.elts, iterable.args)
            )
        return unpacks_size_list(self, target, iterable, name)  # for lvl, (h, w) in enumerate(spatial_shapes)

    def is_shape_sequence(self, node: ast.expr) -> bool:
        """A sequence of sizes: ``x.shape``, ``x.size()``, a slice of one, a list or tuple of one or
        mapping one to ints >= 0 (size_lists.sequence_of_sizes), or a name only ever bound to one
        and never written in place (a parameter: at every call site in the file)."""
        if not isinstance(node, ast.Name):
            return sequence_of_sizes(self, node)
        values = self.assignments(node.id)
        if self.is_parameter(node.id):  # (a list a caller passes: written here or not)
            return all(_rebuilt_from(v, node.id) for v in values) and never_written(self, node.id) and self.across_calls(
                "shape", node.id, lambda caller, arg: caller.is_shape_sequence(arg)
            )
        return bool(values) and held_assuming_cycles(
            self.file.cycles, self.cache, ("shape_sequence", node.id),
            lambda: all(isinstance(v, ast.expr) and sequence_of_sizes(self, v) for v in values) and (
                all(is_whole_shape(v) for v in values) or never_written(self, node.id)))  # a torch.Size: immutable

    def across_calls(self, kind: str, name: str, test) -> bool:
        """``test(caller_ctx, argument)`` holds for the argument at every call site binding
        parameter ``name`` (False when not known, and while the same question is being answered
        higher up: a recursive call proves nothing)."""
        bindings = self.parameter_bindings(name)
        if not bindings:
            return False
        key = (kind, id(self.fn.node), name)
        progress = self.file.calls.in_progress
        if key in progress:
            return False
        progress.add(key)
        try:
            return all(test(caller, argument) for caller, argument in bindings)
        finally:
            progress.discard(key)

    def dot_span(self, node: ast.Attribute, end_node: ast.AST | None = None) -> tuple[int, int]:
        """Span from the dot of ``value.attr`` to the end of ``end_node`` (default: the
        attribute): ``.numpy()`` of ``x.cpu().numpy()``. Robust to ``(a + b).attr``."""
        source = self.file.source
        value_end = source.span(node.value)[1]
        end = source.span(end_node or node)[1]
        return source.text.rfind(".", value_end, source.span(node)[1]), end

    def delete_suffix(self, node: ast.Attribute, end_node: ast.AST | None = None) -> Edit:
        start, end = self.dot_span(node, end_node)
        return Edit(start, end, "")

    # -- reporting -------------------------------------------------------------------------
    def report(self, rule: "Rule", node: ast.AST, message: str | None = None, fix: Fix | None = None,
               exporters: tuple[str, ...] | None = None, deferred_to: tuple[str, ast.AST] | None = None) -> Finding:
        """``deferred_to``: (code, node) of another rule's finding whose fix covers this one
        (Finding.deferred_to)."""
        entry = self.fn.entry
        reached = None
        if not self.fn.is_entry:
            where = shown(entry.path) if entry.path else self.file.display_path
            reached = f"{entry.qualname}, {where}:{entry.line}" if entry.line else entry.qualname
        # An export guard (`if not torch.compiler.is_exporting():` ...) keeps some exporters away
        # from the node, or from every call reaching the function; a finding left with none is
        # not reported.
        if fix is not None and self.compiled_by_torchscript and not_scriptable(fix):  # (HelmNet's @torch.jit.script)
            fix, message = None, f"{message or rule.summary}; no fix in a function TorchScript compiles (the fix is not TorchScript)"
        skipped = self.exporters_skipping(node)
        skipped |= exporters_not_running(self.fn.entry.modes, rule.python_hazard)
        exporters = tuple(e for e in exporters or rule.exporters if e not in skipped)
        return self._finding(rule, node, message, fix, exporters, reached, deferred_to)


class ModuleContext(FileView):
    """What a module-wide rule (``Rule.scope = "module"``) sees: the whole file, with the
    export-time functions found in it. Names resolve through the module's imports."""

    def __init__(self, file: FileContext, scope: ExportScope):
        self.file = file
        self.tree = file.module.tree
        self.export_functions = list(scope.in_module(file.module))

    def qualname(self, node: ast.AST) -> str | None:
        return self.file.module.scope.qualname(node)

    def report(self, rule: "Rule", node: ast.AST, message: str | None = None, fix: Fix | None = None,
               exporters: tuple[str, ...] | None = None) -> Finding:
        return self._finding(rule, node, message, fix, exporters)


def _scope_chain(scope):
    while scope is not None:
        yield scope
        scope = scope.parent


def builtin_call(node: ast.AST, ctx: "FunctionContext", names: frozenset[str]) -> str | None:
    """The name of a builtin from ``names`` called with plain positional arguments."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names):
        return None
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if not ctx.is_builtin(node.func.id):
        return None  # shadowed by an import or a local name
    return node.func.id

