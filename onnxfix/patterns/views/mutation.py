"""ONX303: in-place writes through views the exporters lose."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.patterns.views.chains import (
    SCALAR_ELEMENTWISE,
    VIEW_REFERENCES,
    ViewChain,
    _loaded_after,
    _rebound_between,
    mutation_target,
    named_view,
    view_chain,
)
from onnxfix.patterns.views.method_views import method_view_fix
from onnxfix.patterns.views.named_slices import named_slice_views
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import in_training_branch
from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.integers import int_constant, is_number
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk


class ViewMutation(Rule):
    code = "ONX303"
    name = "mutation-through-view"
    summary = "in-place write through a view the legacy exporter turns into a copy"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds in-place writes whose target is a view of another tensor that is used
            afterwards: a view held in a variable that is not read again (`v = y[:, 1:];
            v.add_(1)`, `v += 1`, `a, b = y.chunk(2); a.mul_(2)`), a view made by a method (`y.view(-1).mul_(2)`,
            `y.t()[0].mul_(2)`, `y.view(-1)[::2] = 0`, `y.narrow(1, 0, 2).add_(1)`), and
            in-place functionals on a slice (`F.relu(y[:, :2], inplace=True)`). An in-place
            method directly on a subscript of the tensor (`y[:, 0].mul_(2)`, `y[:, 1:] += 1`)
            is exported correctly and not reported.
        """,
        why="""
            The legacy exporter records the view as a copy (Slice, Reshape, Transpose) and the
            write goes into the copy, so the tensor read afterwards is unchanged. Measured on
            torch 2.13, each form above exports a model that is silently wrong even on the
            export inputs, with no warning. The dynamo exporter functionalises them correctly,
            so this is a legacy-only hazard. Reported in the wild as NeMo updates through a
            slice view lost in export (pytorch#80271) and in-place indexed writes ignored
            (pytorch#26073, pytorch#159295).
        """,
        example="""
            def forward(self, x: torch.Tensor):
                y = x.clone()
                v = y[:, 1:]
                v.add_(1)
                F.relu(y[:, :1], inplace=True)
                y.t()[0].mul_(2)
                return y
        """,
        use_instead="""
            def forward(self, x: torch.Tensor):
                y = x.clone()
                v = y[:, 1:]
                y[:, 1:].add_(1)
                y[:, :1] = F.relu(y[:, :1])
                y[..., 0].mul_(2)
                return y
        """,
        fix_safety="""
            Safe where offered: the write lands in the same elements of the same storage, in
            place, so eager results and aliasing are unchanged. A slice held in a name and written
            by index (`x_kpt = x[i][..., 6:]; x_kpt[..., 0::3] = ...`, YOLOv7-pose, read again
            after) becomes writes into one subscript of the base, the two slicings composed
            (`x[i][..., 6::3] = ...`: literal non-negative starts, positive steps, no stop on the
            view), and the reads after the first write read the slice afresh (`x[i][..., 6:]`),
            when the name is bound once and the base is not reassigned before its last use
            (tests/flow_models/named_slice_write.py: legacy silently wrong before, OK after). A view variable made by
            subscripts is replaced by its subscript expression at the write (`v.add_(1)` ->
            `y[:, 1:].add_(1)`, `v += e` -> `y[:, 1:] += e`), when the tensor and the index
            names are not rebound in between. An in-place functional becomes
            an assignment into the subscript (`y[:, :2] = F.relu(y[:, :2])`; these functions
            keep dtype and shape). `y.t()[k]` becomes `y[..., k]` (the same elements for the
            1-D and 2-D tensors `t()` accepts), `y.transpose(0, 1)[i]` becomes `y[:, i]`, and
            `y.view(...)` / `y.view_as(...)` (inline or held in a variable) is dropped before an
            elementwise in-place op with number arguments (`y.view(-1).mul_(2)` -> `y.mul_(2)`).
            A number written into a strided slice of the flat view (`y.view(-1)[a::k] = v`,
            literal start >= 0, no stop, literal step >= 1) becomes a masked fill of the same
            flat positions, `y.masked_fill_(torch.arange(y.numel(), device=y.device).view(y.shape)
            % k == 0, v)` (`y.fill_(v)` for `[:]`): no subscript of `y` is the same for every
            shape (`y.view(-1)[::2]` is `y[..., ::2]` only when the last dimension is even, and
            a checkerboard across rows otherwise), so the positions are computed from the flat
            index. Same elements, same storage, written in place; the only eager difference is
            where the original raises (`view(-1)` of a tensor it cannot view). Numbers beyond
            65504 get no fix (masked_fill_ refuses a number that overflows float16 where the
            assignment stores inf). Measured OK in both exporters on other sizes
            (tests/flow_models/views_flat.py). `y.narrow(d, s, n)` with a literal dim and a
            start that is a non-negative int becomes the subscript `y[:, ..., s:s + n]` (the same
            elements; where narrow raises past the end, the slice clips), and a diagonal filled
            with a number (`y.diagonal(offset, d1, d2).fill_(v)` / `.copy_(v)` / `.zero_()`,
            torchtune's causal mask) `_onnx_fill_diagonal_view(y, v, offset, d1, d2)`, a masked
            fill of the same elements of `y` (bit operations on a bool tensor, which onnxruntime
            has no Where for): both exporters OK (tests/flow_models/diagonal_fill.py: dynamo
            fails and legacy is silently wrong before). Other views (`chunk`, a flat slice with
            a stop or a tensor value, a tensor copied into a diagonal) are reported without a
            fix: assign the new values into the base (`y[:, a:b] = ...`) or build the result out
            of place (`torch.where`, `torch.cat`).
        """,
        references=VIEW_REFERENCES,
    )

    def check_function(self, ctx: FunctionContext):
        done: set[int] = set()
        for first, name, base, fix, writes in named_slice_views(ctx):
            if in_training_branch(first, ctx):
                continue
            done |= {id(w) for w in writes}
            yield ctx.report(self, first, f"write into `{name}`, a slice of `{base}` held in a name: the legacy "
                             f"exporter makes the slice a copy, so neither `{base}` nor later reads of `{name}` see "
                             "it (silently wrong)", fix=fix)
        for statement in _statements(ctx):
            if id(statement) in done:
                continue
            found = mutation_target(statement, ctx)
            if found is None or in_training_branch(statement, ctx):
                continue
            kind, target = found
            if isinstance(target, ast.Name):
                yield from self._through_variable(kind, statement, target, ctx)
            else:
                yield from self._through_expression(kind, statement, target, ctx)

    def _through_variable(self, kind: str, statement: ast.stmt, target: ast.Name, ctx: FunctionContext):
        view = named_view(target.id, ctx)
        if view is None:
            return
        assignment, chain, expression = view
        if assignment.lineno >= statement.lineno or not _loaded_after(chain.base, statement, ctx):
            return
        if _loaded_after(target.id, statement, ctx):
            # The write stays visible through the view itself, which is what code like
            # `part = freq[0]; part[..., i] = ...; return part` uses; whether the later reads of
            # the base need it cannot be told statically, so this is not reported.
            return
        fix = None
        unchanged = expression is not None and not _rebound_between(_names_in(expression), assignment, statement, ctx)
        if unchanged and not chain.methods and kind in ("method", "augassign", "functional"):
            fix = self._substitute(kind, statement, target, ctx.segment(expression), ctx)
        elif unchanged and kind == "method" and _is_whole_view(expression) and _scalar_elementwise(statement.value):
            # v = y.view(-1); v.mul_(2): the op covers every element of y
            fix = Fix("Apply the op to the tensor itself", (ctx.replace(target, chain.base),), safe=True)
        message = (
            f"in-place write to `{target.id}`, a view of `{chain.base}`: the legacy exporter makes "
            f"the view a copy, so `{chain.base}` is not updated (silently wrong)"
        )
        yield ctx.report(self, statement, message, fix=fix)

    def _through_expression(self, kind: str, statement: ast.stmt, target: ast.expr, ctx: FunctionContext):
        chain = view_chain(target, ctx)
        if chain is None:
            return
        if not chain.methods and kind != "functional":
            return  # in-place on a direct subscript: the legacy exporter handles it
        if kind == "functional":
            fix = self._substitute(kind, statement, target, ctx.segment(target), ctx) if not chain.methods else None
        elif kind == "method":
            fix = self._method_chain_fix(statement, target, chain, ctx)
        else:
            fix = _flat_stride_fix(statement, target, ctx)
        message = (
            f"in-place write through a view of `{chain.base}` (`{ctx.segment(target)}`): the legacy "
            f"exporter makes the view a copy, so `{chain.base}` is not updated (silently wrong)"
        )
        yield ctx.report(self, statement, message, fix=fix)

    def _substitute(self, kind: str, statement: ast.stmt, target: ast.expr, subscript: str, ctx: FunctionContext) -> Fix | None:
        if kind == "functional":
            call = statement.value
            arguments = [subscript] + [ctx.segment(a) for a in call.args[1:]]
            arguments += [ctx.segment(k) for k in call.keywords if k.arg != "inplace"]
            func = ctx.segment(call.func)
            if func.endswith("_"):
                func = func[:-1]
            new_text = f"{subscript} = {func}({', '.join(arguments)})"
            return Fix("Assign the result into the subscript", (ctx.replace(statement, new_text),), safe=True)
        return Fix("Write through the subscript of the base tensor", (ctx.replace(target, subscript),), safe=True)

    def _method_chain_fix(self, statement: ast.stmt, target: ast.expr, chain: ViewChain, ctx: FunctionContext) -> Fix | None:
        call = statement.value
        method = call.func.attr
        base = chain.base
        scalar_args = all(is_number(a) for a in call.args) and all(is_number(k.value) for k in call.keywords)
        # y.view(...).op_(numbers) -> y.op_(numbers)
        if _is_whole_view(target):
            if _scalar_elementwise(call):
                return Fix("Apply the op to the tensor itself", (ctx.replace(target, base),), safe=True)
            return None
        if isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute) and isinstance(target.func.value, ast.Name):
            return method_view_fix(statement, target, ctx)  # `x.narrow(...)` / `x.diagonal(...)`
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Call)):
            return None
        view, index = target.value, target.slice
        if not (isinstance(view.func, ast.Attribute) and isinstance(view.func.value, ast.Name)):
            return None
        if isinstance(index, ast.Tuple):
            return None
        index_text = ctx.segment(index)
        integer = _is_integer(index)
        if view.func.attr == "t" and not view.args and (integer or (method in SCALAR_ELEMENTWISE and scalar_args)):
            return Fix("Index the tensor itself (`[..., k]`)", (ctx.replace(target, f"{base}[..., {index_text}]"),), safe=True)
        if view.func.attr == "transpose" and integer and _transposes_first_two(view):
            return Fix("Index the tensor itself (`[:, k]`)", (ctx.replace(target, f"{base}[:, {index_text}]"),), safe=True)
        return None


# Largest magnitude float16 holds: masked_fill_ refuses a number that overflows the dtype where
# an indexed assignment stores inf, so larger numbers get no fix.
_FLAT_FILL_LIMIT = 65504


def _flat_stride_fix(statement: ast.stmt, target: ast.expr, ctx: FunctionContext) -> Fix | None:
    """`y.view(-1)[a::k] = number` -> `y.masked_fill_(<flat positions a, a+k, ...>, number)`.

    No subscript of `y` is the same for every shape (`y.view(-1)[::2]` is `y[..., ::2]` only when
    the last dimension is even), so the positions are computed from a flat arange shaped like `y`:
    the same elements of the same storage, written in place. Only a non-negative literal start,
    no stop, a positive literal step and a number value."""
    if not (isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Subscript)):
        return None
    if not (_is_whole_view(target) and len(target.args) == 1 and not target.keywords and int_constant(target.args[0]) == -1):
        return None
    index, value = statement.targets[0].slice, statement.value
    if not (isinstance(index, ast.Slice) and index.upper is None and is_number(value)):
        return None
    start = 0 if index.lower is None else int_constant(index.lower)
    step = 1 if index.step is None else int_constant(index.step)
    if start is None or step is None or start < 0 or step < 1 or abs(ast.literal_eval(value)) > _FLAT_FILL_LIMIT:
        return None
    base, number = target.func.value.id, ctx.segment(value)
    torch, imports = ctx.torch_name()
    if start == 0 and step == 1:
        return Fix("Fill the tensor itself", (ctx.replace(statement, f"{base}.fill_({number})"),), safe=True)
    flat = f"{torch}.arange({base}.numel(), device={base}.device).view({base}.shape)"
    if start == 0:
        mask = f"{flat} % {step} == 0"
    elif step == 1:
        mask = f"{flat} >= {start}"
    else:
        mask = f"({flat} >= {start}) & ({flat} % {step} == {start % step})"
    text = f"{base}.masked_fill_({mask}, {number})"
    return Fix("Fill the flat positions of the tensor itself", (ctx.replace(statement, text),), safe=True, imports=imports)


def _is_whole_view(node: ast.AST) -> bool:
    """`y.view(...)` / `y.view_as(...)` of a name: the same elements as `y`, reshaped."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("view", "view_as")
        and isinstance(node.func.value, ast.Name)
    )


def _scalar_elementwise(call: ast.Call) -> bool:
    """An elementwise in-place op with number arguments: the same on any view of all elements."""
    return (
        call.func.attr in SCALAR_ELEMENTWISE
        and all(is_number(a) for a in call.args)
        and all(is_number(k.value) for k in call.keywords)
    )


def _statements(ctx: FunctionContext):
    """The function's statements that run in eval mode (what the rules' visitors see)."""
    return [node for node, _ in walk_function_body(ctx.fn.node) if isinstance(node, ast.stmt)]


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}




def _is_integer(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _transposes_first_two(call: ast.Call) -> bool:
    values = [a.value for a in call.args if isinstance(a, ast.Constant)]
    return len(call.args) == 2 and len(values) == 2 and sorted(values) == [0, 1] and not call.keywords
