"""ONX303 on a view held in a name and written by index: `kpt = x[i][..., 6:]` then
`kpt[..., 0::3] = ...` (YOLOv7-pose's keypoint decoding). The legacy exporter records the view as a
copy (a Slice), so the write never reaches `x[i]`, and every later read of `kpt` sees the copy:
silently wrong even on the export inputs. A write into one subscript of the tensor itself is
exported correctly (measured on torch 2.13 under both exporters: `y[..., 2::2] = ...`), and so is a
read of a fresh slice after it. The fix composes the two slicings into one subscript of the base
(`x[i][..., 6::3]`) for each write, and reads the view afresh (`x[i][..., 6:]`) after the first
write: the same elements of the same storage, so eager is unchanged.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.attr_changes import CONTAINER_MUTATORS
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import enclosing_statement
from onnxfix.rewriter.tree_walk import walk

SCOPES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)


def named_slice_views(ctx: FunctionContext):
    """(first write statement, view name, base text, fix, every write statement) per view."""
    for name, binding in _single_slice_bindings(ctx).items():
        found = _plan(name, binding, ctx)
        if found is not None:
            yield found


def _single_slice_bindings(ctx: FunctionContext) -> dict[str, ast.Assign]:
    stores: dict[str, list[ast.AST]] = {}
    for node in walk(ctx.fn.node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores.setdefault(node.id, []).append(node)
    found = {}
    for node in walk(ctx.fn.node):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and len(stores.get(node.targets[0].id, ())) == 1 and not ctx.is_parameter(node.targets[0].id)
                and isinstance(node.value, ast.Subscript) and _base(node.value.value)
                and _slices(node.value.slice) is not None):
            found[node.targets[0].id] = node
    return found


def _base(node: ast.expr) -> bool:
    """A name, or a name indexed by a name or an int (`x[i]`): text that names the same object again."""
    if isinstance(node, ast.Name):
        return True
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
            and (isinstance(node.slice, ast.Name) or int_constant(node.slice) is not None))


def _plan(name: str, binding: ast.Assign, ctx: FunctionContext):
    uses = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if any(n.lineno <= binding.end_lineno for n in uses) or any(_in_scope(n, ctx) for n in uses):
        return None
    writes = [s for s in walk(ctx.fn.node) if _write_of(s, name)]
    if not writes:
        return None
    writes.sort(key=lambda s: (s.lineno, s.col_offset))
    first = writes[0]
    view = binding.value
    if not (isinstance(view.slice, ast.Tuple) or ctx.tensors.is_tensor(view.value) is True):
        return None  # `s[1:]` of a list is a copy: only a tensor's (or an array's: tuple index) slice is a view
    if _base_changed(view.value, binding, [*uses, *writes], ctx):
        return None
    edits, targets = [], {id(_target(s)) for s in writes}
    view_text, base_text = ctx.segment(view), ctx.segment(view.value)
    for statement in writes:
        composed = _compose(_slices(view.slice), _slices(_target(statement).slice))
        if composed is None:
            return None
        edits.append(ctx.replace(_target(statement), f"{base_text}[{composed}]"))
    for use in uses:  # every read, before the writes too: a loop reads them after an earlier step's writes
        if id(ctx.parent(use)) not in targets:
            edits.append(ctx.replace(use, view_text))
    fix = Fix("Write into one subscript of the tensor itself; read the view afresh", tuple(edits), safe=True)
    return first, name, base_text, fix, writes


def _base_changed(base: ast.expr, binding: ast.Assign, uses: list[ast.AST], ctx: FunctionContext) -> bool:
    """The base's names are rebound, or its root object written or mutated (`x[0] = ...`,
    `x.insert(...)`, `del x[0]`, `y.mul_(2)`), after the binding and before a use: between them in
    the source, or anywhere in a loop that runs a use but not the binding (a later step's use)."""
    root = base.value.id if isinstance(base, ast.Subscript) else base.id
    names = {n.id for n in walk(base) if isinstance(n, ast.Name)}
    last = max(uses, key=lambda n: (n.end_lineno, n.end_col_offset))
    loops = [a for u in uses for a in ctx.ancestors(u) if isinstance(a, (ast.For, ast.While, ast.AsyncFor))
             and not any(n is binding for n in walk(a))]
    region = [n for loop in loops for n in walk(loop)] + [
        n for n in walk(ctx.fn.node) if hasattr(n, "lineno") and (binding.end_lineno, binding.end_col_offset)
        < (n.lineno, n.col_offset) < (last.end_lineno, last.end_col_offset)]
    closing = enclosing_statement(last, ctx)  # its own targets are stored after its value reads the view
    stored_last = {id(n) for t in _targets_of(closing) for n in walk(t)}
    for node in region:
        if id(node) in stored_last:
            continue
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)) and _root(node) == root:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _root(node.func.value) == root and (
                node.func.attr in CONTAINER_MUTATORS or node.func.attr.endswith("_")):
            return True
    return False


def _targets_of(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return statement.targets
    return [statement.target] if isinstance(statement, (ast.AugAssign, ast.AnnAssign)) else []


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _write_of(node: ast.AST, name: str) -> bool:
    target = _target(node)
    return target is not None and isinstance(target.value, ast.Name) and target.value.id == name


def _target(node: ast.AST) -> ast.Subscript | None:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        return node.targets[0]
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
        return node.target
    return None


def _in_scope(node: ast.AST, ctx: FunctionContext) -> bool:
    """Inside a lambda, a comprehension or a nested function of the function (a closure)."""
    return any(isinstance(a, SCOPES) and a is not ctx.fn.node for a in ctx.ancestors(node))


def _slices(index: ast.expr) -> tuple[bool, list[tuple[int, int | None, int]]] | None:
    """(leading Ellipsis, [(start, stop, step), ...]) of `..., a:b:s` or `a:b:s, c:d:t`: literal
    non-negative starts and stops, positive steps; None for anything else."""
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    ellipsis = bool(elements) and isinstance(elements[0], ast.Constant) and elements[0].value is Ellipsis
    parts = []
    for element in elements[1:] if ellipsis else elements:
        if not isinstance(element, ast.Slice):
            return None
        start = 0 if element.lower is None else int_constant(element.lower)
        stop = None if element.upper is None else int_constant(element.upper)
        step = 1 if element.step is None else int_constant(element.step)
        if start is None or start < 0 or step is None or step < 1 or (element.upper is not None and (stop is None or stop < 0)):
            return None
        parts.append((start, stop, step))
    return (ellipsis, parts) if parts else None


def _compose(view, use) -> str | None:
    """The one subscript of the base that `base[view][use]` selects, as text; None where the two
    do not line up (an Ellipsis on one side only, more dims in the use, a stop on the view)."""
    if use is None:
        return None  # an integer, a tensor or a None in the write's index
    (view_ellipsis, view_parts), (use_ellipsis, use_parts) = view, use
    if view_ellipsis != use_ellipsis or len(use_parts) > len(view_parts):
        return None
    offset = len(view_parts) - len(use_parts) if view_ellipsis else 0
    parts = list(view_parts)
    for k, (c, d, t) in enumerate(use_parts):
        a, b, s = view_parts[offset + k]
        if b is not None:
            return None  # the view's end would bound the composed slice: left alone
        parts[offset + k] = (a + s * c, None if d is None else a + s * d, s * t)
    texts = [_slice_text(*p) for p in parts]
    return ", ".join(["..."] + texts if view_ellipsis else texts)


def _slice_text(start: int, stop: int | None, step: int) -> str:
    text = f"{start or ''}:{'' if stop is None else stop}"
    return text + (f":{step}" if step != 1 else "")
