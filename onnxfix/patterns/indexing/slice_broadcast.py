"""ONX706: a tensor broadcast into a slice (`bias[:, 1:, 0, :] = t` with `t` of shape (1, 1, C)):
the legacy exporter expands the value to the slice's shape of the traced input."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.patterns.indexing.rules import INDEX_REFERENCES, simple_receiver, subscript_target
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

SHAPE_METHODS = frozenset({"view", "reshape"})
VECTOR_FACTORIES = frozenset({"torch.arange", "torch.linspace", "torch.logspace"})  # one axis
SIZED_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn"})
SAME_SHAPE_METHODS = frozenset({"to", "float", "double", "half", "long", "int", "type_as", "clone", "contiguous", "detach"})


class SliceBroadcastWrite(Rule):
    code = "ONX706"
    name = "slice-broadcast-write"
    summary = "a tensor broadcast into a slice (`bias[:, 1:, 0, :] = t`, `t` of shape (1, 1, C)): `t.expand_as(...)` of the slice"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds `x[<slices>] = v` where `v` is a tensor that broadcasts into the slice: shaped
            with a literal 1 (`w.view(1, 1, dim)`, `reshape(...)`, `.unsqueeze(d)`, `[:, None]`),
            or with fewer axes than the slice keeps (`torch.arange(n)` into two axes; under
            `onnxfix export`, any name by the run's evidence of its rank, and of an axis of size 1:
            CosyVoice's `x_in[:] = x` of a (1, 80, T) `x` into a (2, 80, T) buffer); and, where the
            receiver's rank is known (a sized factory such as `torch.zeros([2, 80, t])`, the run's
            evidence), a value with more axes than the slice keeps, whose leading axes the write
            drops (`mu_in[0] = mu`, `mu` of shape (1, 80, T)). Uni-Mol's
            `graph_attn_bias[:, 1:, 0, :] = t` with `t = weight.view(1, 1, pair_dim)`; Flux's
            `img_ids[:, :, 1] = torch.linspace(0, h - 1, steps=h).unsqueeze(1)`.
        """,
        why="""
            The legacy exporter writes the broadcast as an Expand to the slice's shape on the
            traced input, a constant: another graph size fails in onnxruntime ("invalid expand
            shape"; pytorch/pytorch#107841, measured on torch 2.13). A value already of the
            slice's shape, expanded by `expand_as` of the slice, exports with the slice's
            shape computed at run time. The dynamo exporter is correct either way.
        """,
        example="""
            def forward(self, bias: torch.Tensor, virtual: torch.Tensor):
                t = virtual.view(1, 1, -1)
                bias[:, 1:, 0, :] = t
                return bias
        """,
        use_instead="""
            def forward(self, bias: torch.Tensor, virtual: torch.Tensor):
                t = virtual.view(1, 1, -1)
                bias[:, 1:, 0, :] = t.expand_as(bias[:, 1:, 0, :])
                return bias
        """,
        fix_safety="""
            Safe: an index write copies the value broadcast to the slice's shape, and
            `expand_as` of the slice is that broadcast, as a view of the same elements, so the
            same numbers are written in the same dtype conversion. The subscript is slices,
            integer literals, `None` and `...` (no tensor index, nothing evaluated twice that
            could differ). A value with more axes than the slice keeps (an index write drops
            its leading axes of size 1, which `expand_as` refuses) is offered only where the
            slice's rank is known, and those axes are squeezed first: `squeeze` of them is a
            view of the same elements (eager raises unless they are 1, and `squeeze` leaves an
            axis that is not, so `expand_as` raises then too). Unsafe where the object written
            is not known to be a tensor (an unannotated `forward` parameter: a NumPy array takes
            the value, but has no slice for `expand_as`); under `onnxfix export` the run's
            evidence makes it safe.
        """,
        references=INDEX_REFERENCES,
    )

    def visit_Assign(self, node: ast.Assign, ctx: FunctionContext):
        target = subscript_target(node)
        if target is None or not simple_receiver(target.value) or ctx.tensors.is_tensor(node.value) is not True:
            return
        receiver = ctx.tensors.is_tensor(target.value)
        if receiver is False:
            return  # a NumPy array takes a tensor's values; `expand_as` of its slice does not exist
        elements = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        if not all(_plain_index(e) for e in elements):
            return
        kept, exact = _slice_rank(target.value, elements, ctx)
        shape = _value_shape(node.value, ctx)
        if shape is None:
            return
        rank, unit = shape
        value = operand(ctx.segment(node.value), node.value, ATOM)
        if rank > kept and exact:
            # the write drops the value's leading axes (eager raises unless they are 1): squeezed
            # here, a view of the same elements (an axis that is not 1 stays, and expand_as raises)
            leading = ", ".join(str(d) for d in range(rank - kept))
            value, what = f"{value}.squeeze({leading if rank - kept == 1 else f'({leading})'})", DROPPED
        elif rank > kept or not any(isinstance(e, ast.Slice) for e in elements) or not (unit or rank < kept):
            return
        else:
            what = BROADCAST
        text = f"{value}.expand_as({ctx.segment(target)})"
        fix = Fix("Expand the value to the slice with `expand_as`", (ctx.replace(node.value, text),), safe=bool(receiver))
        yield ctx.report(self, node, what + ("" if receiver else " (unsafe: the written object is not known to be a tensor)"),
                         fix=fix)


BROADCAST = ("a tensor broadcast into a slice: the legacy exporter expands it to the slice's shape on the traced input "
             "(another size fails in onnxruntime); `expand_as` of the slice writes the same elements with the shape "
             "computed at run time")
DROPPED = ("a tensor with more axes than the slice it is written into (its leading axes of size 1 dropped): the legacy "
           "exporter reshapes it to the slice's shape on the traced input (another size fails in onnxruntime); "
           "`squeeze` of those axes and `expand_as` of the slice write the same elements with the shape computed "
           "at run time")


def _slice_rank(receiver: ast.expr, elements: list[ast.expr], ctx: FunctionContext) -> tuple[int, bool]:
    """(the axes the slice keeps, exactly known): the receiver's rank less its int indices plus its
    `None`s where that rank is known (`b = torch.zeros([2, 3, t])`, a run's evidence), else the
    explicit slices and `None`s (a lower bound: `b[:, 1]` of a 3-d `b` keeps two axes)."""
    nones = sum(isinstance(e, ast.Constant) and e.value is None for e in elements)
    shape = _value_shape(receiver, ctx)
    if shape is None:
        return sum(isinstance(e, ast.Slice) for e in elements) + nones, False
    ints = sum(isinstance(e, ast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool)
               for e in elements)
    return shape[0] - ints + nones, True


def _plain_index(node: ast.expr) -> bool:
    """A slice of names and numbers, an int literal, None or `...`: no tensor index."""
    if isinstance(node, ast.Slice):
        return all(part is None or _bound(part) for part in (node.lower, node.upper, node.step))
    return isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis or (
        isinstance(node.value, int) and not isinstance(node.value, bool)))


def _bound(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, (ast.Constant, ast.Name, ast.Attribute))


def _value_shape(node: ast.expr, ctx: FunctionContext) -> tuple[int, bool] | None:
    """(rank, some axis a literal 1) of a value written: `w.view(1, 1, d)` / `reshape(...)`,
    `torch.arange(n).unsqueeze(1)`, `pos[:, None]`, a cast or copy of one, a name bound once to
    one, or a name the run saw hold tensors of one rank (with an axis of size 1 where it always had one)."""
    if isinstance(node, ast.Name):
        values = ctx.assignments(node.id)
        if not ctx.is_parameter(node.id) and len(values) == 1 and isinstance(values[0], (ast.Call, ast.Subscript)):
            return _value_shape(values[0], ctx)  # a parameter rebound once still holds the argument before
        observed = ctx.observed(node)
        ranks = {v.rank for v in observed or ()}
        if observed and all(v.kind == "tensor" for v in observed) and len(ranks) == 1 and min(ranks) >= 0:
            return ranks.pop(), all(v.unit for v in observed)  # an axis of size 1 on every call
        return None
    if isinstance(node, ast.Subscript):
        return _indexed_shape(node, ctx)
    if not isinstance(node, ast.Call):
        return None
    if ctx.qualname(node.func) in VECTOR_FACTORIES:
        return 1, False
    if ctx.qualname(node.func) in SIZED_FACTORIES:
        return _factory_rank(node, ctx.qualname(node.func) == "torch.full")
    if not isinstance(node.func, ast.Attribute):
        return None
    method = node.func.attr
    if method in SAME_SHAPE_METHODS:
        return _value_shape(node.func.value, ctx)
    if method == "unsqueeze" and len(node.args) == 1 and not node.keywords:
        inner = _value_shape(node.func.value, ctx)
        return None if inner is None else (inner[0] + 1, True)
    if method not in SHAPE_METHODS or node.keywords or not node.args:
        return None
    sizes = node.args[0].elts if len(node.args) == 1 and isinstance(node.args[0], (ast.Tuple, ast.List)) else node.args
    if any(isinstance(s, ast.Starred) for s in sizes) or (len(node.args) == 1 and sizes is node.args and not _int_literal(sizes[0])):
        return None  # `view(z.shape)`, `reshape((1,) + x.shape)`, `view(torch.int32)`: one argument, any rank
    return len(sizes), any(isinstance(s, ast.Constant) and s.value == 1 for s in sizes)


def _indexed_shape(node: ast.Subscript, ctx: FunctionContext) -> tuple[int, bool] | None:
    """`pos[:, None]`: the value's rank, less its int indices, plus its `None`s."""
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if not all(_plain_index(e) for e in elements) or any(
            isinstance(e, ast.Constant) and e.value is Ellipsis for e in elements):
        return None
    inner = _value_shape(node.value, ctx)
    if inner is None:
        return None
    added = sum(isinstance(e, ast.Constant) and e.value is None for e in elements)
    dropped = sum(isinstance(e, ast.Constant) and isinstance(e.value, int) for e in elements)
    return inner[0] + added - dropped, inner[1] or added > 0


def _factory_rank(node: ast.Call, full: bool) -> tuple[int, bool] | None:
    """`torch.zeros([2, 80, t])`, `torch.ones(b, n)`, `torch.full((b, n), v)` (``full``: its size is
    the first argument only): as many axes as sizes (one argument that is no list or tuple may be a
    whole shape of any rank)."""
    arguments = node.args[:1] if full else node.args
    if len(arguments) == 1 and isinstance(arguments[0], (ast.Tuple, ast.List)):
        arguments = arguments[0].elts
    elif len(arguments) == 1 and not _int_literal(arguments[0]):
        return None
    if not arguments or any(isinstance(a, ast.Starred) for a in arguments):
        return None
    return len(arguments), any(isinstance(a, ast.Constant) and a.value == 1 for a in arguments)


def _int_literal(node: ast.expr) -> bool:
    """A lone `view` argument that is one size: an int literal (an attribute or an expression may
    be a shape, a tuple sum, or a dtype)."""
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


RULES = [SliceBroadcastWrite]
