"""When an `if`/`while` condition is a tensor value (or a size read from tensor values), and the
`torch.where` text that selects with it."""

from __future__ import annotations

import ast

from onnxfix.patterns.export_checks import skipped_by_or_under_both
from onnxfix.patterns.scalars.values import python_values_tensor
from onnxfix.rewriter.bindings import reaching_value
from onnxfix.rewriter.bool_dtype import FACTORIES, is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.datadep import is_data_dependent_size
from onnxfix.rewriter.precedence import BITXOR, COMPARE, SHIFT, operand as parenthesized
from onnxfix.rewriter.tensors import parameter_annotation
from onnxfix.rewriter.tree_walk import walk
from onnxfix.rewriter.config_numbers import parameter_defaults
from onnxfix.rewriter.none_defaults import is_none_literal, none_test


COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
REDUCTIONS_TO_BOOL = frozenset({"any", "all"})
TORCH_BOOL_REDUCTIONS = frozenset({"torch.any", "torch.all"})
PYTHON_BOOL_FUNCTIONS = frozenset({"torch.equal", "torch.is_nonzero", "torch.allclose"})
BRANCH_FAILURE = (
    "the legacy exporter freezes the branch taken at export time and the dynamo exporter fails "
    "(GuardOnDataDependentSymNode; 'Data-dependent branching' in its strict fallback)"
)
CONTROL_FLOW_REFERENCES = (
    "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-python-control-flow",
    "https://github.com/pytorch/pytorch/issues/150891",
    "https://github.com/penguinwu/oss-model-graph-break-corpus/blob/0dbe2f775c9ed9eea1cff121a2eec0c03bc2fffb/analysis/graph-break-analysis.md",
)


# -- conditions -------------------------------------------------------------------------------
class Condition:
    """What a test expression is: data-dependent on tensor values or not, and the boolean
    tensor that stands for it in `torch.where` (None when there is no exact spelling)."""

    def __init__(self, where_text: str | None, joined: bool = False):
        self.where_text = where_text
        # `a | b` for `a or b`: both sides evaluated where the test short-circuited (an index the
        # first test guards may raise), so a fix selecting with it is never exact
        self.joined = joined


def tensor_condition(test: ast.expr, ctx: FunctionContext) -> Condition | None:
    if isinstance(test, ast.Compare):
        if any(isinstance(c, ast.Constant) and c.value is None for c in (test.left, *test.comparators)):
            return None  # `key == None` (Transkun): a tensor compared with None is the Python bool False
        return _comparison(test, ctx)
    if isinstance(test, ast.Call):
        return _condition_call(test, ctx)
    if isinstance(test, ast.BoolOp):
        if skipped_by_or_under_both(test):
            return None  # `torch.jit.is_tracing() or torch.compiler.is_exporting() or <test>`: never evaluated
        conditions = [tensor_condition(value, ctx) for value in test.values]
        if not any(conditions):
            return None
        if all(c is not None and c.where_text is not None for c in conditions):
            return Condition(_joined_where_text(test.op, [c.where_text for c in conditions]), joined=True)
        return Condition(None)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = tensor_condition(test.operand, ctx)
        if inner is None:
            return None
        if inner.where_text is None:
            return Condition(None)
        # `not t.all()` -> `~t.all()`: a where text is a bool tensor, on which `~` is the logical not
        operand = test.operand
        bare = isinstance(operand, (ast.Call, ast.Attribute, ast.Subscript, ast.Name)) and inner.where_text == ctx.segment(operand)
        return Condition(f"~{inner.where_text}" if bare else f"~({inner.where_text})", inner.joined)
    if isinstance(test, ast.Name) and is_none_literal(_parameter_default(test.id, ctx)) and \
            parameter_annotation(ctx.fn.node, test.id) is None and len(ctx.assignments(test.id)) == 0:
        return None  # `if scale:` of `scale=None`, unannotated, never rebound: first of all a test against None
    if isinstance(test, (ast.Name, ast.Attribute, ast.Subscript)) and ctx.tensors.is_tensor(test):
        return Condition(_bare_where_text(test, ctx))
    if isinstance(test, ast.Name) and _bound_to_tensor_condition(test.id, ctx):
        return Condition(None)
    return None


def _joined_where_text(op: ast.boolop, texts: list[str]) -> str:
    """`a or b` of tensor tests as `a | b` (`and`: `&`), each a one-element bool tensor whose truth
    is its test's: the same truth, both sides evaluated (BART's `torch.isinf(h).any() or
    torch.isnan(h).any()`)."""
    symbol, tighter = (" | ", BITXOR) if isinstance(op, ast.Or) else (" & ", SHIFT)
    return symbol.join(parenthesized(t, ast.parse(f"({t})", mode="eval").body, tighter) for t in texts)


def _bound_to_tensor_condition(name: str, ctx: FunctionContext) -> bool:
    """`has_pads = x.device.type == "xla" or mask.any()` then `if has_pads:` (fairseq's encoder): a
    name bound once to an `and` / `or` with a tensor condition holds that tensor whenever the
    Python operands before it do not decide (the device is not XLA)."""
    if ctx.is_parameter(name):
        return False
    values = ctx.assignments(name)
    return (len(values) == 1 and isinstance(values[0], ast.BoolOp)
            and any(tensor_condition(value, ctx) for value in values[0].values))


def _bare_where_text(test: ast.expr, ctx: FunctionContext) -> str | None:
    """`if deterministic:` on a tensor a recorded run saw 0-d only (a flag passed as an input):
    the flag itself when bool, `t != 0` otherwise (`bool(t)` of a number: NaN is true both
    ways). Without that evidence the tensor may have more dims, and `torch.where` would
    broadcast the branches to them."""
    dtype = ctx.tensors.scalar_dtype(test)
    if dtype == "bool":
        return ctx.segment(test)
    if dtype is not None and not dtype.startswith("complex"):
        return f"{ctx.segment(test)} != 0"
    value = reaching_value(test, ctx) if isinstance(test, ast.Name) else None
    if isinstance(value, ast.Call) and _zero_dim_truth(value, ctx):
        # kornia's `is_perspective = t.abs().gt(1e-6).any()` then `if is_perspective:`: one value
        return ctx.segment(test) if is_bool_tensor(value, ctx) else f"{ctx.segment(test)} != 0"
    return None


def _zero_dim_truth(node: ast.Call, ctx: FunctionContext) -> bool:
    """`t.any()`, `torch.all(t)`, `t.max()`: a reduction of a whole tensor to one value."""
    if _full_reduction(node, ctx):
        return True
    if not _is_any_or_all(node, ctx) or node.keywords:
        return False
    return len(node.args) == (1 if ctx.qualname(node.func) in TORCH_BOOL_REDUCTIONS else 0)


def _comparison(test: ast.Compare, ctx: FunctionContext) -> Condition | None:
    if len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.NotIn)):
        return _membership(test, ctx)
    if not all(isinstance(op, COMPARISONS) for op in test.ops):
        return None
    operands = [test.left, *test.comparators]
    kinds = [_operand_kind(operand, ctx) for operand in operands]
    if not any(kinds):
        return None
    if len(test.ops) > 1 or "data-size" in kinds:
        return Condition(None)
    if "item" in kinds:
        return Condition(_text_without_item(test, ctx))
    return Condition(ctx.segment(test))


def _membership(test: ast.Compare, ctx: FunctionContext) -> Condition | None:
    """`v in t` on a tensor `t` (transformers' `pad_token_id in input_ids[:, [-1, 0]]`): Tensor.__contains__
    is `(v == t).any()` read as a Python bool, the data-dependent guard torch.export fails on."""
    tensor, element = test.comparators[0], test.left
    if ctx.tensors.is_tensor(tensor) is not True:
        return None
    number = isinstance(element, ast.Constant) and type(element.value) in (int, float, bool)
    if not (number or ctx.tensors.is_tensor(element) is True):
        return Condition(None)  # (a config value may be None, which __contains__ rejects: no tensor form)
    sides = [parenthesized(ctx.segment(side), side, COMPARE + 1) for side in (tensor, test.left)]
    hit = f"({sides[0]} == {sides[1]}).any()"
    return Condition(hit if isinstance(test.ops[0], ast.In) else f"~{hit}")


def _operand_kind(node: ast.expr, ctx: FunctionContext) -> str | None:
    if _is_item_call(node, ctx):
        return "item"
    if is_data_dependent_size(node, ctx):
        return "data-size"  # x[mask].numel(): an unbacked size, no tensor to select with
    return "tensor" if ctx.tensors.is_tensor(node) else None


def _is_item_call(node: ast.AST, ctx: FunctionContext) -> bool:
    """`.item()` of a value with tensor evidence (an unknown receiver may be a NumPy scalar)."""
    receiver = ctx.tensors.item_receiver(node)
    return receiver is not None and ctx.tensors.has_tensor_evidence(receiver)


def _text_without_item(test: ast.Compare, ctx: FunctionContext) -> str:
    source = ctx.file.source
    start, end = source.span(test)
    text = source.text
    cuts = []
    for node in walk(test):
        if _is_item_call(node, ctx):
            cut_start, cut_end = ctx.dot_span(node.func, node)
            cuts.append((cut_start, cut_end))
    pieces, position = [], start
    for cut_start, cut_end in sorted(cuts):
        pieces.append(text[position:cut_start])
        position = cut_end
    pieces.append(text[position:end])
    return "".join(pieces)


def _condition_call(test: ast.Call, ctx: FunctionContext) -> Condition | None:
    func = test.func
    qualname = ctx.qualname(func)
    if qualname in PYTHON_BOOL_FUNCTIONS:
        return Condition(None)
    if isinstance(func, ast.Name) and func.id == "bool" and ctx.is_builtin("bool") and len(test.args) == 1:
        inner = tensor_condition(test.args[0], ctx)
        if inner is None:
            return None
        return Condition(inner.where_text, inner.joined)
    if _is_item_call(test, ctx):
        return Condition(None)
    if (isinstance(func, ast.Name) and func.id in ("any", "all") and ctx.is_builtin(func.id) and len(test.args) == 1
            and not test.keywords and (ctx.tensors.is_tensor(test.args[0]) or tensor_condition(test.args[0], ctx))):
        return Condition(None)  # Python's `any(factor >= 0)`: the truth of each row of a tensor (kornia's checks)
    if _full_reduction(test, ctx):
        # `bool(y.max())`, `if x.sum():`: a 0-d tensor whatever the dtype, true when not 0 (NaN too)
        return Condition(f"{ctx.segment(test)} != 0")
    if _elementwise_predicate(test, ctx):
        # `if t.isnan():`, `torch.isinf(t)`, `t.eq(0)`: a bool tensor, its truth what `if` tests
        return Condition(ctx.segment(test))
    if _is_any_or_all(test, ctx):
        # bool for a bool or float tensor, uint8 for a uint8 one (torch.where would raise):
        # `!= 0` gives the same truth value as a bool tensor whatever the dtype
        text = ctx.segment(test)
        return Condition(text if is_bool_tensor(test, ctx) else f"{text} != 0")
    return None


def _elementwise_predicate(node: ast.Call, ctx: FunctionContext) -> bool:
    """A bool tensor from an elementwise predicate of a tensor (`t.isnan()`, `torch.isfinite(t)`,
    `t.eq(0)`, `t.bool()`): not `any`/`all` (a uint8 receiver gives uint8: `_is_any_or_all`), nor a
    factory, nor a predicate of a tensor built from Python values (`torch.tensor(v).isnan()`: values
    torch.export knows; scalars/values.python_values_tensor)."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in REDUCTIONS_TO_BOOL:
        return False
    if ctx.qualname(func) in FACTORIES or not is_bool_tensor(node, ctx):
        return False
    operands = [func.value] if isinstance(func, ast.Attribute) and ctx.qualname(func) is None else node.args[:1]
    return any(ctx.tensors.is_tensor(o) and not python_values_tensor(o, ctx) for o in operands)


FULL_REDUCTIONS = frozenset({"max", "min", "sum", "mean", "prod", "amax", "amin", "norm", "count_nonzero"})


def _full_reduction(node: ast.Call, ctx: FunctionContext) -> bool:
    """`t.max()`, `t.sum()` of a tensor, no argument: one value (`any`/`all` are _is_any_or_all's)."""
    return (isinstance(node.func, ast.Attribute) and node.func.attr in FULL_REDUCTIONS and not node.args
            and not node.keywords and bool(ctx.tensors.is_tensor(node.func.value)))


def _is_any_or_all(node: ast.Call, ctx: FunctionContext) -> bool:
    """`t.any()` / `t.all()` of a tensor (or of a comparison), `torch.any(t)` / `torch.all(t)`."""
    if ctx.qualname(node.func) in TORCH_BOOL_REDUCTIONS:  # before the method form: `torch` is no tensor
        return True
    if isinstance(node.func, ast.Attribute) and node.func.attr in REDUCTIONS_TO_BOOL:
        receiver = node.func.value
        return bool(ctx.tensors.is_tensor(receiver)) or isinstance(receiver, ast.Compare) and (
            _comparison(receiver, ctx) is not None or _elementwise_comparison(receiver, ctx)) \
            or isinstance(receiver, ast.Call) and _is_any_or_all(receiver, ctx)
    return ctx.qualname(node.func) in TORCH_BOOL_REDUCTIONS


def _elementwise_comparison(node: ast.Compare, ctx: FunctionContext) -> bool:
    """`(sigma > 0)` whose result has `.all()` called on it (kornia's `bool((sigma > 0).all())`):
    a Python comparison's bool has no `.all()`, so an operand is a tensor: one not known to be
    anything else (a number), beside no container, in a file that does not use NumPy (whose
    comparisons have `.all()` too)."""
    sides = (node.left, *node.comparators)
    if any(target.split(".")[0] == "numpy" for target in ctx.file.module.scope.imports.values()):
        return False
    return len(node.ops) == 1 and isinstance(node.ops[0], (ast.Gt, ast.GtE, ast.Lt, ast.LtE, ast.Eq, ast.NotEq)) \
        and any(ctx.tensors.is_tensor(side) is not False for side in sides) and not any(map(python_container, sides))


_CONTAINER_BUILDERS = frozenset({"list", "tuple", "dict", "set", "frozenset", "sorted", "str", "repr", "range", "zip",
                                 "enumerate", "reversed"})


def converted_out_of_torch(side: ast.expr | str, ctx: FunctionContext) -> bool:
    """A branch value made a NumPy array or a list (`b.numpy()`, `b.cpu().tolist()`, `np.abs(b)`):
    torch.where takes tensors and Python numbers only (displays are python_container's)."""
    if not isinstance(side, ast.Call):
        return False
    if isinstance(side.func, ast.Attribute) and side.func.attr in ("numpy", "tolist") and not side.args:
        return True
    return (ctx.qualname(side.func) or "").split(".")[0] == "numpy"


def python_container(value: ast.expr) -> bool:
    """A value that is never a tensor or a number: a list, tuple, dict or set (a display, a
    comprehension, `list(...)`, `[1] + dims`), a string, None, Ellipsis, a lambda, `.tolist()`, a
    size (`x.shape`, `x.shape[1:]`) (onnx2torch's `shape = [... for i, d in enumerate(shape)]`)."""
    if isinstance(value, ast.Constant):
        return value.value is None or value.value is Ellipsis or isinstance(value.value, (str, bytes))
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mult)):
        return python_container(value.left) or python_container(value.right)  # `[1] + dims`, `(0,) * n`
    if isinstance(value, ast.Call):
        func = value.func
        return (isinstance(func, ast.Name) and func.id in _CONTAINER_BUILDERS
                or isinstance(func, ast.Attribute) and func.attr == "tolist")
    if isinstance(value, ast.Attribute):
        return value.attr == "shape"
    if isinstance(value, ast.Subscript):
        return (isinstance(value.slice, ast.Slice) and isinstance(value.value, ast.Attribute)
                and value.value.attr == "shape")
    return isinstance(value, (ast.List, ast.ListComp, ast.Tuple, ast.Dict, ast.DictComp, ast.Set, ast.SetComp,
                              ast.GeneratorExp, ast.JoinedStr, ast.Lambda))


def may_hold_python_value(name: str, ctx: FunctionContext) -> bool:
    """``name`` may hold None or a Python container where an `if` without `else` keeps its previous
    value (`mask = None`, then `if not m.all(): mask = build(m)`): `torch.where` cannot select it."""
    default = _parameter_default(name, ctx)
    return any(_may_be_python(v) for v in ctx.assignments(name) if isinstance(v, ast.expr)) or (
        default is not None and _may_be_python(default))


def _may_be_python(value: ast.expr) -> bool:
    """A Python container, or a conditional expression one side of which is (`t if flag else None`)."""
    if isinstance(value, ast.IfExp):
        return _may_be_python(value.body) or _may_be_python(value.orelse)
    return python_container(value)


def holds_none_before(name: str, node: ast.stmt, ctx: FunctionContext) -> bool:
    """``name`` is None where ``node`` starts, and the `if` is its only other binding: assigned None
    on an earlier line, or a parameter defaulting to None tested `is None` around the `if`
    (ChatGLM's `if full_attention_mask is None:`: a value the caller passed is kept). Not in a
    loop (`best = None`, then `if best is None or ...: best = y` per item keeps the best so far)."""
    if any(isinstance(a, (ast.For, ast.AsyncFor, ast.While)) for a in ctx.ancestors(node)):
        return False
    bindings = ctx.assignments(name)
    inside = {id(n) for statement in node.body for n in walk(statement)}
    if not all(id(v) in inside or (is_none_literal(v) and v.lineno < node.lineno) for v in bindings):
        return False
    if any(is_none_literal(v) for v in bindings if id(v) not in inside):
        return True
    return is_none_literal(_parameter_default(name, ctx)) and any(
        isinstance(a, ast.If) and none_test(a.test) == name and _within(node, a.body) for a in ctx.ancestors(node))


def _within(node: ast.stmt, block: list[ast.stmt]) -> bool:
    return any(node is n for statement in block for n in walk(statement))


def _parameter_default(name: str, ctx: FunctionContext) -> ast.expr | None:
    return parameter_defaults(ctx.fn.node).get(name)
