"""ONX701: negative values in combined tensor indices, which the legacy exporter does not wrap."""

from __future__ import annotations

import ast

from onnxfix.patterns.indexing.rules import INDEX_REFERENCES, index_elements, integer_literal, simple_receiver
from onnxfix.rewriter.context import FunctionContext
from onnxfix.config import LEGACY
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc

# Integer casts and copies: an index through them is the same integers (`.to(...)` only to a
# device or an integer dtype: `.to(torch.bool)` makes a mask).
INDEX_CASTS = frozenset({"long", "int", "contiguous"})
INTEGER_DTYPES = frozenset({"long", "int64", "int", "int32", "int16", "int8", "uint8"})
INTEGER_METHODS = frozenset({"argmax", "argmin", "argsort", "long", "int"})

WRAP_NEGATIVE_INDEX = Helper(
    "wrap_negative_index",
    '''
def wrap_negative_index(index, size):
    """Negative positions counted from the end as non-negative ones (exported correctly)."""
    if not isinstance(index, torch.Tensor):
        return index  # a Python int is exported correctly
    return torch.where(index < 0, index + size, index)
''',
)


class NegativeIndexRead(Rule):
    code = "ONX701"
    name = "negative-tensor-index"
    summary = "negative values in combined tensor indices (constants, or computed by a subtraction)"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds reads that index one tensor with two or more integer tensors where one may
            hold a negative value: a literal with a negative value
            (`data[torch.tensor([1, -2]), torch.tensor([0, -1])]`, or a name assigned from such
            a literal), or an index computed by a subtraction or a negation (transformers'
            sequence classification heads: `sequence_lengths = input_ids.eq(pad).int().argmax(-1) - 1`,
            -1 for a row without padding, then `logits[torch.arange(batch_size), sequence_lengths]`).
        """,
        why="""
            The legacy exporter translates combined advanced indices into arithmetic on the
            flattened tensor (Reshape, Transpose, Concat, Gather) that does not wrap negative
            values. Measured on torch 2.13: the torch.onnx docs' example
            `data[torch.tensor([[1, 2], [2, -3]]), torch.tensor([-2, 3])]` is wrong even on
            the export inputs (the exporter warns: "If indices include negative values, the
            exported graph will produce incorrect results"). A single tensor index, or negative
            values fed as a graph input, export correctly. The dynamo exporter is correct.
            Measured the same for a computed index: the last-token pooling above is wrong on
            the export inputs whenever a row has no padding (tests/flow_models/last_token_pool.py).
        """,
        example="""
            def forward(self, data):
                return data[torch.tensor([1, -2]), torch.tensor([0, -1])]
        """,
        use_instead="""
            def wrap_negative_index(index, size):
                return torch.where(index < 0, index + size, index)

            def forward(self, data):
                return data[
                    wrap_negative_index(torch.tensor([1, -2]), data.size(0)),
                    wrap_negative_index(torch.tensor([0, -1]), data.size(1)),
                ]
        """,
        fix_safety="""
            Safe: for every index eager PyTorch accepts (-n <= i < n), `i + n` for negative `i`
            selects the same element, and the literal stays int64. `i % n` is not used: it
            fails in the dynamo exporter when `n` is a dynamic size (`aten.remainder.Scalar`
            with a SymInt). Offered when the indexed tensor is a name or attribute and every
            index consumes exactly one dimension (a slice, an integer, an integer literal
            tensor, an index computed by a subtraction, which cannot be a bool mask, or
            `torch.arange`/`argmax`-style integer results), so that the wrapped index's dimension is known.
        """,
        references=INDEX_REFERENCES,
    )

    def visit_Subscript(self, node: ast.Subscript, ctx: FunctionContext):
        if not isinstance(node.ctx, ast.Load):
            return
        elements = index_elements(node)
        if sum(not isinstance(e, (ast.Slice, ast.Constant)) for e in elements) < 2:
            return  # fewer than two tensor indices: nothing combined (and no name to resolve)
        literals = [integer_literal(e, ctx) for e in elements]
        computed = [lit is None and not isinstance(e, ast.Slice) and subtracted(e, ctx) for e, lit in zip(elements, literals)]
        tensor_indices = [
            e for e, lit, negative in zip(elements, literals, computed)
            if lit is not None or negative or (not isinstance(e, ast.Slice) and ctx.tensors.is_tensor(e))
        ]
        negative_literal = any(lit and min(lit) < 0 for lit in literals)
        if len(tensor_indices) < 2 or not (negative_literal or any(computed)):
            return
        what = "negative constant values" if negative_literal else "an index computed by a subtraction (negative values)"
        yield ctx.report(
            self,
            node,
            f"{what} in combined tensor indices: the legacy exporter does not wrap "
            "them and exports a wrong model (even on the export inputs)",
            fix=self._fix(node, elements, literals, computed, ctx),
        )

    def _fix(self, node, elements, literals, computed, ctx: FunctionContext) -> Fix | None:
        if not simple_receiver(node.value) or ctx.compiled_by_torchscript:
            return None  # TorchScript compiles no untyped helper taking an int size
        edits = []
        receiver = ctx.segment(node.value)
        for dim, (element, literal, negative) in enumerate(zip(elements, literals, computed)):
            if isinstance(element, ast.Starred) or (isinstance(element, ast.Constant) and element.value in (None, Ellipsis)):
                return None
            if negative or (literal is not None and min(literal) < 0):
                text = f"wrap_negative_index({ctx.segment(element)}, {receiver}.size({dim}))"
                edits.append(ctx.replace(element, text))
        if not all(_one_dimension(e, lit, ctx) for e, lit in zip(elements, literals)):
            return None
        return Fix(
            "Wrap negative indices with `torch.where(i < 0, i + n, i)`",
            tuple(edits),
            safe=True,
            imports=("torch",),
            helpers=(WRAP_NEGATIVE_INDEX,),
        )


def _one_dimension(element: ast.expr, literal: list[int] | None, ctx: FunctionContext) -> bool:
    """Consumes exactly one dimension of the indexed tensor (for integer index tensors, any
    rank: an integer index tensor of any shape indexes one dimension; a bool mask indexes as many
    as it has)."""
    if isinstance(element, ast.Slice) or literal is not None:
        return True
    if isinstance(element, ast.Constant):
        return type(element.value) is int
    return integer_tensor(element, ctx)


def _unwrapped(node: ast.expr) -> ast.expr:
    """The tensor under `.long()`, `.int()`, `.contiguous()` and `.to(<a device or an integer
    dtype>)`: the same integers."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
            node.func.attr in INDEX_CASTS or (node.func.attr == "to" and _keeps_integers(node))):
        node = node.func.value
    return node


def _keeps_integers(call: ast.Call) -> bool:
    """`.to(x.device)`, `.to(device)`, `.to(torch.long)`, `.to(device=...)`: no float or bool
    dtype (a name that is no device, such as a dtype variable, is not known)."""
    for value in [*call.args, *(k.value for k in call.keywords if k.arg in ("device", "dtype"))]:
        if isinstance(value, ast.Attribute) and value.attr == "device":
            continue
        if isinstance(value, ast.Name) and "device" in value.id:
            continue
        if isinstance(value, ast.Attribute) and value.attr in INTEGER_DTYPES and isinstance(value.value, ast.Name):
            continue
        return False
    return not any(k.arg not in ("device", "dtype", "non_blocking", "copy") for k in call.keywords)


def _single_value(node: ast.expr, ctx: FunctionContext) -> ast.expr | None:
    """What a local name is bound to when it is bound exactly once (to an expression)."""
    values = _values(node, ctx)
    return values[0] if values is not None and len(values) == 1 else None


def _values(node: ast.expr, ctx: FunctionContext) -> list[ast.expr] | None:
    """Every expression a local name is bound to, or None (not a local name, or also bound by a
    loop, a `with`, an import...)."""
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        if values and all(isinstance(v, ast.expr) for v in values):
            return values
    return None


def subtracted(node: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
    """A tensor computed by a subtraction or a negation (directly, through a cast, or through a
    local name whose bindings are such tensors or Python ints, which the helper leaves alone: the
    classification heads' `sequence_lengths = -1` in one branch): it may hold negative values,
    and it is no bool mask (subtracting or negating bool tensors raises)."""
    node = _unwrapped(node)
    values = _values(node, ctx)
    if values is not None:
        tensors = [v for v in values if not (_int_constant(v))]
        return depth < 3 and bool(tensors) and all(subtracted(v, ctx, depth + 1) for v in tensors)
    negative = (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub)) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub))
    return negative and bool(ctx.tensors.is_tensor(node))


def _int_constant(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def integer_tensor(node: ast.expr, ctx: FunctionContext, depth: int = 0) -> bool:
    """An index tensor shown to hold integers (so it indexes one dimension): a subtraction,
    `torch.arange(...)`, `t.argmax(...)`-style results and integer casts."""
    if subtracted(node, ctx):
        return True
    value = _single_value(node, ctx)
    if value is not None:
        return depth < 3 and integer_tensor(value, ctx, depth + 1)
    if not isinstance(node, ast.Call):
        return False
    if ctx.qualname(node.func) in ("torch.arange", "torch.argmax", "torch.argmin", "torch.argsort"):
        return True
    return isinstance(node.func, ast.Attribute) and node.func.attr in INTEGER_METHODS and bool(
        ctx.tensors.is_tensor(node.func.value))


RULES = [NegativeIndexRead]
