"""ONX607: a resize taken only when the sizes differ, the value kept as it is otherwise.

fastai's and DeOldify's U-Net blocks:

    ssh = s.shape[-2:]
    if ssh != up_out.shape[-2:]:
        up_out = F.interpolate(up_out, s.shape[-2:], mode='nearest')

and the same with an `else` keeping the value (`if t.shape[2:] != size: r = F.interpolate(t, size)
else: r = t`), or `==` with the branches swapped. Both exporters decide the comparison on the
example and keep one branch: torch.export pins the sizes (ONX914/ONX915), the legacy trace records
the branch, and other sizes fail (a Concat of unequal sizes) or come out wrong. A resize of V to
the trailing sizes V already has gives its values back, so the resize taken while exporting keeps
the model general; eager keeps the test. Taken only in that shape (the branch is the resize alone,
the test compares V's trailing sizes with the size resized to, nothing changes V in place after):
views on either side (ViTDet's `rel_pos.reshape(...).permute(...)` tables) are not followed.
"""

from __future__ import annotations

import ast
import copy

from onnxfix.patterns.export_checks import test_under_export
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.names import dotted_parts
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk
from onnxfix.rewriter.none_defaults import is_none_literal

# modes whose resize to the same size reads every output element from the same input element
EXACT_MODES = frozenset({"nearest", "nearest-exact"})
RESIZE_CALLS = frozenset({"torch.nn.functional.interpolate", "torch.nn.functional.upsample"})
MODE_POSITION, SCALE_POSITION = 3, 2  # interpolate(input, size, scale_factor, mode, ...)


def mismatch_resize(node: ast.If, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """(fix, message) for `if <V's size> != <size>: V = F.interpolate(V, <size>)`, or
    `if ...: R = F.interpolate(V, <size>) else: R = V` (`==` with the branches swapped): the
    resize is the whole branch, the other gives V itself, and the test compares V's trailing
    sizes with the size resized to."""
    if consults_export_guard(node.test) or ctx.compiled_by_torchscript:
        return None
    if any(isinstance(n, ast.NamedExpr) for n in walk(node.test)):
        return None  # `(hw := ...) != ...`: the name would go unbound under export
    polarity = _polarity(node.test)
    if polarity is None:
        return None
    general, shortcut = (node.body, node.orelse) if polarity == "differ" else (node.orelse, node.body)
    found = _resize_statement(general, ctx)
    if found is None:
        return None
    target, source, size, resize = found
    if shortcut and not _gives_itself(shortcut, target, source):
        return None
    if not shortcut and (polarity != "differ" or target != source):
        return None
    if not _tests_the_sizes(node.test, source, size, ctx) or _may_change_in_place(node, {target, source}, ctx):
        return None
    return _fix(node, polarity, _mode(resize), ctx)


def _fix(node: ast.If, polarity: str, mode: str, ctx: FunctionContext) -> tuple[Fix, str]:
    edit, imports = test_under_export(node.test, ctx, taken=polarity == "differ")
    exact = mode in EXACT_MODES
    fix = Fix("Take the resize under export", (edit,), safe=exact, imports=imports)
    message = ("the value is resized only when the sizes differ: both exporters decide the sizes on the example and "
               "keep one branch (other sizes fail or come out wrong); take the resize under export (eager keeps the "
               "test)" + ("" if exact else f"; unsafe: for equal sizes the exported model resizes ({mode}) to the same "
                                           "size, which gives the values back up to the resize's rounding"))
    return fix, message


def _polarity(test: ast.expr) -> str | None:
    """"differ" for `a != b [or c != d]`, "equal" for `a == b [and c == d]`."""
    parts, joined = (test.values, type(test.op)) if isinstance(test, ast.BoolOp) else ([test], None)
    if not all(isinstance(p, ast.Compare) and len(p.ops) == 1 for p in parts):
        return None
    ops = {type(p.ops[0]) for p in parts}
    if ops == {ast.NotEq} and joined in (None, ast.Or):
        return "differ"
    if ops == {ast.Eq} and joined in (None, ast.And):
        return "equal"
    return None


def _resize_statement(block: list[ast.stmt], ctx: FunctionContext) -> tuple[str, str, ast.expr, ast.Call] | None:
    """(target, source, size, call) of a block that is exactly `T = F.interpolate(S, size, ...)`,
    S a name or `self.x`, the size given and no scale factor, no `*args` / `**kwargs`."""
    if len(block) != 1 or not isinstance(block[0], ast.Assign) or len(block[0].targets) != 1:
        return None
    target, call = block[0].targets[0], block[0].value
    if not (isinstance(call, ast.Call) and ctx.qualname(call.func) in RESIZE_CALLS and call.args):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    size = call.args[1] if len(call.args) > 1 else keywords.get("size")
    scale = call.args[SCALE_POSITION] if len(call.args) > SCALE_POSITION else keywords.get("scale_factor")
    if size is None or is_none_literal(size) or not (scale is None or is_none_literal(scale)):
        return None
    if not (_plain(target) and _plain(call.args[0])):
        return None
    return _text(target), _text(call.args[0]), size, call


def _gives_itself(shortcut: list[ast.stmt], target: str, source: str) -> bool:
    """The other branch is exactly `T = S`."""
    return (len(shortcut) == 1 and isinstance(shortcut[0], ast.Assign) and len(shortcut[0].targets) == 1
            and _text(shortcut[0].targets[0]) == target and _plain(shortcut[0].value)
            and _text(shortcut[0].value) == source)


def _tests_the_sizes(test: ast.expr, source: str, size: ast.expr, ctx: FunctionContext) -> bool:
    """The test is one comparison of S's trailing sizes (`S.shape[-2:]`, `S.shape[2:]`,
    `S.size()[2:]`) with the size resized to (the same text, or a name bound once to it)."""
    if not isinstance(test, ast.Compare):
        return False
    sides = [test.left, test.comparators[0]]
    for mine, other in (sides, sides[::-1]):
        if _trailing_sizes_of(mine, source, ctx) and _same_value(other, size, ctx):
            return True
        # IGEV's `if x.shape != rem.shape: x = F.interpolate(x, size=(rem.shape[-2], rem.shape[-1]))`:
        # where the whole shapes are equal, so are the sizes resized to and x's own
        reference = _whole_shape_of(other)
        if _whole_shape_of(mine) is not None and _text(_whole_shape_of(mine)) == source and reference is not None \
                and _sizes_of(size, _text(reference), ctx):
            return True
    return False


def _whole_shape_of(node: ast.expr) -> ast.expr | None:
    """X of `X.shape` / `X.size()`, X a name or `self.x`."""
    if isinstance(node, ast.Attribute) and node.attr == "shape" and _plain(node.value):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
            and not node.args and not node.keywords and _plain(node.func.value):
        return node.func.value
    return None


def _sizes_of(size: ast.expr, reference: str, ctx: FunctionContext) -> bool:
    """The size resized to is R's trailing sizes: `R.shape[-2:]`, `R.shape[2:]`, or a tuple of its
    last k dims, `(R.shape[-2], R.shape[-1])` or `(R.shape[2], R.shape[3])` (an interpolate of k
    sizes takes a tensor of k + 2 dims: 2..k+1 are its last k)."""
    if _trailing_sizes_of(size, reference, ctx):
        return True
    if not isinstance(size, (ast.Tuple, ast.List)) or not size.elts:
        return False
    indexes = [_dim_index(e, reference) for e in size.elts]
    if any(i is None for i in indexes):
        return False
    k = len(indexes)
    return indexes == list(range(-k, 0)) or indexes == list(range(2, k + 2))


def _dim_index(node: ast.expr, reference: str) -> int | None:
    """i of `R.shape[i]` / `R.size(i)` (a literal int)."""
    if isinstance(node, ast.Subscript) and _whole_shape_of(node.value) is not None:
        of, index = _whole_shape_of(node.value), node.slice
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
            and len(node.args) == 1 and not node.keywords and _plain(node.func.value):
        of, index = node.func.value, node.args[0]
    else:
        return None
    if _text(of) != reference:
        return None
    negated = isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub)
    literal = index.operand if negated else index
    if not (isinstance(literal, ast.Constant) and type(literal.value) is int):
        return None
    return -literal.value if negated else literal.value


def _trailing_sizes_of(node: ast.expr, source: str, ctx: FunctionContext) -> bool:
    node = _bound_once(node, ctx)
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.upper is None
            and node.slice.step is None and node.slice.lower is not None):
        return False
    shape = node.value
    of = shape.value if isinstance(shape, ast.Attribute) and shape.attr == "shape" else (
        shape.func.value if isinstance(shape, ast.Call) and isinstance(shape.func, ast.Attribute)
        and shape.func.attr == "size" and not shape.args and not shape.keywords else None)
    return of is not None and _plain(of) and _text(of) == source


def _same_value(node: ast.expr, size: ast.expr, ctx: FunctionContext) -> bool:
    return _text(_bound_once(node, ctx)) == _text(_bound_once(size, ctx))


def _bound_once(node: ast.expr, ctx: FunctionContext) -> ast.expr:
    """The value of a name the function binds exactly once (to an expression) from names bound at
    most once, before it (`ssh = s.shape[-2:]` after `s = self.hook.stored`), else the node: what
    the name holds at the test is then what its expression reads there."""
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        bindings = ctx.assignments(node.id)
        if len(bindings) == 1 and isinstance(bindings[0], ast.expr) and _reads_settled_names(bindings[0], ctx):
            return bindings[0]
    return node


def _reads_settled_names(value: ast.expr, ctx: FunctionContext) -> bool:
    for n in walk(value):
        if isinstance(n, ast.Name) and n.id != ctx.self_name:
            bound = ctx.assignments(n.id)
            if (ctx.is_parameter(n.id) and bound) or len(bound) > 1 or any(
                    getattr(b, "lineno", 0) >= value.lineno for b in bound):
                return False
    return True


def _may_change_in_place(node: ast.If, names: set[str], ctx: FunctionContext) -> bool:
    """T or S changed in place anywhere in the function but the `if` (`t += s`, `t.add_(1)`,
    `t[0] = 1`, `torch.relu_(t)`, `F.relu(t, inplace=True)`), or bound to another name (an alias the
    change could go through): in the shortcut they are one tensor, the resize returns a copy."""
    inside = {id(n) for n in walk(node)}
    for n in walk(ctx.fn.node):
        if id(n) in inside:
            continue
        if isinstance(n, ast.AugAssign) and _text(_base(n.target)) in names:
            return True
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Subscript) and _text(_base(t)) in names for t in targets):
                return True
            if n.value is not None and _text(n.value) in names:
                return True  # `u = t`: an alias
        if isinstance(n, ast.Call) and _changes_an_argument(n, names):
            return True
    return False


def _changes_an_argument(call: ast.Call, names: set[str]) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    in_place = in_place_method(name)
    if in_place and isinstance(func, ast.Attribute) and _text(_base(func.value)) in names:
        return True  # `t.mul_(2)`
    passes = any(_text(a) in names for a in call.args) or any(_text(k.value) in names for k in call.keywords)
    inplace_flag = any(k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                       for k in call.keywords)
    return passes and (in_place or inplace_flag)  # `torch.relu_(t)`, `F.relu(t, inplace=True)`


def _base(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def _plain(node: ast.expr) -> bool:
    """A name or `self.x` (`self.x.y`): a value the test and both branches name the same way."""
    return dotted_parts(node) is not None


def _text(node: ast.expr) -> str:
    """The expression's structure, `x.size()` read as `x.shape` and stores as loads."""
    return ast.dump(_SizeAsShape().visit(copy.deepcopy(node))).replace("ctx=Store()", "ctx=Load()")


class _SizeAsShape(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "size" and not node.args and not node.keywords:
            return ast.Attribute(value=node.func.value, attr="shape", ctx=ast.Load())
        return node


def _mode(call: ast.Call) -> str:
    keywords = {k.arg: k.value for k in call.keywords}
    mode = keywords.get("mode", call.args[MODE_POSITION] if len(call.args) > MODE_POSITION else None)
    if mode is None:
        return "nearest"  # F.interpolate's and F.upsample's default
    return mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else "?"
