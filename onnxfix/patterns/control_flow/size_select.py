"""ONX614: an `if` on sizes whose branches only pick numbers: one selection per name.

DINOv2-style padding to a multiple of the patch (Metric3D, Depth Anything):

    pad_h = self.patch_size - H % self.patch_size
    if pad_h == self.patch_size:
        pad_h = 0

torch.export decides the test on the example's sizes and guards on it (ONX914/ONX915: the exported
model is right only for sizes that take the example's branch); the legacy exporter records the
branch taken. Each name the branches assign becomes one call of `_onnx_size_select`, which in
eager is the same `if` (only the chosen value computed) and under torch.export keeps the choice
symbolic (torch.sym_ite, an ONNX Where):

    pad_h = _onnx_size_select(pad_h == self.patch_size, lambda: 0, lambda: pad_h)

Taken only where every branch statement assigns one name a number computed from sizes and ints
(no call but a size's), each name once per branch, a value reading a name the `if` binds only where
its own branch bound that name above it, and a name missing from a branch bound before the `if` (its
value stands there).
"""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.patterns.control_flow.conditions import tensor_condition
from onnxfix.patterns.control_flow.size_remainder import remainder_branch
from onnxfix.patterns.scalars.sym_int import takes_traced_value
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc
from onnxfix.rewriter.statements import (
    comments_outside, is_elif, replace_statements, single_name_assignment, statement_indent,
)
from onnxfix.rewriter.tree_walk import walk

SIZE_SELECT = Helper("_onnx_size_select", helper_source("size_select"))
ORDERINGS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)  # not `is None`: a default, not a size test
NUMBER_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift)


class SizeSelect(Rule):
    code = "ONX614"
    name = "size-select"
    summary = "An `if` on sizes whose branches only assign numbers: the choice kept symbolic under torch.export"
    fix_availability = "sometimes"
    default_safety = "safe"
    python_hazard = True
    doc = RuleDoc(
        what="Finds an `if` (with or without `else`) in export-time code whose test compares sizes and whose "
        "branches only assign names ints computed from sizes (`if pad_h == self.patch_size: pad_h = 0`, "
        "`if w != (w >> 7) << 7: pad = ((w >> 7) + 1 << 7) - w else: pad = 0`), or one item of a list of "
        "numbers (MONAI's UpCat: `if x_e.shape[-i - 1] != x_0.shape[-i - 1]: sp[i * 2 + 1] = 1`, "
        "tests/flow_models/odd_edge_pad.py: ORT-FAILS under torch.export before, OK after; the legacy "
        "trace keeps the branch its test took).",
        why="torch.export evaluates the test on the example's sizes and records a guard: the exported "
        "model keeps the example's branch, and onnxfix reports the dim pinned or restricted (ONX914/"
        "ONX915) by a guard such as `Eq(14 - Mod(h, 14), 14)`; other sizes fail in onnxruntime or come out "
        "wrong. The legacy exporter records the branch taken.",
        example="def forward(self, x):\n    pad_h = 14 - x.shape[2] % 14\n    if pad_h == 14:\n        pad_h = 0\n"
        "    return F.pad(x, (0, 0, 0, pad_h))",
        use_instead="def forward(self, x):\n    pad_h = 14 - x.shape[2] % 14\n"
        "    pad_h = _onnx_size_select(pad_h == 14, lambda: 0, lambda: pad_h)\n"
        "    return F.pad(x, (0, 0, 0, pad_h))",
        fix_safety="Safe: in eager `_onnx_size_select(test, then, otherwise)` is `then() if test else "
        "otherwise()`, the same test and the same value computed (the other one not at all); under "
        "torch.export, where the test is a SymBool, both ints are computed and `otherwise + (then - "
        "otherwise) * sym_ite(test, 1, 0)` is exactly the chosen one. While the legacy exporter traces, "
        "sizes and the test are 0-d tensors: `torch.where` of the two values when one is such a size, or "
        "with `traced=True` (the names bound by the `if` alone, every later read a pad amount, slice bound "
        "or view size) of two Python numbers too (else the branch taken is recorded, as before). "
        "tests/flow_models/size_select.py: "
        "SILENTLY-WRONG under both exporters before, OK under both after.",
        references=("https://github.com/YvanYin/Metric3D/blob/main/mono/model/backbones/ViT_DINO_reg.py",),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        if ctx.compiled_by_torchscript or is_elif(node, ctx) or not _compares_sizes(node.test, node, ctx):
            return
        if remainder_branch(node, ctx) is not None:
            return  # ONX606's: its arms are one formula
        branches = [node.body] + ([node.orelse] if node.orelse else [])
        chosen = [_assigned_numbers(branch, ctx) for branch in branches]
        if any(values is None for values in chosen):
            return
        names = list(dict.fromkeys(name for values in chosen for name in values))
        if any(not name.isidentifier() for name in names) and len(names) > 1:
            return  # an item of a list is selected alone (the selections read the list in order)
        then, otherwise = chosen[0], chosen[1] if len(chosen) == 2 else {}
        # a name one branch leaves alone keeps the value it had before the `if`
        partial = [name for name in names if name not in then or name not in otherwise]
        if not names or _reads_out_of_order(chosen, names) or not all(_bound_before(name, node, ctx) for name in partial):
            return
        test = ctx.segment(node.test)
        # every later read takes a 0-d tensor as it took the int: the legacy trace may select both numbers
        traced = ", traced=True" if names[0].isidentifier() and _reads_take_traced_values(node, names, ctx) else ""
        lines, taken = [], test
        if len(names) > 1:  # the test read once, before any name it may read is rebound
            taken = "_onnx_taken"
            lines.append(f"{taken} = {test}")
        for name in names:
            picked = ctx.segment(then[name]) if name in then else name
            kept = ctx.segment(otherwise[name]) if name in otherwise else name
            lines.append(f"{name} = _onnx_size_select({taken}, lambda: {picked}, lambda: {kept}{traced})")
        comments = comments_outside(ctx, node, [])
        fix = None if comments is None or any("\n" in line for line in lines) else Fix(
            "Select the numbers with `_onnx_size_select`", (replace_statements(ctx, node, node, f"\n{statement_indent(ctx, node)}".join(lines), comments),),
            safe=True, imports=("torch",), helpers=(SIZE_SELECT,))
        yield ctx.report(
            self, node,
            f"`if {test}:` on sizes only picks {', '.join(f'`{n}`' for n in names)}: torch.export keeps the "
            "example's branch (the exported model is right only for sizes that take it) and the legacy exporter "
            "records it; `_onnx_size_select` is the same `if` in eager and keeps the choice symbolic under torch.export",
            fix=fix,
        )


def _compares_sizes(test: ast.expr, node: ast.If, ctx: FunctionContext) -> bool:
    """A comparison (or an and/or of them) with a size on some side and no tensor value."""
    if tensor_condition(test, ctx) is not None:
        return False
    parts = test.values if isinstance(test, ast.BoolOp) else [test]
    return all(isinstance(part, ast.Compare) and all(isinstance(op, ORDERINGS) for op in part.ops)
               for part in parts) and any(
        _size_before(side, node, ctx) for part in parts for side in (part.left, *part.comparators))


def _size_before(side: ast.expr, node: ast.If, ctx: FunctionContext) -> bool:
    """A size, or a name some assignment above the `if` binds to one (`pad_h = p - H % p`: the
    `if` itself rebinding it to 0 is what makes it a size only sometimes)."""
    if ctx.sizes.is_size(side):
        return True
    return isinstance(side, ast.Name) and any(
        isinstance(value, ast.expr) and value.lineno < node.lineno and ctx.sizes.is_size(value)
        for value in ctx.assignments(side.id))


def _assigned_numbers(branch: list[ast.stmt], ctx: FunctionContext) -> dict[str, ast.expr] | None:
    """{name: value} of a branch that only assigns names numbers from sizes and ints, each once; the
    "name" of an item of a list, the item's text (MONAI's UpCat: `if x_e.shape[-i - 1] !=
    x_0.shape[-i - 1]: sp[i * 2 + 1] = 1`, the pad list of an odd edge)."""
    values: dict[str, ast.expr] = {}
    for statement in branch:
        name = single_name_assignment(statement) or _list_item_assignment(statement, ctx)
        if name is None or name in values or not _number(statement.value, ctx):
            return None
        values[name] = statement.value
    return values


def _list_item_assignment(statement: ast.stmt, ctx: FunctionContext) -> str | None:
    """The target's text of `items[k] = value`, `items` a local name bound to a list display (its
    items Python numbers, not tensors) and `k` computed without calls."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Subscript)):
        return None
    target = statement.targets[0]
    if not isinstance(target.value, ast.Name) or isinstance(target.slice, ast.Slice) \
            or any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in walk(target.slice)):
        return None
    bindings = ctx.assignments(target.value.id)
    if len(bindings) != 1 or not _list_of_numbers(bindings[0], ctx) or not _index_in_range(target, bindings[0], ctx):
        return None
    return ctx.segment(target)


def _list_of_numbers(value: ast.AST, ctx: FunctionContext) -> bool:
    """`[0] * n`, `[0, 0, 0, 0]`: a list display of ints (repeated)."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        value = value.left if isinstance(value.left, ast.List) else value.right
    return isinstance(value, ast.List) and all(_number(item, ctx) for item in value.elts)


def _index_in_range(target: ast.Subscript, value: ast.expr, ctx: FunctionContext) -> bool:
    """The item exists wherever the test may be false (the selection reads it there, where the
    `if` read nothing): a literal index below the length of a list display of a literal length,
    or MONAI's `sp = [0] * (n * K)` indexed `sp[i * K + j]` (`0 <= j < K`) in `for i in range(n)`."""
    index = target.slice
    length = _display_length(value)
    if isinstance(index, ast.Constant) and type(index.value) is int:
        return length is not None and 0 <= index.value < length
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and isinstance(value.right, ast.BinOp)
            and isinstance(value.right.op, ast.Mult) and isinstance(value.left, ast.List) and len(value.left.elts) == 1):
        return False
    count, step = value.right.left, value.right.right  # `[0] * (count * step)`
    offset = 0
    if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Add) and isinstance(index.right, ast.Constant):
        index, offset = index.left, index.right.value
    if not (isinstance(index, ast.BinOp) and isinstance(index.op, ast.Mult) and isinstance(index.left, ast.Name)
            and isinstance(step, ast.Constant) and type(step.value) is int and ast.dump(index.right) == ast.dump(step)
            and type(offset) is int and 0 <= offset < step.value):
        return False
    loop = next((a for a in ctx.ancestors(target) if isinstance(a, ast.For)), None)
    return (loop is not None and isinstance(loop.target, ast.Name) and loop.target.id == index.left.id
            and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range"
            and len(loop.iter.args) == 1 and ast.dump(loop.iter.args[0]) == ast.dump(count)
            and isinstance(count, ast.Name) and len(ctx.assignments(count.id)) == 1)


def _display_length(value: ast.expr) -> int | None:
    """The length of `[a, b, c]` or `[a] * 4`."""
    if isinstance(value, ast.List):
        return len(value.elts)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and isinstance(value.left, ast.List) \
            and isinstance(value.right, ast.Constant) and type(value.right.value) is int:
        return len(value.left.elts) * value.right.value
    return None


def _number(node: ast.expr, ctx: FunctionContext, depth: int = 3) -> bool:
    """An int from sizes: int constants, sizes and names of ints, with + - * // % << >>; a name
    every binding of which is one, or this rule's own selection of them (fixed in an earlier round)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, NUMBER_OPS) and _number(node.left, ctx, depth) and _number(node.right, ctx, depth)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _number(node.operand, ctx, depth)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == SIZE_SELECT.name:
        return True
    if ctx.sizes.is_size(node) or (isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and ctx.ints.is_int(node)):
        return True
    if isinstance(node, ast.Name) and depth > 0 and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        return bool(values) and all(isinstance(v, ast.expr) and _number(v, ctx, depth - 1) for v in values)
    return False


def _reads_out_of_order(chosen: list[dict[str, ast.expr]], names: list[str]) -> bool:
    """A value reads a name the `if` assigns other than one its own branch assigned above it and whose
    selection comes first (YOLOv4's `padding2 = padding1 + 1`): the selections run in ``names``' order,
    so a lambda reads the selected value, which is its own branch's wherever that branch is taken."""
    for values in chosen:
        assigned = list(values)
        for index, (name, value) in enumerate(values.items()):
            for sub in walk(value):
                if isinstance(sub, ast.Name) and sub.id in names and not (
                        sub.id in assigned[:index] and names.index(sub.id) < names.index(name)):
                    return True
    return False


def _reads_take_traced_values(node: ast.If, names: list[str], ctx: FunctionContext) -> bool:
    """The selected names are bound by the `if` alone (and at most once before it), and every read of
    them outside it takes the legacy trace's 0-d tensor as it takes the int (F.pad amounts, slice
    bounds, view sizes: sym_int.takes_traced_value), and there is one. No read may sit in another
    `if`, selection or nested function: a fix of that one (this rule's, ONX613's) moves the read,
    and the answer must not depend on which fix a round applied first."""
    inside = {id(n) for n in walk(node)}
    for name in names:  # bound here, or once before: a value no later binding or round changes
        outside = [v for v in ctx.assignments(name) if id(v) not in inside]
        if len(outside) > 1:
            return False
    reads = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id in names
             and isinstance(n.ctx, ast.Load) and id(n) not in inside]
    return bool(reads) and all(not _in_another_choice(read, ctx) and takes_traced_value(read, ctx) for read in reads)


def _in_another_choice(read: ast.Name, ctx: FunctionContext) -> bool:
    """The read is in an `if` (its test or branches), a lambda or nested function, a selection's
    call or the test it binds (`_onnx_taken = ...`)."""
    for ancestor in ctx.ancestors(read):
        if ancestor is ctx.fn.node:
            return False
        if isinstance(ancestor, (ast.If, ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.IfExp)):
            return True
        if isinstance(ancestor, ast.Call) and isinstance(ancestor.func, ast.Name) and ancestor.func.id == SIZE_SELECT.name:
            return True
        if isinstance(ancestor, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_onnx_taken" for t in ancestor.targets):
            return True
    return False


def _bound_before(name: str, node: ast.If, ctx: FunctionContext) -> bool:
    """The name holds a value before the `if` (a parameter, or an assignment above it); a list's
    item, where the list does."""
    if not name.isidentifier():  # a list's item: the text `items[...]`, the list a plain name
        name = name.split("[", 1)[0].strip()
    if ctx.is_parameter(name):
        return True
    return any(getattr(value, "lineno", node.lineno) < node.lineno for value in ctx.assignments(name))


RULES = [SizeSelect]
