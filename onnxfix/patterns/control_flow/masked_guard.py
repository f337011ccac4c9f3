"""ONX601's guard around writes that a false test leaves empty: the `if` dropped, its body kept.

    if mask.any():                       if min_amax <= eps:
        x[mask] = 0                          zero = amax <= eps
                                             scale[zero] = 0

Where the test is false the mask selects nothing, so the masked writes change nothing: the body
can run always, without the branch on a tensor value that the exporters cannot follow (the
dynamo exporter fails, the legacy one freezes the branch). pytorch-quantization's tensor_quant
(CenterPoint's QAT), clamps written as `if (x > m).any(): x[x > m] = m`.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.messages import is_message, test_skippable_when_exporting
from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.int_dtype import is_integer_tensor
from onnxfix.rewriter.rule import Edit, Fix
from onnxfix.rewriter.tensors import RANDOM_CALLS, in_place_method
from onnxfix.rewriter.statements import block_of, comments_outside, is_elif, read_after_if, statement_indent
from onnxfix.rewriter.tree_walk import walk

# `X.min() <= c` holds exactly when some element of X is <= c (NaN aside: min propagates it)
_EXTREMES = {("min", ast.LtE): ast.LtE, ("min", ast.Lt): ast.Lt, ("max", ast.GtE): ast.GtE, ("max", ast.Gt): ast.Gt}
GRAD_CAVEAT = ("the write now runs where the test is false too: an in-place write, even of no element, into a "
               "tensor autograd needs (a leaf requiring grad, an output an op saved) makes backward fail there")
NAN_CAVEAT = ("a NaN in the tensor makes `min()`/`max()` NaN and the test false while other elements may "
              "still be selected")


def empty_write_guard(node: ast.If, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """(fix, message suffix) for an `if` whose body only writes through a mask that is empty
    whenever the test is false; None for any other `if`."""
    if node.orelse or ctx.compiled_by_torchscript or is_elif(node, ctx):
        return None  # an `elif`: its body runs only where the earlier tests failed
    test = _selected(node.test, ctx)
    if test is None or draws_random(node, ctx):
        return None
    mask_node, exact = test
    if _rebinds_tested(node, mask_node):
        return None
    mask = _dumped(mask_node, {}, node, ctx)
    bound: dict[str, str] = {}
    plain_values, computed, writes, assumed_bool = True, False, 0, False
    messages = _leading_messages(node, ctx)
    for statement in node.body[len(messages):]:
        binding = _mask_binding(statement, mask, node, ctx)
        if binding is not None:
            name, selected = binding
            if len(ctx.assignments(name)) != 1 and read_after_if({name}, node, ctx):
                return None  # bound elsewhere too, and read after: binding it always could change what is read
            bound[name] = selected
            continue
        write = masked_write(statement)
        if write is None:
            if not _local_computation(statement, node, mask_node, ctx):
                return None
            computed = True
            continue
        used, value = write
        if _dumped(used, bound, node, ctx) != mask:
            if not _same_bool_mask(statement, used, mask_node):
                return None
            # an all-zero integer mask skipped the fill, which raises on it ("only boolean masks")
            assumed_bool |= not known_bool_mask(used, ctx)
        plain_values &= isinstance(value, (ast.Constant, ast.Name, ast.Attribute, ast.UnaryOp))
        writes += 1
    if not writes:
        return None  # only messages (ONX601 skips the check while exporting) or only computations
    # values computed in the body run under export where the test is false too: a call that
    # changes a tensor in place there (a module built with inplace=True) is not visible here
    # a write into a bool tensor is a Where on bools in the legacy export, which onnxruntime cannot run:
    # the legacy trace keeps the test (its verdict cannot get worse), torch.export writes always.
    # Values computed in the body (`x = self.proj(x[m])`) would be computed on the empty selection
    # too: eager keeps the test, so that an op refusing no rows still never sees them there
    export_only = bool(messages) or computed or any(_writes_bools(s, ctx) for s in node.body[len(messages):])
    # the `if` dropped, eager writes where the test is false too: an in-place write, even of no
    # element, into a tensor autograd needs makes backward fail; an integer or bool one needs none
    grad_free = export_only or all(grad_free_write(s, ctx) for s in node.body[len(messages):] if masked_write(s))
    safe = exact and plain_values and not computed and not assumed_bool and grad_free
    fix = _taken_under_export(node, ctx, safe) if export_only else _drop_if(node, ctx, safe=safe)
    if fix is None:
        return None
    kept = ("they always run under torch.export (`torch.compiler.is_exporting() or ...`; eager and the legacy "
            "trace test as before)") if export_only else "the `if` is dropped and they always run"
    caveat = (NAN_CAVEAT if not exact else BOOL_CAVEAT if assumed_bool else GRAD_CAVEAT if not grad_free
              else "the body's values are computed on the empty selection too (a call "
              "changing a tensor in place, such as a module built with inplace=True, would change it where the test "
              "is false)" if computed else "a written value is computed on the empty selection too")
    why = f"; fix: the writes select nothing where the test is false, so {kept}" + ("" if fix.safe else f" (unsafe: {caveat})")
    return fix, why


def _selected(test: ast.expr, ctx: FunctionContext) -> tuple[ast.expr, bool] | None:
    """(the mask the test asks about, whether the equivalence is exact): `m.any()`,
    `torch.any(m)`, `(m).sum() > 0`, `not (m == c).all()` (the mask `m != c`), or
    `X.min() <= c`-style extremes (the mask `X <= c`)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _not_all(test.operand, ctx)
    if isinstance(test, ast.Call) and not test.keywords:
        if isinstance(test.func, ast.Attribute) and test.func.attr == "any" and not test.args:
            return test.func.value, True
        if ctx.qualname(test.func) == "torch.any" and len(test.args) == 1:
            return test.args[0], True
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Name) and len(ctx.assignments(left.id)) == 1:
        left = ctx.assignments(left.id)[0]  # `min_amax = amax.min()` bound once, then tested
        if _changed_before_test(left, test, ctx):
            return None
    counted = _without_item(left)
    if isinstance(counted, ast.Call) and isinstance(counted.func, ast.Attribute) and not counted.args \
            and not counted.keywords and counted.func.attr == "sum" and _some_counted(op, right):
        # the sum of a bool mask counts what it selects (an integer index tensor's does not)
        return (counted.func.value, True) if _counts_a_mask(counted.func.value, ctx) else None
    if isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute) and not left.args and not left.keywords:
        mapped = _EXTREMES.get((left.func.attr, type(op)))
        if mapped is not None:
            return ast.Compare(left=left.func.value, ops=[mapped()], comparators=[right]), False
    return None


BOOL_CAVEAT = ("the mask is not known to be bool: an all-zero integer mask skipped the fill, which raises on a "
               "mask of any other dtype")


def known_bool_mask(mask: ast.expr, ctx: FunctionContext) -> bool:
    """A bool tensor by its own value or a recorded run; a parameter is not known so by its being
    the fill's mask (where the test is false the original never ran the fill: it raises on no
    integer mask there)."""
    if isinstance(mask, ast.Name) and ctx.is_parameter(mask.id) and not ctx.assignments(mask.id):
        return ctx.tensors.dtype(mask) == "bool"
    return is_bool_tensor(mask, ctx)


def _rebinds_tested(node: ast.If, mask: ast.expr) -> bool:
    """A name the test reads (its mask's too), bound again in the body (`if m.any(): m = x > 0;
    y[m] = 0`): the writes after it select through another value than the one tested, and one
    before it leaves the name rebound only where the test held."""
    read = {n.id for n in (*walk(node.test), *walk(mask)) if isinstance(n, ast.Name)}
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and n.id in read
               for statement in node.body for n in walk(statement))


def _not_all(operand: ast.expr, ctx: FunctionContext) -> tuple[ast.expr, bool] | None:
    """`not (m == c).all()` / `not torch.all(m == c)`: true exactly when some element differs, the
    mask `m != c` (ChatGLM's `if not (attention_mask == 0).all():` before its masked_fill_). Only
    `==` is inverted: `not (x < c)` is not `x >= c` where x is NaN, `x != c` is `not x == c` always."""
    if not (isinstance(operand, ast.Call) and not operand.keywords):
        return None
    if isinstance(operand.func, ast.Attribute) and operand.func.attr == "all" and not operand.args:
        tested = operand.func.value
    elif ctx.qualname(operand.func) == "torch.all" and len(operand.args) == 1:
        tested = operand.args[0]
    else:
        return None
    if isinstance(tested, ast.Compare) and len(tested.ops) == 1 and isinstance(tested.ops[0], ast.Eq):
        return ast.Compare(left=tested.left, ops=[ast.NotEq()], comparators=tested.comparators), True
    return None


def draws_random(node: ast.If, ctx: FunctionContext) -> bool:
    """The test or the body draws random numbers: a mask drawn for the test and again for the write is
    two draws, and dropping the test's moves every later one."""
    return any(isinstance(n, ast.Call) and (n.func.attr if isinstance(n.func, ast.Attribute) else
                                              getattr(n.func, "id", "")) in RANDOM_CALLS for n in walk(node))


def _changed_before_test(value: ast.expr, test: ast.expr, ctx: FunctionContext) -> bool:
    """Between the binding of the tested count and the `if`, a statement that may change in place a
    tensor the count read (`x.mul_(2)`, `x += 1`, `x[i] = v` after `n = (x > 4).sum()`): the mask
    written after would not be the one counted."""
    binding = ctx.parent(value)
    read = {n.id for n in walk(value) if isinstance(n, ast.Name)}
    for statement in walk(ctx.fn.node):
        if not isinstance(statement, ast.stmt) or not (binding.lineno < statement.lineno < test.lineno):
            continue
        for n in walk(statement):
            changed = None
            if isinstance(n, ast.AugAssign):
                changed = n.target
            elif isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store):
                changed = n.value
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and in_place_method(n.func.attr):
                changed = n.func.value
            # the names the changed tensor is reached from (a view of one changes it too)
            if changed is not None and read & {m.id for m in walk(changed) if isinstance(m, ast.Name)}:
                return True
    return False


def _without_item(node: ast.expr) -> ast.expr:
    """`(m).sum().item()` -> `(m).sum()`: the same count, as a Python number."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item"
            and not node.args and not node.keywords):
        return node.func.value
    return node


def _counts_a_mask(node: ast.expr, ctx: FunctionContext) -> bool:
    """A bool tensor, or a comparison whose `.sum()` ran: of tensors (or NumPy arrays), elementwise,
    so bool (a comparison of Python numbers is a bool, which has no `.sum()`)."""
    if isinstance(node, ast.Compare) and not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
        return True
    return is_bool_tensor(node, ctx)


def _some_counted(op: ast.cmpop, right: ast.expr) -> bool:
    """`> 0`, `!= 0`, `>= 1`: the count is not zero (a count is never negative)."""
    if not (isinstance(right, ast.Constant) and type(right.value) is int):
        return False
    return (isinstance(op, (ast.Gt, ast.NotEq)) and right.value == 0) or (isinstance(op, ast.GtE) and right.value == 1)


def _leading_messages(node: ast.If, ctx: FunctionContext) -> list[ast.stmt]:
    """The warnings, log records and prints the body starts with (CosyVoice's `logger.debug(...)`
    before forcing fully masked rows)."""
    messages = []
    for statement in node.body:
        if not is_message(statement, ctx):
            break
        messages.append(statement)
    return messages


def _local_computation(statement: ast.stmt, node: ast.If, mask: ast.expr, ctx: FunctionContext) -> bool:
    """`x = self.projection(x[m])`: a value computed for the masked writes, bound to names nothing
    reads after the `if` (nor the mask: the writes must select what the test counted), outside any
    loop (a later iteration would read it)."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return False
    target = statement.targets[0]
    names = [target] if isinstance(target, ast.Name) else list(target.elts) if isinstance(target, ast.Tuple) else []
    if not names or not all(isinstance(n, ast.Name) for n in names):
        return False
    if any(isinstance(n, ast.Call) and (isinstance(n.func, ast.Attribute) and in_place_method(n.func.attr) or any(
            k.arg == "out" or k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
            for k in n.keywords)) for n in walk(statement.value)):
        return False  # `x.mul_(2)[m]`, `F.relu(x, inplace=True)`: it would change `x` under export where the test is false
    in_mask = {n.id for n in walk(mask) if isinstance(n, ast.Name)}
    return not any(n.id in in_mask or read_after_if({n.id}, node, ctx) for n in names) and not _in_loop(node, ctx)


def _in_loop(node: ast.AST, ctx: FunctionContext) -> bool:
    for ancestor in ctx.ancestors(node):
        if ancestor is ctx.fn.node:
            return False
        if isinstance(ancestor, (ast.For, ast.While, ast.AsyncFor)):
            return True
    return False


def _mask_binding(statement: ast.stmt, tested: str, guard: ast.If, ctx: FunctionContext) -> tuple[str, str] | None:
    """(name, the mask it selects by, dumped) of `zero = amax <= eps`, a name bound to a comparison
    (no call: nothing else happens), or of `inds = torch.where(m)` / `m.nonzero(as_tuple=True)`
    with `m` the tested mask (computed by the test already): indexing by those indices writes the
    elements the mask selects (detectron2's `_do_paste_mask`: `if torch.isinf(img_x).any():
    inds = torch.where(torch.isinf(img_x)); img_x[inds] = 0`)."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
        return None
    value = statement.value
    if isinstance(value, ast.Compare) and not any(isinstance(n, ast.Call) for n in walk(value)):
        return statement.targets[0].id, ast.dump(value)
    indexed = _indices_of(value, ctx)
    if indexed is not None and _dumped(indexed, {}, guard, ctx) == tested:
        return statement.targets[0].id, tested
    return None


def _indices_of(value: ast.expr, ctx: FunctionContext) -> ast.expr | None:
    """`m` of `torch.where(m)`, `torch.nonzero(m, as_tuple=True)`, `m.nonzero(as_tuple=True)`: the
    tuple of index tensors of the elements a mask selects."""
    if not isinstance(value, ast.Call):
        return None
    as_tuple = [k for k in value.keywords if k.arg == "as_tuple"]
    tupled = len(as_tuple) == 1 and isinstance(as_tuple[0].value, ast.Constant) and as_tuple[0].value.value is True
    qualname = ctx.qualname(value.func)
    if qualname == "torch.where" and len(value.args) == 1 and not value.keywords:
        return value.args[0]
    if qualname == "torch.nonzero" and len(value.args) == 1 and tupled and len(value.keywords) == 1:
        return value.args[0]
    if (isinstance(value.func, ast.Attribute) and value.func.attr == "nonzero" and qualname is None
            and not value.args and tupled and len(value.keywords) == 1):
        return value.func.value
    return None


def grad_free_write(statement: ast.stmt, ctx: FunctionContext) -> bool:
    """`y[m] = v` / `y.masked_fill_(m, v)` into an integer or bool tensor, which autograd never needs."""
    target = statement.targets[0].value if isinstance(statement, ast.Assign) else statement.value.func.value
    return is_integer_tensor(target, ctx) or is_bool_tensor(target, ctx)


def masked_write(statement: ast.stmt) -> tuple[ast.expr, ast.expr] | None:
    """(mask, value) of `y[mask] = v` or `y.masked_fill_(mask, v)` (in place: nothing changes
    when the mask is empty)."""
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Subscript) and not isinstance(statement.targets[0].slice, ast.Tuple)):
        return statement.targets[0].slice, statement.value
    call = statement.value if isinstance(statement, ast.Expr) else None
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "masked_fill_"
            and len(call.args) == 2 and not call.keywords):
        return call.args[0], call.args[1]
    return None


def _same_bool_mask(statement: ast.stmt, used: ast.expr, tested: ast.expr) -> bool:
    """`x.masked_fill_(m, v)` under a test of `m != 0` (or `!= False`): masked_fill_ takes bool
    masks only (it raises on any other dtype), and a bool `m != 0` is `m` itself."""
    return (isinstance(statement, ast.Expr) and isinstance(tested, ast.Compare) and isinstance(tested.ops[0], ast.NotEq)
            and isinstance(tested.comparators[0], ast.Constant) and tested.comparators[0].value in (0, False)
            and type(tested.comparators[0].value) in (int, bool) and ast.dump(tested.left) == ast.dump(used))


def _dumped(mask: ast.expr, bound: dict[str, str], node: ast.If, ctx: FunctionContext) -> str:
    """The mask's expression: a name bound in the body, or bound once in the function to a
    comparison (`zero = amax <= eps` before a second `if` reusing it), stands for its value; a
    view of the mask (`m.view(...)`, ONX705's broadcast form) is empty when the mask is."""
    while (isinstance(mask, ast.Call) and isinstance(mask.func, ast.Attribute)
           and mask.func.attr in ("view", "reshape", "unsqueeze", "expand", "expand_as")):
        mask = mask.func.value
    if isinstance(mask, ast.Name) and mask.id in bound:
        return bound[mask.id]
    if isinstance(mask, ast.Name) and len(ctx.assignments(mask.id)) == 1:
        value = ctx.assignments(mask.id)[0]
        binding = ctx.parent(value)
        block = block_of(node, ctx)
        # bound unconditionally before the `if`, in its own block (not inside another `if`)
        if (isinstance(value, ast.Compare) and not any(isinstance(n, ast.Call) for n in walk(value))
                and binding in block and block.index(binding) < block.index(node)):
            return ast.dump(value)
    return ast.dump(mask)


def _drop_if(node: ast.If, ctx: FunctionContext, safe: bool) -> Fix | None:
    """The `if` line removed and its body dedented one level (comments kept)."""
    source = ctx.file.source
    header_end = source.line_starts[node.body[0].lineno - 1]
    if node.body[0].lineno == node.lineno:
        return None  # a one-line `if`: left alone
    comments = comments_outside(ctx, node, node.body, kept_block=True)  # the `if` line's own comment, kept on a line of its own
    if comments is None:
        return None
    indent = statement_indent(ctx, node)
    unit = statement_indent(ctx, node.body[0])[len(indent):]
    body = source.text[header_end:source.span(node.body[-1])[1]].replace("\r\n", "\n")
    lines = body.split("\n")
    if not unit or any(line.strip() and not line.startswith(indent + unit) for line in lines):
        return None  # a continuation line shallower than the body: not re-indented by prefix
    dedented = "\n".join([*(indent + comment for comment in comments),
                          *(indent + line[len(indent) + len(unit):] if line.strip() else "" for line in lines)])
    start = source.span(node)[0]
    return Fix("Drop the `if`: the masked writes change nothing where it is false",
               (Edit(start, source.span(node.body[-1])[1], dedented[len(indent):]),), safe=safe)


def _writes_bools(statement: ast.stmt, ctx: FunctionContext) -> bool:
    """A masked write into a bool tensor: one known bool, or given True / False (`keep[m] = True`)."""
    write = masked_write(statement)
    if write is None:
        return False
    target = statement.targets[0].value if isinstance(statement, ast.Assign) else statement.value.func.value
    value = write[1]
    return is_bool_tensor(target, ctx) or (isinstance(value, ast.Constant) and isinstance(value.value, bool))


def _taken_under_export(node: ast.If, ctx: FunctionContext, safe: bool) -> Fix:
    """`if <test>:` -> `if torch.compiler.is_exporting() or (<test>):`: eager and the legacy tracer test
    as before (a log under the test logs as before); torch.export runs the body, whose writes select
    nothing where the test is false (a message there is printed once while tracing)."""
    torch_name, imports = ctx.torch_name()
    text = f"{torch_name}.compiler.is_exporting() or ({ctx.segment(node.test)})"
    return Fix("Take the masked writes under export; eager tests as before", (ctx.replace(node.test, text),),
               safe=safe and test_skippable_when_exporting(node.test), imports=imports)
