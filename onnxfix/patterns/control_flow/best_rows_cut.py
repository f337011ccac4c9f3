"""ONX615: an `if` on a size that cuts a tensor to its k best rows only where it has more than k.

Detection heads keep the `nms_pre` best anchors of a level before NMS (mmdetection's RPN, its
one-stage heads and their forks):

    if cfg.nms_pre > 0 and scores.shape[0] > cfg.nms_pre:
        _, topk_inds = scores.topk(cfg.nms_pre)        # or ranked, inds = scores.sort(descending=True)
        scores = scores[topk_inds]                     #    inds = inds[:cfg.nms_pre] ...
        anchors = anchors[topk_inds, :]

torch.export decides the size test on the example and keeps its branch for every size (a level with
fewer anchors than k at the example fails topk in onnxruntime at larger sizes, or keeps every
anchor); the legacy exporter records the branch taken. torch.cond cannot take it either: the cut is
invalid where its test fails (topk of k from fewer rows). Where the branch only ranks the tested
tensor (topk with that k, or a sort whose results are sliced to k) and then slices to k or gathers
rows by the ranking, the test becomes `_onnx_size_over` and the ranking `_onnx_topk_over` /
`_onnx_sort_over`: in eager the test and the op themselves; while exporting the branch runs for
every size, the ranking keeping the rows in their order with their own indices where there are not
more than k, so its slices and gathers leave every tensor as it was.
"""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc
from onnxfix.rewriter.statements import is_elif, read_after_if
from onnxfix.rewriter.tree_walk import walk

SIZE_OVER = Helper("_onnx_size_over", helper_source("size_over"))
TOPK_OVER = Helper("_onnx_topk_over", helper_source("topk_over"))
SORT_OVER = Helper("_onnx_sort_over", helper_source("sort_over"))


class BestRowsCut(Rule):
    code = "ONX615"
    name = "best-rows-cut"
    summary = "An `if` on a size around a cut to the k best rows (topk / sort): taken for every size under export"
    fix_availability = "sometimes"
    default_safety = "safe"
    python_hazard = True
    doc = RuleDoc(
        what="Finds an `if` (no `else`) whose test compares a tensor's first size with k (`x.shape[0] > k`, "
        "`k < x.size(0)`, `len(x) > k`, alone or in an `and` with tests of other values, or the chain "
        "`0 < k < x.shape[0]`, kept as `0 < k and ...`) and whose body "
        "first ranks that tensor (or its best column, `max_scores, _ = (scores * centerness[:, None]).max(dim=1)`) along that dim (`x.topk(k)` / `torch.topk(x, k, ...)` with the same k, or "
        "`x.sort(...)` / `torch.sort(x, ...)`), then only assigns names slices to k (`inds[:k]`) and rows "
        "gathered by the ranking's indices (`boxes[inds]`, `boxes[inds, :]`).",
        why="torch.export decides the size test on the example's sizes and keeps that branch for every size; "
        "the legacy exporter records the branch taken. A level with fewer rows than k at the example keeps "
        "all its rows at every size, one with more cuts at every size, and a topk of k from fewer rows fails "
        "in onnxruntime (\"k argument should not be greater than specified axis dim value\"). torch.cond "
        "cannot keep both branches: the cut is invalid where its test fails.",
        example="def forward(self, scores, boxes):\n    if scores.shape[0] > self.k:\n"
        "        _, inds = scores.topk(self.k)\n        scores = scores[inds]\n        boxes = boxes[inds, :]\n"
        "    return scores, boxes",
        use_instead="def forward(self, scores, boxes):\n    if _onnx_size_over(scores.shape[0], self.k):\n"
        "        _, inds = _onnx_topk_over(scores.shape[0], scores, self.k)\n        scores = scores[inds]\n"
        "        boxes = boxes[inds, :]\n    return scores, boxes",
        fix_safety="Safe: outside an export `_onnx_size_over(n, k)` is `n > k` and `_onnx_topk_over(n, x, ...)` / "
        "`_onnx_sort_over(n, k, x, ...)` are `torch.topk(x, ...)` / `torch.sort(x, ...)` with the call's own "
        "arguments (Tensor.topk and Tensor.sort are those ops): eager runs the same test and ops on the same "
        "values. While exporting (a symbolic size, or the legacy exporter's traced one) the branch runs for "
        "every size and the ranking picks, by `n > k` as a tensor, the ranked rows or the rows in their order "
        "with indices 0..n-1, of which slices to k and gathers are the rows themselves: the tensors gathered by "
        "the ranking have the ranked tensor's rows (as they must for the cut to mean anything), which the "
        "export run's comparison on other sizes checks. tests/flow_models/best_rows_cut.py: wrong or failing "
        "under both exporters before, OK under both after.",
        references=("https://github.com/open-mmlab/mmdeploy/issues/2149",
                    "https://github.com/open-mmlab/mmdetection/issues/2299"),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        cut = best_rows_cut(node, ctx)
        if cut is None:
            return
        compare, tensor, k, helper, fix = cut
        yield ctx.report(
            self, compare,
            f"`{ctx.segment(compare)}` guards a cut of `{ctx.segment(tensor)}` to its {ctx.segment(k)} best rows, only "
            "where it has more: torch.export keeps the example's branch for every size and the legacy exporter records it; "
            f"`{SIZE_OVER.name}` takes the branch for every size under export, where `{helper.name}` keeps the rows "
            "in their order where there are not more",
            fix=fix,
        )


def best_rows_cut(node: ast.If, ctx: FunctionContext):
    """(the size comparison, the tensor cut, k, the ranking helper, the fix) of an `if` this rule
    fixes, else None (ONX601 leaves such an `if` on a data-dependent size to it)."""
    if node.orelse or ctx.compiled_by_torchscript or is_elif(node, ctx) or not node.body:
        return None
    test = _size_test(node.test, ctx)
    if test is None:
        return None
    compare, tensor, size, k, rest = test
    rows, start = _gathered_rows(node.body, tensor, node, ctx)
    ranking = _ranking(node.body[start], rows, tensor, k, ctx) if start < len(node.body) else None
    if ranking is None:
        return None
    call, helper, names = ranking
    if not _cut_only(node.body[start + 1:], names, k, ctx):
        return None
    # len() must return an int: torch.export pins the size it reads; the shape keeps it symbolic
    n = f"{ctx.segment(tensor)}.shape[0]" if isinstance(size, ast.Call) and isinstance(size.func, ast.Name) \
        else ctx.segment(size)
    edits = [ctx.replace(compare, f"{rest}{SIZE_OVER.name}({n}, {ctx.segment(k)})"),
             ctx.replace(call, _ranking_call(call, helper, n, k, ctx))]
    fix = Fix(f"Take the cut for every size under export with `{SIZE_OVER.name}` and `{helper.name}`",
              tuple(edits), safe=True, imports=("torch",), helpers=(SIZE_OVER, helper))
    return compare, tensor, k, helper, fix


def _size_test(test: ast.expr, ctx: FunctionContext):
    """(the comparison, the tensor, its size, k, the text kept before the size test) of `n > k` /
    `k < n` (the test, or one operand of its top-level `and` whose other operands read no size), or
    of a chain `0 < k < n` / `n > k > 0` (mmdetection 3's `if 0 < nms_pre < scores.shape[0]:`), whose
    other half is kept as `0 < k and ...` (k a name or an attribute: read twice, as the chain reads it once)."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    found = []
    for part in parts:
        if not isinstance(part, ast.Compare):
            continue
        if len(part.ops) == 1:
            sides = _over(part, ctx)
            if sides is not None:
                found.append((part, *sides, ""))
        elif len(part.ops) == 2:
            found.extend(_chained(part, ctx))
    if len(found) != 1:
        return None
    others = [part for part in parts if part is not found[0][0]]
    if any(_reads_size(part, ctx) for part in others):
        return None
    return found[0]


def _chained(compare: ast.Compare, ctx: FunctionContext) -> list[tuple]:
    """`a < k < n` or `n > k > a` as its size half (`k < n`) and the text of the other (`a < k and `)."""
    first, second = compare.ops
    a, k, n = compare.left, *compare.comparators
    if isinstance(first, ast.Gt):  # `n > k > a`
        a, n = n, a
    if not (type(first) is type(second) and isinstance(first, (ast.Lt, ast.Gt))
            and isinstance(k, (ast.Name, ast.Attribute)) and not _reads_size(a, ctx)):
        return []
    symbol = "<" if isinstance(first, ast.Lt) else ">"
    half = ast.Compare(left=k, ops=[ast.Lt()], comparators=[n]) if symbol == "<" else \
        ast.Compare(left=n, ops=[ast.Gt()], comparators=[k])
    sides = _over(half, ctx)
    if sides is None:
        return []
    kept = f"{ctx.segment(a)} < {ctx.segment(k)}" if symbol == "<" else f"{ctx.segment(k)} > {ctx.segment(a)}"
    return [(compare, *sides, f"{kept} and ")]


def _over(compare: ast.Compare, ctx: FunctionContext) -> tuple[ast.expr, ast.expr, ast.expr] | None:
    """(tensor, size, k) of `size > k` or `k < size`, the size a first dim."""
    op, left, right = compare.ops[0], compare.left, compare.comparators[0]
    if isinstance(op, ast.Gt):
        size, k = left, right
    elif isinstance(op, ast.Lt):
        size, k = right, left
    else:
        return None
    tensor = _first_dim_of(size)
    if tensor is None or _reads_size(k, ctx) or _first_dim_of(k) is not None:
        return None
    return tensor, size, k


def _first_dim_of(size: ast.expr) -> ast.expr | None:
    """x of `x.shape[0]`, `x.size(0)`, `x.size()[0]`, `len(x)`."""
    if isinstance(size, ast.Call) and isinstance(size.func, ast.Name) and size.func.id == "len" and len(size.args) == 1:
        return size.args[0]
    if isinstance(size, ast.Call) and isinstance(size.func, ast.Attribute) and size.func.attr == "size":
        return size.func.value if len(size.args) == 1 and _is_zero(size.args[0]) and not size.keywords else None
    if isinstance(size, ast.Subscript) and _is_zero(size.slice):
        shape = size.value
        if isinstance(shape, ast.Attribute) and shape.attr == "shape":
            return shape.value
        if isinstance(shape, ast.Call) and isinstance(shape.func, ast.Attribute) and shape.func.attr == "size" \
                and not shape.args and not shape.keywords:
            return shape.func.value
    return None


def _is_zero(node: ast.expr) -> bool:
    return int_constant(node) == 0


def _reads_size(node: ast.expr, ctx: FunctionContext) -> bool:
    return any(ctx.sizes.is_size(sub) or _first_dim_of(sub) is not None for sub in walk(node))


def _gathered_rows(body: list[ast.stmt], tensor: ast.expr, node: ast.If, ctx: FunctionContext) -> tuple[set[str], int]:
    """The texts of tensors with the tested tensor's rows (itself, and the names the statements
    before the ranking bind to rows gathered by it: ALIKE's `kpts_sc = scores[indices]`), and the
    index of the first other statement."""
    rows = {ast.unparse(tensor)}
    for position, statement in enumerate(body):
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            return rows, position
        target, value = statement.targets[0], statement.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Subscript) \
                and ast.unparse(value.slice) == ast.unparse(tensor):
            rows.add(target.id)
        elif _row_reduction(value, rows) and _fresh(target, rows, node, ctx):
            rows.add(target.id)
        elif _row_reduction(value, rows, pair=True) and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and all(_fresh(e, rows, node, ctx) for e in target.elts):
            rows.add(target.elts[0].id)  # `max_scores, _ = scores.max(dim=1)`
        else:
            return rows, position
    return rows, len(body)


_ROW_REDUCTIONS = frozenset({"max", "amax", "min", "amin", "sum", "mean"})


def _fresh(target: ast.expr, rows: set[str], node: ast.If, ctx: FunctionContext) -> bool:
    """A name the branch binds for the ranking alone: not a tensor the cut keeps, bound nowhere
    else in the function, read nowhere after the `if` (under export the branch runs for every size,
    and a name rebound to the reduction would leave it with other rows or another rank)."""
    if not isinstance(target, ast.Name) or target.id in rows:
        return False
    if target.id == "_":
        return True
    return len(ctx.assignments(target.id)) == 1 and not read_after_if({target.id}, node, ctx)


def _row_reduction(value: ast.expr, rows: set[str], pair: bool = False) -> bool:
    """A reduction over a dim other than the first of a tensor with the tested rows, or of an
    elementwise product, sum or quotient with one (mmdetection's heads rank the best class per
    anchor: `max_scores, _ = (scores * centerness[:, None]).max(dim=1)`): it has those rows. With
    ``pair``, `max` / `min` unpacked into values and indices; without, `.values`, `[0]` of them or
    a reduction giving one tensor."""
    if not pair and isinstance(value, ast.Attribute) and value.attr == "values":
        return _row_reduction(value.value, rows, pair=True)
    if not pair and isinstance(value, ast.Subscript) and int_constant(value.slice) == 0:
        return _row_reduction(value.value, rows, pair=True)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _ROW_REDUCTIONS):
        return False
    if pair != (value.func.attr in ("max", "min")):
        return False
    dims = [a for a in value.args] + [kw.value for kw in value.keywords if kw.arg == "dim"]
    dim = int_constant(dims[0]) if len(dims) == 1 else None
    if dim is None or dim < 1 or any(kw.arg not in ("dim", "keepdim") for kw in value.keywords):
        return False  # a negative dim may be the first of a 1-D or 2-D tensor
    reduced = value.func.value
    if isinstance(reduced, ast.BinOp) and isinstance(reduced.op, (ast.Mult, ast.Add, ast.Sub, ast.Div)):
        sides = (reduced.left, reduced.right)
        return any(_has_rows(a, rows) and (_has_rows(b, rows) or _keeps_rows(b)) for a, b in (sides, sides[::-1]))
    return _has_rows(reduced, rows)


def _keeps_rows(operand: ast.expr) -> bool:
    """A number, or a column of a 1-D tensor (`centerness[:, None]`): broadcast against the rows,
    it adds no leading dim."""
    if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
        return True
    index = operand.slice if isinstance(operand, ast.Subscript) else None
    return isinstance(index, ast.Tuple) and len(index.elts) == 2 and isinstance(index.elts[0], ast.Slice) \
        and index.elts[0].lower is None and index.elts[0].upper is None and index.elts[0].step is None \
        and isinstance(index.elts[1], ast.Constant) and index.elts[1].value is None


def _ranking(statement: ast.stmt, rows: set[str], tested: ast.expr, k: ast.expr, ctx: FunctionContext):
    """(the ranking call, its helper, {name: "values" | "indices"}) of the statement: `a, b = <rank>`,
    `b = <rank>[1]` / `<rank>.indices` (values likewise), the rank a topk by k or a sort of a tensor
    with the tested tensor's rows (``rows``; or a column of one, `boxes[:, -1]`; or rows gathered by the
    tested tensor in place, ALIKE's `scores[indices].sort(...)`), along its first dim
    (or the last: the tensor is then 1-D, which the helper checks while exporting)."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target, value = statement.targets[0], statement.value
    part = None
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and value.slice.value in (0, 1):
        value, part = value.value, ("values", "indices")[value.slice.value]
    elif isinstance(value, ast.Attribute) and value.attr in ("values", "indices"):
        value, part = value.value, value.attr
    if not isinstance(value, ast.Call):
        return None
    helper = _ranked(value, rows | {_gathered_text(tested)}, k, ctx)
    if helper is None:
        return None
    if part is not None and isinstance(target, ast.Name):
        return value, helper, {target.id: part}
    if part is None and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and all(isinstance(e, ast.Name) for e in target.elts):
        return value, helper, {e.id: kind for e, kind in zip(target.elts, ("values", "indices")) if e.id != "_"}
    return None


def _ranked(call: ast.Call, rows: set[str], k: ast.expr, ctx: FunctionContext) -> Helper | None:
    """The helper of a topk by ``k`` or a sort of a tensor with the tested rows, along dim 0 or -1."""
    qualname = ctx.qualname(call.func)
    if qualname in ("torch.topk", "torch.sort") and call.args and _has_rows(call.args[0], rows):
        op, rest = qualname.rsplit(".", 1)[1], call.args[1:]
    elif isinstance(call.func, ast.Attribute) and call.func.attr in ("topk", "sort") \
            and _has_rows(call.func.value, rows):
        op, rest = call.func.attr, call.args
    else:
        return None
    if any(isinstance(a, ast.Starred) for a in rest) or any(kw.arg is None for kw in call.keywords):
        return None
    names = ("k", "dim", "largest", "sorted") if op == "topk" else ("dim", "descending", "stable")
    if len(rest) > len(names):
        return None
    arguments = dict(zip(names, rest)) | {kw.arg: kw.value for kw in call.keywords}
    dim = arguments.get("dim")
    if dim is not None and int_constant(dim) not in (0, -1):
        return None
    if op == "topk":
        return TOPK_OVER if "k" in arguments and ctx.segment(arguments["k"]) == ctx.segment(k) else None
    return SORT_OVER


def _gathered_text(tested: ast.expr) -> str:
    """How a gather of rows by the tested tensor reads, whatever is gathered (`scores[indices]`):
    compared with a subscript's index by _has_rows."""
    return "[" + ast.unparse(tested) + "]"


def _has_rows(node: ast.expr, rows: set[str]) -> bool:
    """One of ``rows``, or a column of one (`boxes[:, -1]`, `boxes[..., 4]`: its rows, 1-D)."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2:
        whole, column = node.slice.elts
        full = (isinstance(whole, ast.Slice) and whole.lower is None and whole.upper is None and whole.step is None) \
            or (isinstance(whole, ast.Constant) and whole.value is Ellipsis)
        return full and int_constant(column) is not None and ast.unparse(node.value) in rows
    if isinstance(node, ast.Subscript) and "[" + ast.unparse(node.slice) + "]" in rows:
        return True  # rows gathered by the tested tensor (its length is the tested size)
    return ast.unparse(node) in rows


def _cut_only(statements: list[ast.stmt], ranked: dict[str, str], k: ast.expr, ctx: FunctionContext) -> bool:
    """Every statement assigns one name a slice to k of a name, or rows of a name gathered by the
    ranking's indices (`inds`, `inds[:k]` bound to a name, followed by `:` / `...`); the ranked
    values themselves are only cut to k."""
    indices = {name for name, kind in ranked.items() if kind == "indices"}
    values = set(ranked) - indices
    for statement in statements:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            return False
        name, value = statement.targets[0].id, statement.value
        if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
            return False
        source, cut = value.value.id, _slice_to(value.slice, k, ctx)
        if not cut and (source in values or not _gathered_by(value.slice, indices, k, ctx)):
            return False
        is_index, is_value = cut and source in indices, cut and source in values
        indices.discard(name)
        values.discard(name)
        if is_index:
            indices.add(name)
        elif is_value:
            values.add(name)
    return True


def _slice_to(index: ast.expr, k: ast.expr, ctx: FunctionContext) -> bool:
    """`:k` (nothing else: a slice to k of at most k rows keeps them all)."""
    return isinstance(index, ast.Slice) and index.lower is None and index.step is None \
        and index.upper is not None and ctx.segment(index.upper) == ctx.segment(k)


def _gathered_by(index: ast.expr, indices: set[str], k: ast.expr, ctx: FunctionContext) -> bool:
    """`inds`, `inds, :`, `inds, ...` with inds the ranking's indices, or their cut to k in place
    (`keep[order[:k]]`, what binding `chosen = order[:k]` first reads)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    first = parts[0] if parts else None
    if isinstance(first, ast.Subscript) and _slice_to(first.slice, k, ctx):
        first = first.value
    if not (isinstance(first, ast.Name) and first.id in indices):
        return False
    return all((isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None)
               or (isinstance(p, ast.Constant) and p.value is Ellipsis) for p in parts[1:])


def _ranking_call(call: ast.Call, helper: Helper, n: str, k: ast.expr, ctx: FunctionContext) -> str:
    """`_onnx_topk_over(n, x, <the call's arguments>)` / `_onnx_sort_over(n, k, x, ...)`."""
    if isinstance(call.func, ast.Attribute) and ctx.qualname(call.func) not in ("torch.topk", "torch.sort"):
        tensor, arguments = ctx.segment(call.func.value), call.args
    else:
        tensor, arguments = ctx.segment(call.args[0]), call.args[1:]
    parts = [n] + ([ctx.segment(k)] if helper is SORT_OVER else []) + [tensor]
    parts += [ctx.segment(a) for a in arguments] + [f"{kw.arg}={ctx.segment(kw.value)}" for kw in call.keywords]
    return f"{helper.name}({', '.join(parts)})"


RULES = [BestRowsCut]
