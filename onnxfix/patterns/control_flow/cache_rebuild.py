"""ONX609's cache rebuilt in forward: which module attribute an `if` rebuilds, and whether the
body is a pure rebuild of a cache (a table computed from the sizes it is compared with) rather
than other module state (a layer built lazily, a counter, an extended cache, a reset)."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.module_index import is_torch_module_qualname
from onnxfix.rewriter.tree_walk import walk


def rebuilt_attribute(node: ast.If, ctx: FunctionContext) -> str | None:
    """The cached `self.X` an `if` rebuilds: its body only stores module attributes (`self.X = f(...)`,
    `self.grid[i] = ...`) or calls the model's code that does (`self.create_grids(...)`,
    `create_grids(self, ...)`), the test reads something it stores, and something it stores is read
    after the `if` (YOLOv3 tests `self.nx` and reads `self.grid_xy`)."""
    stored: set[str] = set()
    for statement in node.body:
        found = _stored_attributes(statement, ctx)
        if found is None:
            return None
        stored |= found
    read = {n.attr for n in walk(node.test) if isinstance(n, ast.Attribute) and ctx.is_self_attr(n)}
    if not stored & read or _not_a_pure_rebuild(node, stored, ctx):
        return None
    # the table, not the key stored beside it (ESM's `self._seq_len_cached = seq_len`): a
    # running maximum or a counter alone is state, not a cache
    tables = stored - _key_attributes(node, ctx)
    # the attribute the test reads first (YOLOv5's `self.grid`, not a counter rebuilt beside it)
    return next((a for a in [*sorted(tables & read), *sorted(tables - read)] if used_after(node, a, ctx)), None)


def _not_a_pure_rebuild(node: ast.If, stored: set[str], ctx: FunctionContext) -> bool:
    """The body builds a layer (a lazy `self.proj = nn.Linear(...)`: rebuilt under export it would
    be a new, random one), reads what it stores before storing it (an extended cache's
    `torch.cat([self.pe, extra])`, a counter's `self.n + 1`: the value depends on earlier calls), or
    stores a value that is neither the compared key nor computed in the body by a call or from its
    locals (`self.state = self.zero`, a reset): then forcing it under export changes the module's state, not a cache."""
    targets = {id(n) for statement in node.body if isinstance(statement, ast.Assign)
               for target in statement.targets for n in walk(target)}
    for n in (n for statement in node.body for n in walk(statement)):
        if isinstance(n, ast.Attribute) and id(n) not in targets and ctx.is_self_attr(n) and n.attr in stored:
            return True
        if isinstance(n, ast.Call) and _constructs_module(n, ctx):
            return True
    locals_ = {t.id for statement in node.body if isinstance(statement, ast.Assign)
               for t in statement.targets if isinstance(t, ast.Name)}
    for statement in node.body:
        if (isinstance(statement, ast.Assign) and not isinstance(statement.value, ast.Call)
                and _plain_attribute_targets(statement.targets[0], ctx)
                and not _key_value(statement.value, node.test, ctx)
                and not any(isinstance(n, ast.Call) for n in walk(statement.value))
                and not {n.id for n in walk(statement.value) if isinstance(n, ast.Name)} & locals_):
            return True
    return False


def _key_attributes(node: ast.If, ctx: FunctionContext) -> set[str]:
    """Attributes the body stores the compared size in (`self._seq_len_cached = seq_len`)."""
    return {t.attr for statement in node.body if isinstance(statement, ast.Assign)
            for t in statement.targets if ctx.is_self_attr(t) and _key_value(statement.value, node.test, ctx)}


def _key_value(value: ast.expr, test: ast.expr, ctx: FunctionContext) -> bool:
    """A size, or an expression the test compares (`seq_len`, `shape`)."""
    segment = ctx.segment(value)
    return ctx.sizes.is_size(value) or any(ctx.segment(n) == segment for n in walk(test) if isinstance(n, ast.expr))


def _constructs_module(call: ast.Call, ctx: FunctionContext) -> bool:
    """`nn.Linear(...)`, or a class of the file: a layer built in forward."""
    if is_torch_module_qualname(ctx.qualname(call.func) or ""):
        return True
    return isinstance(call.func, ast.Name) and call.func.id in ctx.file.module.classes

def _stored_attributes(statement: ast.stmt, ctx: FunctionContext) -> set[str] | None:
    """What one statement of a rebuild stores on the module; None for any other statement. A
    local name the rebuild computes on the way (ESM's rotary `t = torch.arange(...)`, `emb = ...`)
    stores nothing; a module attribute may be given any value (`self._seq_len_cached = seq_len`,
    `self._cos_cached = emb.cos()[None, None, :, :]`)."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return set()
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and (
            isinstance(statement.value, ast.Call) or _plain_attribute_targets(statement.targets[0], ctx)):
        target = statement.targets[0]
        # YOLOv5's `self.grid[i], self.anchor_grid[i] = self._make_grid(nx, ny, i)`: each item one
        targets = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        roots = [t.value if isinstance(t, ast.Subscript) else t for t in targets]
        return {root.attr for root in roots} if roots and all(ctx.is_self_attr(r) for r in roots) else None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        builder = _builder(statement.value, ctx)
        if builder is None:
            return None
        function, owner = builder
        found = {n.attr for n in walk(function) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                 and isinstance(n.value, ast.Name) and n.value.id == owner}
        return (found | _registered_names(function, owner)) or None
    return None


def _plain_attribute_targets(target: ast.expr, ctx: FunctionContext) -> bool:
    """`self.X = ...` or `self.X, self.Y = ...`: not an entry of a dict or list on the module (a
    memo's `self.tables[n] = ...` is ONX609's memo case)."""
    targets = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
    return all(ctx.is_self_attr(t) for t in targets)


def _registered_names(function: ast.FunctionDef, owner: str) -> set[str]:
    """The attributes a method stores by name: `self.register_buffer("cos_cached", ...)` (LLaMA's
    rotary `_set_cos_sin_cache`), `setattr(self, "x", ...)`, with the name a literal."""
    names = set()
    for n in walk(function):
        if not (isinstance(n, ast.Call) and n.args):
            continue
        func = n.func
        if (isinstance(func, ast.Attribute) and func.attr in ("register_buffer", "register_parameter")
                and isinstance(func.value, ast.Name) and func.value.id == owner):
            name = n.args[0]
        elif (isinstance(func, ast.Name) and func.id == "setattr" and len(n.args) == 3
              and isinstance(n.args[0], ast.Name) and n.args[0].id == owner):
            name = n.args[1]
        else:
            continue
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            names.add(name.value)
    return names


def _builder(call: ast.Call, ctx: FunctionContext) -> tuple[ast.FunctionDef, str] | None:
    """(function, the name it calls the module by) for `self.method(...)` of the class or a function
    of the file called with the module first (`create_grids(self, ...)`)."""
    func = call.func
    if isinstance(func, ast.Attribute) and ctx.is_self_attr(func) and func.attr in ctx.fn.cls.methods:
        method = ctx.fn.cls.methods[func.attr]
        return (method, method.args.args[0].arg) if method.args.args else None
    if (isinstance(func, ast.Name) and func.id in ctx.file.module.functions and call.args
            and isinstance(call.args[0], ast.Name) and call.args[0].id == ctx.self_name):
        function = ctx.file.module.functions[func.id]
        return (function, function.args.args[0].arg) if function.args.args else None
    return None


def used_after(node: ast.If, attribute: str, ctx: FunctionContext, store: bool = False) -> bool:
    """`self.<attribute>` read (``store``: assigned) in the method after the `if`; a read also in a
    method of the class called after it (NeMo's SqueezeExcite: `return self.forward_for_export(x,
    lengths)`, whose `make_pad_mask` slices `self.seq_range`)."""
    end = node.end_lineno or node.lineno
    kind = ast.Store if store else ast.Load
    if any(isinstance(n, ast.Attribute) and n.attr == attribute and isinstance(n.ctx, kind)
           and ctx.is_self_attr(n) and n.lineno > end for n in walk(ctx.fn.node)):
        return True
    return not store and any(_reads_self_attribute(method, attribute, ctx.self_name)
                             for method in methods_reached(_statements_after(end, ctx), ctx))


def methods_reached(nodes: Iterable[ast.AST], ctx: FunctionContext, depth: int = 3) -> list[ast.FunctionDef]:
    """The class's methods that `self.m(...)` calls in ``nodes`` (and below them) reach, a few
    calls deep, each once."""
    if ctx.fn.cls is None or ctx.self_name is None:
        return []
    methods, found = ctx.fn.cls.methods, {}
    frontier = [n for node in nodes for n in walk(node)]
    for _ in range(depth):
        called = {c.func.attr: methods[c.func.attr] for c in frontier if isinstance(c, ast.Call)
                  and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
                  and c.func.value.id == ctx.self_name and c.func.attr in methods and c.func.attr not in found}
        found |= called
        frontier = [n for m in called.values() for n in walk(m)]
    return list(found.values())


def _statements_after(end: int, ctx: FunctionContext) -> list[ast.stmt]:
    """The function's statements that start after line ``end`` (nested ones included)."""
    return [n for n in walk(ctx.fn.node) if isinstance(n, ast.stmt) and n.lineno > end]


def _reads_self_attribute(method: ast.FunctionDef, attribute: str, self_name: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == attribute and isinstance(n.ctx, ast.Load)
               and isinstance(n.value, ast.Name) and n.value.id == self_name for n in walk(method))
