"""ONX702-ONX704: advanced indexing the legacy exporter translates wrongly or not at all.

The dynamo exporter handles every pattern here (measured on torch 2.13, static and dynamic
shapes), so these rules target the legacy exporter only: they report when the project's
`exporters` include "legacy".
"""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.patterns.indexing.computed_index import computed_index_fix
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc

INDEX_REFERENCES = (
    "https://pytorch.org/docs/stable/onnx_torchscript.html#indexing",
    "https://github.com/pytorch/pytorch/issues/26073",
    "https://github.com/onnx/onnx/issues/3781",
)
TENSOR_FACTORIES = frozenset({"torch.tensor", "torch.LongTensor", "torch.as_tensor"})

INDEX_PUT_CONSECUTIVE = Helper(
    "index_put_consecutive",
    '''
def index_put_consecutive(tensor, dims, index, value):
    """`tensor[...] = value` with the tensor indices at `dims` moved to the front, so that they
    are consecutive (the legacy ONNX exporter supports only consecutive index writes)."""
    front = tuple(range(len(dims)))
    moved = tensor.movedim(dims, front).clone()
    moved[index] = value
    tensor.copy_(moved.movedim(front, dims))
''',
)


def integer_literal(node: ast.AST, ctx: FunctionContext) -> list[int] | None:
    """The integers of ``torch.tensor([[1, 2], [2, -3]])`` (or of a name assigned once from
    one in this function); None if ``node`` is not such a literal."""
    if isinstance(node, ast.Name):
        values = ctx.assignments(node.id)
        if len(values) != 1 or isinstance(values[0], ast.stmt):
            return None
        node = values[0]
    if not (isinstance(node, ast.Call) and ctx.qualname(node.func) in TENSOR_FACTORIES and len(node.args) == 1):
        return None
    if any(k.arg != "dtype" for k in node.keywords):
        return None
    found: list[int] = []
    if not _collect_ints(node.args[0], found) or not found:
        return None
    return found


def _collect_ints(node: ast.AST, found: list[int]) -> bool:
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_collect_ints(element, found) for element in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        if type(node.operand.value) is int:
            found.append(-node.operand.value)
            return True
        return False
    if isinstance(node, ast.Constant) and type(node.value) is int:
        found.append(node.value)
        return True
    return False


def index_elements(node: ast.Subscript) -> list[ast.expr]:
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]


def is_tensor_index(node: ast.expr, ctx: FunctionContext) -> bool:
    return integer_literal(node, ctx) is not None or bool(ctx.tensors.is_tensor(node))


def simple_receiver(node: ast.expr) -> bool:
    """Cheap and side-effect free to evaluate twice: a name or an attribute chain."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


class NonConsecutiveIndexWrite(Rule):
    code = "ONX702"
    name = "non-consecutive-index-write"
    summary = "index write with tensor indices separated by a slice"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds assignments into a tensor indexed by two or more tensors that are not next to
            each other (`data[idx0, :, idx1] = value`).
        """,
        why="""
            The legacy exporter supports only consecutive tensor indices in writes: measured on
            torch 2.13, `data[torch.tensor([2, 3]), :, torch.tensor([1, 2])] = new_data` fails
            with "Only consecutive 1-d tensor indices are supported in exporting
            aten::index_put to ONNX". The dynamo exporter is correct.
        """,
        example="""
            def forward(self, data, new_data):
                data = data.clone()
                data[torch.tensor([2, 3]), :, torch.tensor([1, 2])] = new_data
                return data
        """,
        use_instead="""
            def index_put_consecutive(tensor, dims, index, value):
                front = tuple(range(len(dims)))
                moved = tensor.movedim(dims, front).clone()
                moved[index] = value
                tensor.copy_(moved.movedim(front, dims))

            def forward(self, data, new_data):
                data = data.clone()
                index_put_consecutive(data, (0, 2), (torch.tensor([2, 3]), torch.tensor([1, 2]), slice(None)), new_data)
                return data
        """,
        fix_safety="""
            The write is made on a copy with the indexed dimensions moved to the front (where
            they are consecutive, and where PyTorch puts the indexed dimensions of a
            non-consecutive index anyway, so `value` broadcasts the same way), then copied back
            into the tensor in place (aliases see the write, as before). Safe when every tensor
            index is an integer literal (one dimension each); unsafe for other tensor indices,
            since a boolean mask of rank k would index k dimensions.
        """,
        references=INDEX_REFERENCES,
    )

    def visit_Assign(self, node: ast.Assign, ctx: FunctionContext):
        target = subscript_target(node)
        if target is None:
            return
        elements = index_elements(target)
        kinds = [_element_kind(e, ctx) for e in elements]
        if None in kinds or "tensor" not in kinds:
            return
        tensor_positions = [i for i, k in enumerate(kinds) if k == "tensor"]
        if tensor_positions[-1] - tensor_positions[0] + 1 == len(tensor_positions):
            return  # consecutive
        yield ctx.report(
            self,
            target,
            "tensor indices separated by a slice in an index write: the legacy exporter fails "
            "(\"Only consecutive 1-d tensor indices are supported\")",
            fix=self._fix(node, target, elements, tensor_positions, ctx),
        )

    def _fix(self, node: ast.Assign, target: ast.Subscript, elements, positions, ctx: FunctionContext) -> Fix | None:
        if not simple_receiver(target.value):
            return None
        index = [ctx.segment(elements[i]) for i in positions]
        index += [_slice_text(elements[i], ctx) for i in range(len(elements)) if i not in positions]
        dims = ", ".join(str(i) for i in positions)
        text = (
            f"index_put_consecutive({ctx.segment(target.value)}, ({dims}), "
            f"({', '.join(index)}), {ctx.segment(node.value)})"
        )
        safe = all(integer_literal(elements[i], ctx) is not None for i in positions)
        return Fix(
            "Write with the indexed dimensions moved to the front",
            (ctx.replace(node, text),),
            safe=safe,
            helpers=(INDEX_PUT_CONSECUTIVE,),
        )


def _element_kind(node: ast.expr, ctx: FunctionContext) -> str | None:
    """'tensor', 'slice', or None for anything that makes the fix's dimension count unknown
    (integers, None, Ellipsis, starred, values of unknown type)."""
    if isinstance(node, ast.Slice):
        return "slice"
    if is_tensor_index(node, ctx):
        return "tensor"
    return None


def _slice_text(node: ast.Slice, ctx: FunctionContext) -> str:
    parts = [ctx.segment(p) if p is not None else "None" for p in (node.lower, node.upper, node.step)]
    if parts[2] == "None":
        parts.pop()
    if parts == ["None", "None"]:
        return "slice(None)"
    return f"slice({', '.join(parts)})"


class BroadcastIndexWrite(Rule):
    code = "ONX703"
    name = "broadcast-index-write"
    summary = "index write with constant tensor indices and a tensor value that may broadcast"
    fix_availability = "always"
    default_safety = "unsafe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds assignments of a tensor value into a tensor indexed by constant integer
            tensors (`data[torch.tensor([0, 2]), 1:3] = value`, or a name assigned from such a
            literal), where the value may rely on implicit broadcasting to the indexed shape.
            Writes of numbers, of `other[same index]`, or of an explicit `expand` are not
            reported, nor are computed indices (masks, `arange`), whose values usually have
            the indexed shape already.
        """,
        why="""
            The legacy exporter writes the value with a Reshape to the indexed shape instead
            of an Expand: measured on torch 2.13, `data[torch.tensor([[0, 2], [1, 1]]), 1:3] =
            new_data` with `new_data` of shape (5,) exports, but onnxruntime fails on every
            input ("The input tensor cannot be reshaped to the requested shape"), and so does
            a broadcast write with a tensor index alone. A number value, or a value of the
            exact indexed shape, exports correctly. The dynamo exporter is correct.
        """,
        example="""
            def forward(self, data, row):
                data = data.clone()
                data[torch.tensor([0, 2]), 1:3] = row
                return data
        """,
        use_instead="""
            def forward(self, data, row):
                data = data.clone()
                data[torch.tensor([0, 2]), 1:3] = row.expand_as(data[torch.tensor([0, 2]), 1:3])
                return data
        """,
        fix_safety="""
            Unsafe: `expand_as` follows the broadcasting rules of the write, but index
            assignment also accepts a value with extra leading dimensions of size 1, which
            `expand_as` rejects; and the indexed part is read once more (its cost only). When
            the value already has the indexed shape the fix changes nothing.
        """,
        references=INDEX_REFERENCES,
    )

    def visit_Assign(self, node: ast.Assign, ctx: FunctionContext):
        target = subscript_target(node)
        if target is None:
            return
        elements = index_elements(target)
        if not any(integer_literal(e, ctx) is not None for e in elements):
            fix = computed_index_fix(node, target, ctx)  # `out[inds] = pooled`, inds from nonzero()
            if fix is not None:
                yield ctx.report(self, target, "index write through an index the data selected: the legacy exporter "
                                 "bakes the indexed shape the export example had (one selected row fails for any "
                                 "other count in onnxruntime); write with `index_put_`", fix=fix)
            return  # other computed indices (masks, aranges) usually come with values of the indexed shape
        if not self._may_broadcast(node.value, target, ctx):
            return
        if not simple_receiver(target.value):
            fix = None
        else:
            value = ctx.segment(node.value)
            if not isinstance(node.value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                value = f"({value})"
            fix = Fix(
                "Expand the value to the indexed shape",
                (ctx.replace(node.value, f"{value}.expand_as({ctx.segment(target)})"),),
                safe=False,
            )
        yield ctx.report(
            self,
            target,
            "index write with constant tensor indices: if the value broadcasts, the legacy "
            "exporter's model fails in onnxruntime (Reshape); expand it explicitly",
            fix=fix,
        )

    @staticmethod
    def _may_broadcast(value: ast.expr, target: ast.Subscript, ctx: FunctionContext) -> bool:
        if isinstance(value, ast.Constant) or (isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant)):
            return False  # numbers export correctly
        if isinstance(value, ast.Subscript) and ctx.segment(value.slice) == ctx.segment(target.slice):
            return False  # a[idx, s] = b[idx, s]: same shape
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("expand_as", "expand"):
            return False  # already explicit
        return ctx.tensors.is_tensor(value) is not False



class MaskAndIndexWrite(Rule):
    code = "ONX704"
    name = "mask-and-index-write"
    summary = "index write with a boolean mask beside an integer index (`r[mask, 0] = x[mask]`)"
    fix_availability = "always"
    default_safety = "unsafe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds writes `a[mask, i] = x[mask]` where `mask` is a bool tensor (a comparison, a
            bool method, a name bound to one, or what a run saw) and the other indices are
            integers: each selected element of `x` written to column `i` of `a`.
        """,
        why="""
            The legacy exporter turns the mask into indices and reshapes them against the
            integer index wrongly: measured on torch 2.13 (tests/flow_models/mask_column_write.py),
            the export succeeds and onnxruntime fails on every input ("The input tensor cannot be
            reshaped to the requested shape"). A mask alone (`a[mask] = x[mask]`) exports, and
            the dynamo exporter is correct.
        """,
        example="""
            def forward(self, x):
                r = torch.zeros((x.shape[0], 2), dtype=x.dtype)
                mask = x > 0
                r[mask, 0] = x[mask]
                return r
        """,
        use_instead="""
            def forward(self, x):
                r = torch.zeros((x.shape[0], 2), dtype=x.dtype)
                mask = x > 0
                r[..., 0] = torch.where(mask, x, r[..., 0])
                return r
        """,
        fix_safety="""
            Unsafe: `a[..., i] = torch.where(mask, x, a[..., i])` writes the same elements
            (the others get their own value back) when the mask has `x`'s shape and covers every
            axis of `a` before the integer indices (then `...` stands for them); a write that
            broadcasts the selected values over trailing axes of `a` is not the same.
        """,
        references=INDEX_REFERENCES,
    )

    def visit_Assign(self, node: ast.Assign, ctx: FunctionContext):
        target = subscript_target(node)
        if target is None or not isinstance(target.slice, ast.Tuple) or not simple_receiver(target.value):
            return
        mask, *rest = target.slice.elts
        value = node.value
        if (not rest or any(int_constant(r) is None for r in rest) or not is_bool_tensor(mask, ctx)
                or not (isinstance(value, ast.Subscript) and ast.dump(value.slice) == ast.dump(mask)
                        and simple_receiver(value.value) and ctx.tensors.is_tensor(value.value) is not False)):
            return
        source = value.value
        torch, imports = ctx.torch_name()
        column = f"{ctx.segment(target.value)}[..., {', '.join(ctx.segment(r) for r in rest)}]"
        text = f"{column} = {torch}.where({ctx.segment(mask)}, {ctx.segment(source)}, {column})"
        fix = Fix("Write the column with `torch.where`", (ctx.replace(node, text),), safe=False, imports=imports)
        yield ctx.report(self, node, "index write with a boolean mask beside an integer index: the legacy exporter "
                         "reshapes the mask's indices wrongly (onnxruntime fails); `torch.where` over the column "
                         "writes the same elements (unsafe: the mask must have the value's shape and cover every axis before the index)", fix=fix)



RULES = [NonConsecutiveIndexWrite, BroadcastIndexWrite, MaskAndIndexWrite]


def subscript_target(node: ast.Assign) -> ast.Subscript | None:
    """The subscript written by `t[...] = value` (one target), else None."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Subscript):
        return None
    return node.targets[0]
