"""What a parameter receives: the arguments passed to it at the call sites of its function.

``self.merge(tokens, H, W)`` with ``H, W`` taken from ``x.shape``, and inside the callee
``if H % 2 == 1:``: analysis of the callee alone cannot tell that ``H`` is a size. The oracles
(rewriter/tensors.py, sizes.py, integers.py) ask this index for the expressions a parameter is
bound to, and evaluate each in its caller's context (so a caller's own parameters resolve the
same way, transitively).

Soundness over reach: the answer is None (nothing known) unless *every* mention of the function
in the file is accounted for by a plain call, from an export-time function of this file, that
binds the parameter to an explicit argument. The calls are collected from the bodies the engine
walks anyway (function_body.py's walk_function_body of the file's export functions); that walk
skips training-only branches and other functions, so the check is a count: the function's name
must occur in the source text (strings included, comments not) exactly as often as its
definition(s) plus the calls found. Any other mention (a call from training code or another
function, the function passed as a value, a ``functools.partial``) makes the counts differ, and
nothing is known (a parameter's name, a keyword argument's and a read of a parameter are no
mentions). A call leaving out a parameter with a literal default (``chunk_size=64``) binds that
literal. A static method (or a class-body ``@torch.jit.script`` function) binds from its first
parameter. Calls with ``*args``/``**kwargs``, another default used, a class method or property, a
submodule reached other than by ``self.<attr>(...)``, a parameter whose type the function tests
(``isinstance``), and recursion prove nothing either. Calls from other files are
not seen: a helper imported and called elsewhere with other values is the known limit
(docs/rules-values.md). Static and torch-free.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import TYPE_CHECKING

from onnxfix.rewriter.comments import without_comments
from onnxfix.rewriter.constructed import iterated_attribute
from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.integers import is_whole_shape
from onnxfix.rewriter.scope import ExportFunction
from onnxfix.rewriter.scripting import unbound_in_class
from onnxfix.rewriter.signatures import passed_argument
from onnxfix.rewriter.tree_walk import walk

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

Binding = tuple["FunctionContext", ast.expr]
Calls = list[tuple[ast.Call, "FunctionContext"]]


class CallSites:
    def __init__(self, text: str, module):
        self.text = text
        self.module = module  # ModuleIndex: classes and their `self.<attr> = ...` values
        self.contexts: dict[int, "FunctionContext"] = {}  # id(function node) -> its context
        self._calls: tuple[dict[str, Calls], dict[str, Calls]] | None = None
        self._bindings: dict[tuple[int, str], list[Binding] | None] = {}
        self._words: Counter | None = None
        self._module_attrs: dict[str, Calls] = {}
        self.in_progress: set[tuple] = set()  # (oracle kind, function, parameter): cycles prove nothing

    def register(self, ctx: "FunctionContext") -> None:
        self.contexts[id(ctx.fn.node)] = ctx

    def _index(self) -> tuple[dict[str, Calls], dict[str, Calls]]:
        """Calls by called name (``f(...)``) and by attribute (``obj.f(...)``), in the export
        functions' bodies, with the calling function's context."""
        if self._calls is None:
            by_name: dict[str, Calls] = {}
            by_attr: dict[str, Calls] = {}
            for ctx in self.contexts.values():
                for node, _ in walk_function_body(ctx.fn.node):
                    if isinstance(node, ast.Call):
                        func = node.func
                        if isinstance(func, ast.Name):
                            by_name.setdefault(func.id, []).append((node, ctx))
                        elif isinstance(func, ast.Attribute):
                            by_attr.setdefault(func.attr, []).append((node, ctx))
            self._calls = (by_name, by_attr)
        return self._calls

    def mentions(self, name: str, expected: int) -> bool:
        """``name`` is mentioned exactly ``expected`` times in the file's text outside comments
        (`# Copied from ...Decoder._prepare_decoder_attention_mask` names a method and calls
        nothing) and docstrings (module, classes, functions and methods): the word count, an upper
        bound on the code's mentions. Another string naming it makes the count higher, and the
        answer False (conservative). Words that cannot name a function or method are not counted:
        a parameter's name, a keyword argument's, and a read of a parameter (ViT's
        `interpolate_pos_encoding=False` flag beside its `self.interpolate_pos_encoding(...)`)."""
        if self._words is None:
            self._words = Counter(re.findall(r"\w+", without_comments(self.text)))
            self._words.subtract(re.findall(r"\w+", " ".join(_docstrings(self.module.tree))))
            self._words.subtract(_parameter_words(self.module.tree))
        return self._words[name] == expected

    # -- bindings of one parameter --------------------------------------------------------------
    def bindings(self, fn: ExportFunction, name: str) -> list[Binding] | None:
        """(caller context, argument) for every call of ``fn`` in the file, or None when some
        mention of it is not such a call (see the module docstring)."""
        key = (id(fn.node), name)
        if key not in self._bindings:
            self._bindings[key] = self._compute(fn, name)
        return self._bindings[key]

    def some_bindings(self, fn: ExportFunction, name: str) -> list[Binding]:
        """The arguments the file's export-time calls of a module-level function bind to ``name``,
        without the proof that they are all of them (`bindings`): for a question answered by any
        one call (does some caller pass a size?), where the answer only selects a fix that is
        right whatever the value."""
        if fn.cls is not None:
            return []
        positional = _positional(fn.node)
        found = [(ctx, passed_argument(call, positional, name)) for call, ctx in self._index()[0].get(fn.node.name, [])]
        return [(ctx, argument) for ctx, argument in found if argument is not None]

    def call_count(self, fn: ExportFunction) -> int:
        """How many export-time calls of a module-level function the file makes."""
        return len(self._index()[0].get(fn.node.name, [])) if fn.cls is None else 0

    def _enclosing(self, fn: ExportFunction) -> "FunctionContext | None":
        """The context of the function ``fn`` is defined in (`Model.forward.scan`), if any."""
        parent_key = fn.key.rpartition(".")[0]
        return next((ctx for ctx in self.contexts.values() if ctx.fn.key == parent_key and ctx.fn.module is fn.module
                     and isinstance(ctx.fn.node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and any(n is fn.node for n in walk(ctx.fn.node))), None)

    def _compute(self, fn: ExportFunction, name: str) -> list[Binding] | None:
        node = fn.node
        if any(_simple_name(d) in ("classmethod", "property") for d in node.decorator_list):
            return None
        if node.name.startswith("__"):
            return None
        by_name, by_attr = self._index()
        is_method = fn.cls is not None and fn.cls.methods.get(node.name) is node
        enclosing = self._enclosing(fn)
        if enclosing is not None:  # a function defined in another: called there, by its name only
            calls = [(call, ctx) for call, ctx in by_name.get(node.name, []) if ctx is enclosing]
            # every mention in the enclosing function, its other nested functions and training
            # branches included (which the export-time walk skips): each must be one of those calls
            loads = sum(isinstance(n, ast.Name) and n.id == node.name for n in walk(enclosing.fn.node))
            if not calls or loads != len(calls):
                return None  # also called elsewhere, passed as a value, or rebound
            is_method = False
        elif is_method and node.name == "forward":
            if fn.cls.name not in self._module_attrs:
                self._module_attrs[fn.cls.name] = self._module_calls(fn)
            calls = self._module_attrs[fn.cls.name]
        elif is_method:
            # every `.name(...)` in the file counts (a superset of the true callers), and the
            # name must be mentioned by those calls and the methods' own definitions only
            calls = by_attr.get(node.name, [])
            defined = sum(1 for info in self.module.classes.values() if node.name in info.methods)
            if not calls or by_name.get(node.name) or not self.mentions(node.name, defined + len(calls)):
                return None
            calls = [(call, ctx) for call, ctx in calls if not _dispatched_elsewhere(call, ctx, fn)]
        elif fn.cls is None:
            calls = by_name.get(node.name, [])
            if not calls or not self.mentions(node.name, 1 + len(calls)):
                return None  # also defined, mentioned or called elsewhere
        else:
            return None
        if not calls:
            return None  # an entry point or called from elsewhere: its inputs are unknown
        positional = _positional(node)[1 if is_method and not unbound_in_class(node) else 0:]
        default = _literal_default(node, name)
        found: list[Binding] = []
        for call, ctx in calls:
            argument = passed_argument(call, positional, name) or default
            if argument is None:
                return None
            found.append((ctx, argument))
        tests = _type_tests(node, name)
        if tests and not _one_type(tests, [argument for _, argument in found]):
            return None  # `if not isinstance(start, torch.Tensor):` the parameter's type varies by branch
        return found

    def _holds_another(self, ctx, attr: str, class_name: str) -> bool:
        """The calling method's class stores something other than a ``class_name`` instance in its
        own ``self.<attr>``, and no class of the file derives from it (a subclass may store a
        ``class_name`` there and run the inherited method): its `self.<attr>(...)` calls that."""
        cls = ctx.fn.cls
        value = cls.self_attrs.get(attr) if cls is not None else None
        if value is None or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                             and value.func.id == class_name):
            return False
        return not any(_simple_name(base) == cls.name for info in self.module.classes.values()
                       for base in info.node.bases)

    def _module_calls(self, fn: ExportFunction) -> Calls:
        """Calls ``self.<attr>(...)`` of the attributes that hold an instance of ``fn``'s class,
        when the class is mentioned only by its definition and by constructions stored into
        ``self.<attr>`` (in ``__init__`` or another method), and each such attribute only by
        that store and by those calls."""
        class_name = fn.cls.name
        attributes = [
            attr for info in self.module.classes.values() for attr, value in info.self_attrs.items()
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == class_name
        ]
        containers = [
            attr for info in self.module.classes.values() for attr, value in info.self_attrs.items()
            if _module_list_of(value, class_name)
        ]
        if not attributes and not containers:
            return []
        by_name, by_attr = self._index()
        calls: Calls = []
        for attr in set(containers):  # `for layer in self.layers: layer(...)`, self.layers a ModuleList of them
            found = [(call, ctx) for name, named in by_name.items() for call, ctx in named
                     if _enclosing_element(call, name, ctx) == attr]
            loops = sum(1 for ctx in self.contexts.values() for node in walk(ctx.fn.node)
                        if isinstance(node, (ast.For, ast.comprehension)) and attr in _attributes_read(node.iter))
            if not found or not self.mentions(attr, containers.count(attr) + loops):
                return []  # `self.layers[0](x)`, `len(self.layers)`, passed on: not every call is known
            calls.extend(found)
        for attr in set(attributes):
            found = by_attr.get(attr, [])
            if not found or any(not (isinstance(c.func.value, ast.Name) and c.func.value.id == "self") for c, _ in found):
                return []
            # every class's own `self.<attr> = ...` counts as a mention (HRFormer's block holds its
            # window attention in `self.attn`, which holds an nn.MultiheadAttention in its own)
            stores = sum(1 for info in self.module.classes.values() if attr in info.self_attrs)
            if not self.mentions(attr, stores + len(found)):
                return []  # `self.<attr>` iterated, passed on, called from training code, ...
            calls.extend((call, ctx) for call, ctx in found if not self._holds_another(ctx, attr, class_name))
        constructions = sum(_module_list_size(info.self_attrs[attr], class_name) for info in self.module.classes.values()
                            for attr in info.self_attrs if attr in containers)
        supers = sum(1 for n in walk(fn.cls.node) if _old_style_super(n, class_name))
        if not self.mentions(class_name, 1 + len(attributes) + constructions + supers):
            return []  # also constructed or referenced elsewhere (a factory, a type check)
        return calls


_MODULE_LISTS = frozenset({"ModuleList", "Sequential"})


def _module_list_of(value: ast.AST, class_name: str) -> bool:
    """`nn.ModuleList([Block(...) for _ in range(n)])` / `nn.ModuleList([Block(a), Block(b)])`:
    a container holding instances of ``class_name`` only."""
    if not (isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in _MODULE_LISTS:
        return False
    items = value.args[0]
    if isinstance(items, (ast.ListComp, ast.GeneratorExp)):
        elements = [items.elt]
    elif isinstance(items, (ast.List, ast.Tuple)):
        elements = list(items.elts)
    else:
        return False
    return bool(elements) and all(
        isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == class_name for e in elements)


def _enclosing_element(call: ast.Call, name: str, ctx) -> str | None:
    """`attr` when the call's ``name`` is the target of the innermost loop around the call that binds
    it, iterating `self.attr` (also through enumerate / reversed), and nothing else binds it."""
    if any(not isinstance(v, ast.For) for v in ctx.assignments(name)):
        return None  # also assigned: which value a call sees depends on the order
    for ancestor in ctx.enclosing(call):
        loops = [ancestor] if isinstance(ancestor, ast.For) else list(ancestor.generators) if isinstance(
            ancestor, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)) else []
        for loop in loops:
            if any(isinstance(t, ast.Name) and t.id == name for t in walk(loop.target)):
                return iterated_attribute(loop.iter, loop.target, name, ctx.self_name)
    return None


def _old_style_super(node: ast.AST, class_name: str) -> bool:
    """`super(ClassName, self)` in the class's own methods: a mention that constructs nothing."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
            and len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == class_name)


def _module_list_size(value: ast.AST, class_name: str) -> int:
    """How many times the container's construction names the class (`[Block(), Block()]`: 2)."""
    if not _module_list_of(value, class_name):
        return 0
    return sum(1 for n in walk(value) if isinstance(n, ast.Name) and n.id == class_name)


def _attributes_read(node: ast.AST) -> set[str]:
    return {n.attr for n in walk(node) if isinstance(n, ast.Attribute)}


def _dispatched_elsewhere(call: ast.Call, ctx, fn: ExportFunction) -> bool:
    """`self.name(...)` in a method of another class that defines `name` itself (Swin's three
    `maybe_pad` methods): that class's method runs there, not ``fn``."""
    receiver, cls = call.func.value, ctx.fn.cls
    return (
        isinstance(receiver, ast.Name) and receiver.id == ctx.self_name and cls is not None
        and cls.name != fn.cls.name and call.func.attr in cls.methods
    )


def _parameter_words(tree: ast.Module) -> Counter:
    """The parameter names, keyword argument names and reads or stores of a parameter in the body
    of its function (nested functions' bodies included) in the module. A function's defaults,
    annotations and decorators are read where it is defined (`def other(t, helper=helper):` passes
    the module's `helper`), and a name a function declares `global` or `nonlocal` is not its own."""
    found: Counter = Counter()

    def visit(node: ast.AST, parameters: frozenset[str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            own = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
            found.update(own)
            declared = {name for n in walk(node) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
            inner = (parameters | own) - declared
            body = node.body if isinstance(node.body, list) else [node.body]
            for child in ast.iter_child_nodes(node):
                if child is not args:
                    visit(child, inner if any(child is b for b in body) else parameters)
            for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
                visit(default, parameters)
            return
        if isinstance(node, ast.keyword) and node.arg:
            found[node.arg] += 1
        elif isinstance(node, ast.Name) and node.id in parameters:
            found[node.id] += 1
        elif isinstance(node, ast.ClassDef):
            parameters = frozenset()  # a class body's names are its own (`forward = ...` aliases)
        for child in ast.iter_child_nodes(node):
            visit(child, parameters)

    visit(tree, frozenset())
    return found


def _docstrings(tree: ast.Module):
    bodies = [tree.body]
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bodies.append(node.body)
            bodies.extend(m.body for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bodies.append(node.body)
    for body in bodies:
        first = body[0] if body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            yield first.value.value


TYPE_TESTS = frozenset({"isinstance", "type", "is_tensor"})


def _type_tests(fn: ast.AST, name: str) -> list[ast.Call]:
    """``isinstance(name, ...)``, ``type(name)``, ``torch.is_tensor(name)`` in ``fn``: code
    written for several types of the parameter, where one type for the whole body is wrong."""
    return [node for node, _ in walk_function_body(fn)
            if isinstance(node, ast.Call) and _simple_name(node) in TYPE_TESTS and node.args
            and isinstance(node.args[0], ast.Name) and node.args[0].id == name]


def _one_type(tests: list[ast.Call], arguments: list[ast.expr]) -> bool:
    """Every call passes a value of one type, so each type test gives one answer for them all:
    a whole shape where the tests are `isinstance(size, torch.Size)` (mmseg), or a literal of one
    kind (DETR's `target_sizes=[(height, width)]` before `if isinstance(target_sizes, List):`)."""
    if all(_size_test(t) for t in tests) and all(is_whole_shape(a) for a in arguments):
        return True
    kinds = {type(a) for a in arguments}
    return len(kinds) == 1 and kinds.pop() in (ast.List, ast.Tuple, ast.Dict, ast.Set)


def _size_test(test: ast.Call) -> bool:
    """`isinstance(size, torch.Size)`: a test every whole shape passes."""
    return (_simple_name(test) == "isinstance" and len(test.args) == 2
            and ast.unparse(test.args[1]) in ("torch.Size", "Size"))


def _simple_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _positional(node: ast.AST) -> list[str]:
    return [a.arg for a in [*node.args.posonlyargs, *node.args.args]]


def _literal_default(node: ast.FunctionDef, name: str) -> ast.Constant | None:
    """The parameter's default when it is a literal (`chunk_size=64`): what a call that leaves it out
    binds (a default of another kind is evaluated where the function is defined: not known here)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    default = next((d for a, d in pairs if a.arg == name), None)
    return default if isinstance(default, ast.Constant) else None
