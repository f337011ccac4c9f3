"""ONX607: a resize taken only when the sizes differ, the value kept as it is otherwise.

fastai's and DeOldify's U-Net blocks, SAM's and ViTDet's position tables, ViTDet's relative
positions:

    if ssh != up_out.shape[-2:]:
        up_out = F.interpolate(up_out, s.shape[-2:], mode='nearest')

    if rel_pos.shape[0] != max_rel_dist:
        rel_pos_resized = F.interpolate(rel_pos.reshape(1, rel_pos.shape[0], -1).permute(0, 2, 1),
                                        size=max_rel_dist, mode="linear")
        ...
    else:
        rel_pos_resized = rel_pos

Both exporters decide the comparison on the example and keep one branch: torch.export pins the
sizes (ONX914/ONX915), the legacy trace records the branch, and other sizes fail (a Concat of
unequal sizes) or come out wrong. The resize to a size the value already has gives its values
back, so the resizing branch taken while exporting keeps the model general; eager keeps the test.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.size_paths import RESIZES, compares_sizes, view_of
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Fix

# modes whose resize to the same size reads every output element from the same input element
EXACT_MODES = frozenset({"nearest", "nearest-exact"})


def mismatch_resize(node: ast.If, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """(fix, message) for `if <sizes differ>: <resize V>` (else: V or a view of it), or the same
    with the test `==` and the branches swapped."""
    if consults_export_guard(node.test) or ctx.compiled_by_torchscript:
        return None
    polarity = _polarity(node.test, ctx)
    if polarity is None:
        return None
    general, shortcut = (node.body, node.orelse) if polarity == "differ" else (node.orelse, node.body)
    if not general:
        return None
    resize = _resize_in(general, ctx)
    if resize is None or not _keeps_the_value(shortcut, general, resize, ctx):
        return None
    torch_name, imports = ctx.torch_name()
    exporting = f"{torch_name}.jit.is_tracing() or {torch_name}.compiler.is_exporting()"
    test = ctx.segment(node.test)
    if polarity == "differ":
        new = f"{exporting} or {test}"
    else:
        test = test if not isinstance(node.test, ast.BoolOp) or isinstance(node.test.op, ast.And) else f"({test})"
        new = f"not ({exporting}) and {test}"
    mode = _mode(resize)
    exact = mode in EXACT_MODES
    fix = Fix("Take the resize under export", (ctx.replace(node.test, new),), safe=exact, imports=imports)
    message = ("the value is resized only when the sizes differ: both exporters decide the sizes on the example and "
               "keep one branch (other sizes fail or come out wrong); take the resize under export (eager keeps the "
               "test)" + ("" if exact else f"; unsafe: for equal sizes the exported model resizes ({mode}) to the same "
                                           "size, which gives the values back up to the resize's rounding"))
    return fix, message


def _polarity(test: ast.expr, ctx: FunctionContext) -> str | None:
    """"differ" for `a != b [or c != d]`, "equal" for `a == b [and c == d]`, each comparing sizes
    (or, with the run's evidence, specialized at this line)."""
    evidence = ctx.file.evidence
    specialized = evidence is not None and test.lineno in evidence.specialized
    if isinstance(test, ast.BoolOp):
        parts, joined = test.values, type(test.op)
    else:
        parts, joined = [test], None
    if not all(isinstance(p, ast.Compare) and len(p.ops) == 1 and (compares_sizes(p, ctx) or specialized) for p in parts):
        return None
    ops = {type(p.ops[0]) for p in parts}
    if ops == {ast.NotEq} and joined in (None, ast.Or):
        return "differ"
    if ops == {ast.Eq} and joined in (None, ast.And):
        return "equal"
    return None


def _resize_in(block: list[ast.stmt], ctx: FunctionContext) -> ast.Call | None:
    """The one resize to a given size (not a `scale_factor`) in the block."""
    found = [n for s in block for n in ast.walk(s) if isinstance(n, ast.Call) and _resize_name(n, ctx) and n.args]
    if len(found) != 1:
        return None
    call = found[0]
    by_size = (len(call.args) > 1 or any(k.arg == "size" for k in call.keywords)) and not any(
        k.arg == "scale_factor" for k in call.keywords)
    return call if by_size else None


def _resize_name(call: ast.Call, ctx: FunctionContext) -> bool:
    qualname = ctx.qualname(call.func) or ""
    return qualname.startswith("torch.") and qualname.rsplit(".", 1)[-1] in RESIZES


def _mode(call: ast.Call) -> str:
    mode = next((k.value for k in call.keywords if k.arg == "mode"), call.args[2] if len(call.args) > 2 else None)
    if mode is None:
        return "nearest"  # F.interpolate's default
    return mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else "?"


def _keeps_the_value(shortcut: list[ast.stmt], general: list[ast.stmt], resize: ast.Call, ctx: FunctionContext) -> bool:
    """The other branch gives the resized value as it is: absent, when the general branch rebinds
    the name it resizes (`x = F.interpolate(x, size)`); or only assignments and returns of the
    resized value or views of it (`rel_pos_resized = rel_pos`, `return pos.reshape(1, h, w, -1)`),
    each to a name (or a return) the general branch also ends in."""
    source = resize.args[0]
    if not shortcut:
        last = general[-1]
        if not (isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name)):
            return False
        name = last.targets[0].id
        roots = _roots(source)
        return (bool(roots) and ast.dump(roots[0]) == ast.dump(ast.Name(id=name, ctx=ast.Load()))
                and _rebinds_only(general, name))
    roots = _roots(source)
    if not roots:
        return False
    for statement in shortcut:
        value = statement.value if isinstance(statement, (ast.Assign, ast.Return)) else None
        if value is None or (isinstance(statement, ast.Assign) and not _same_target(statement, general)):
            return False
        if not any(view_of(value, root, ctx, 0) for root in roots):
            return False
    return isinstance(shortcut[-1], ast.Return) == isinstance(general[-1], ast.Return)


def _roots(node: ast.expr) -> list[ast.expr]:
    """The value a chain of views starts from (`rel_pos` of `rel_pos.reshape(...).permute(...)`)."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            break
    return [node] if isinstance(node, (ast.Name, ast.Attribute)) else []


def _same_target(assignment: ast.Assign, general: list[ast.stmt]) -> bool:
    targets = [ast.dump(t) for t in assignment.targets]
    return any(isinstance(s, ast.Assign) and [ast.dump(t) for t in s.targets] == targets for s in general)


def _rebinds_only(block: list[ast.stmt], name: str) -> bool:
    """Every statement of the block binds ``name`` (the resize, and views of it after)."""
    return all(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
               and s.targets[0].id == name for s in block)
