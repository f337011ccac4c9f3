"""ONX6xx: Python control flow that depends on tensor values or on dynamic sizes.

The exporters trace one execution. A Python `if`/`while` on a tensor value is decided once, at
export time: the legacy exporter records the branch taken (TracerWarning "Converting a tensor to
a Python boolean") and the dynamo exporter refuses (`GuardOnDataDependentSymNode`, or
"Data-dependent branching" in its strict fallback). A loop over `range(x.shape[0])` is unrolled:
silently by the legacy exporter, while the dynamo exporter rejects a dynamic dimension ("tracing
inferred a static shape").

Statement-level fixes are exact text edits: the replaced `if`/`for` statement becomes one
statement at the same position and indentation, and comments that sat between its parts are
kept on their own lines above it (libcst would not keep those either, since the statements that
own them disappear; text edits also spare the static path libcst's import cost).
"""

from __future__ import annotations

import ast
import io
import tokenize

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.datadep import is_data_dependent_size
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.scope import in_training_only_code

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


# -- code that does not run at export ---------------------------------------------------------
def in_training_branch(node: ast.AST, ctx: FunctionContext) -> bool:
    """Inside `if self.training:` (or another training/loss-only branch, as reachability
    decides them): models are exported in eval mode, so that code is not traced."""
    return in_training_only_code(node, ctx.ancestors(node))


# -- conditions -------------------------------------------------------------------------------
class Condition:
    """What a test expression is: data-dependent on tensor values or not, and the boolean
    tensor that stands for it in `torch.where` (None when there is no exact spelling)."""

    def __init__(self, where_text: str | None):
        self.where_text = where_text


def tensor_condition(test: ast.expr, ctx: FunctionContext) -> Condition | None:
    if isinstance(test, ast.Compare):
        return _comparison(test, ctx)
    if isinstance(test, ast.Call):
        return _condition_call(test, ctx)
    if isinstance(test, ast.BoolOp):
        if any(tensor_condition(value, ctx) for value in test.values):
            return Condition(None)
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return Condition(None) if tensor_condition(test.operand, ctx) else None
    if isinstance(test, (ast.Name, ast.Attribute, ast.Subscript)) and ctx.tensors.is_tensor(test):
        return Condition(None)
    return None


def _comparison(test: ast.Compare, ctx: FunctionContext) -> Condition | None:
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


def _operand_kind(node: ast.expr, ctx: FunctionContext) -> str | None:
    if _is_item_call(node, ctx):
        return "item"
    if is_data_dependent_size(node, ctx):
        return "data-size"  # x[mask].numel(): an unbacked size, no tensor to select with
    return "tensor" if ctx.tensors.is_tensor(node) else None


def _is_item_call(node: ast.AST, ctx: FunctionContext) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "item"
        and not node.args
        and ctx.tensors.is_tensor(node.func.value) is not False
        and _tensor_evidence(node.func.value, ctx)
    )


def _tensor_evidence(node: ast.expr, ctx: FunctionContext) -> bool:
    """`.item()` is a tensor method, but a receiver we know nothing about may be a NumPy
    scalar: require evidence (a tensor by the oracle, or a tensor method/reduction call)."""
    if ctx.tensors.is_tensor(node):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
        "sum", "max", "min", "mean", "any", "all", "argmax", "argmin", "norm", "abs", "prod", "numel",
    )


def _text_without_item(test: ast.Compare, ctx: FunctionContext) -> str:
    source = ctx.file.source
    start, end = source.span(test)
    text = source.text
    cuts = []
    for node in ast.walk(test):
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
    if isinstance(func, ast.Name) and func.id == "bool" and ctx.scope.lookup("bool") is None and len(test.args) == 1:
        inner = tensor_condition(test.args[0], ctx)
        if inner is None:
            return None
        return Condition(inner.where_text if _is_boolean_tensor(test.args[0], ctx) else None)
    if _is_item_call(test, ctx):
        return Condition(None)
    if _is_boolean_tensor(test, ctx):
        return Condition(ctx.segment(test))
    return None


def _is_boolean_tensor(node: ast.expr, ctx: FunctionContext) -> bool:
    """A comparison or any()/all() of a tensor: a bool tensor whatever the input dtype."""
    if isinstance(node, ast.Compare):
        return _comparison(node, ctx) is not None
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in REDUCTIONS_TO_BOOL:
            receiver = node.func.value
            return bool(ctx.tensors.is_tensor(receiver)) or _is_boolean_tensor(receiver, ctx)
        return ctx.qualname(node.func) in TORCH_BOOL_REDUCTIONS
    return False


# -- comments kept across a statement rewrite ---------------------------------------------------
def comments_outside(ctx: FunctionContext, first: ast.stmt, kept: list[ast.AST], last: ast.stmt | None = None) -> list[str] | None:
    """Comments from ``first`` to the end of ``last`` (default: ``first``) but outside the
    ``kept`` expressions, whose text is reused verbatim. None if the text cannot be tokenized."""
    source = ctx.file.source
    start = source.line_starts[first.lineno - 1]  # whole lines, so that indentation tokenizes
    end = source.span(last or first)[1]
    kept_spans = [source.span(node) for node in kept]
    text = source.text[start:end]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    line_offsets = _line_offsets(text)
    comments = []
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        offset = start + line_offsets[token.start[0] - 1] + token.start[1]
        if offset >= source.span(first)[0] and not any(a <= offset < b for a, b in kept_spans):
            comments.append(token.string)
    return comments


def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    for index, char in enumerate(text):
        if char == "\n":
            offsets.append(index + 1)
    return offsets


def statement_indent(ctx: FunctionContext, statement: ast.stmt) -> str:
    line = ctx.file.source.line_text(statement.lineno)
    return line[: len(line) - len(line.lstrip())]


def replace_statements(ctx: FunctionContext, first: ast.stmt, last: ast.stmt, new: str, comments: list[str]) -> Edit:
    source = ctx.file.source
    start = source.span(first)[0]
    end = source.span(last)[1]
    indent = statement_indent(ctx, first)
    return Edit(start, end, f"\n{indent}".join([*comments, new]))


def parenthesize(text: str, node: ast.AST) -> str:
    """``text`` (the source of ``node``) safe to use as a call argument."""
    if isinstance(node, (ast.Tuple, ast.NamedExpr, ast.Starred)) or (isinstance(node, ast.IfExp)):
        return f"({text})"
    return text


# -- ONX601 -------------------------------------------------------------------------------------
class TensorIf(Rule):
    code = "ONX601"
    name = "tensor-condition-branch"
    summary = "`if` (or `a if c else b`) on a tensor value"
    fix_availability = "sometimes"
    default_safety = "per-finding"  # torch.where: unsafe; a size-parity zero pad dropped: safe
    doc = RuleDoc(
        what="""
            Finds `if` statements and conditional expressions whose condition is a tensor
            value: a comparison with a tensor (`if x.sum() > 0:`), `t.any()` / `t.all()`,
            `bool(t)`, `t.item()` in a comparison, `torch.equal(a, b)`, or a bare tensor.
            Conditions on shapes, flags and `None` checks are not reported. Two kinds are
            reported with a narrower message: an `if` whose only statement is `raise` (an input
            check: the dynamo exporter fails on it while the legacy exporter drops it, which is
            harmless for valid inputs, measured by tests/test_flow_proofs.py
            (tests/flow_models/raise_check.py); `torch._check` keeps it), and
            an `and` whose first operands are Python values (`h.dtype == torch.float16 and not
            torch.isfinite(h).all()`, the BART-family fp16 clamp): those are decided once at
            export, so the tensor test runs, and breaks, only in an export where they hold (a
            float16 export here; a float32 export passes both exporters, measured by hand on
            torch 2.13, not kept as a test). Also one `if` on sizes: a branch on a size's parity
            (`if H % 2 == 1 or W % 2 == 1:`, directly or through a flag assigned just before)
            whose only statement pads by amounts that are zero when the condition is false
            (`x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))`, Swin's patch merging); other branches on
            sizes are not reported (most are on static dimensions).
        """,
        why="""
            Export traces one run. The legacy exporter evaluates the condition on the export
            inputs and records only the branch taken (TracerWarning "Converting a tensor to a
            Python boolean"): measured on torch 2.13, `if x.sum() > 0: return x * 2 else:
            return x - 1` exports a model that is silently wrong whenever the sign flips. The
            dynamo exporter fails: `GuardOnDataDependentSymNode: Could not guard on
            data-dependent expression` (non-strict capture) and `Unsupported: Data-dependent
            branching` (its strict fallback). `torch.cond` works in dynamo only; the legacy
            exporter fails on it ("Detected that you are using FX to torch.jit.trace a
            dynamo-optimized function").
        """,
        example="""
            def forward(self, x: torch.Tensor):
                if x.sum() > 0:
                    return x * 2
                else:
                    return x - 1
        """,
        use_instead="""
            def forward(self, x: torch.Tensor):
                return torch.where(x.sum() > 0, x * 2, x - 1)
        """,
        fix_safety="""
            Offered when both branches are one `return <expr>` (an `if` that returns, followed
            by a `return`, counts), or one assignment to the same name (a missing `else` keeps
            the name's previous value), or for `a if c else b`; with a comparison, `any()`,
            `all()` or `bool()` of one as the condition (`.item()` is dropped). Always unsafe:
            `torch.where` evaluates both branches (an error or a side effect in the branch not
            taken now happens), broadcasts them to a common shape and promotes them to a common
            dtype, returns a tensor where a branch gave a Python number, and a comparison that
            used `.item()` (a double) is now made in the tensor's dtype. Exact when both
            branches are tensors of the same shape and dtype as the result and have no side
            effects, which static analysis cannot check.
            The size-parity pad is different: the `if` (and its flag) is removed and the pad
            always runs, an amount `k - S % k` becoming `(k - S % k) % k`. When the condition is
            false every amount is zero, and a zero constant pad returns a copy with the same
            values, dtype, shape and strides (a non-dense input comes back contiguous); so the
            fix is safe unless the unpadded tensor could still be observed after the `if` (an
            in-place write, the tensor returned, stored or passed to a call that is not
            torch's before the name is rebound), then unsafe. Measured: the original
            ORT-FAILS under both exporters on the other parity, the rewrite is OK under both
            (tests/flow_models/size_parity_pad.py, tests/realworld/swin_patch_merging_parity.py).
            An `if` whose only statement is `raise` (an input check: `if n_tokens !=
            n_features: raise ValueError(...)`) is fixed differently: `if not
            torch.compiler.is_exporting() and <condition>: raise ...`. Safe: in eager (and under
            torch.compile and the legacy tracer) `is_exporting()` is False, so the same
            condition is evaluated in the same order and raises the same error; torch.export
            skips the check it could not capture (the legacy trace dropped it anyway). Unsafe
            only when the installed torch is older than 2.6 (no `torch.compiler.is_exporting`)
            or unknown (read from package metadata; torch is never imported). Measured:
            tests/flow_models/raise_check.py and tests/realworld/paligemma_token_count_check.py
            export OK under both exporters after the fix. Conditions on a size read from tensor
            values (`x[mask].numel()`, `len(t.nonzero())`) are reported too: such a size is an
            unbacked symbol, on which dynamo cannot branch.
        """,
        references=CONTROL_FLOW_REFERENCES,
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        condition = tensor_condition(node.test, ctx)
        if condition is None and not in_training_branch(node, ctx):
            yield from _size_parity_pad(self, node, ctx)
        if condition is None or in_training_branch(node, ctx):
            return
        fix = self._fix(node, condition, ctx) if condition.where_text else None
        value = "a size read from tensor values" if _reads_data_size(node.test, ctx) else "a tensor value"
        if _raises_only(node):
            if _skipped_when_exporting(node.test):
                return  # `if not torch.compiler.is_exporting() and bad: raise`: already right
            fix = _skip_check_when_exporting(node, ctx)
            message = (
                f"`if` on {value} guarding a `raise`: the dynamo exporter fails "
                "(GuardOnDataDependentSymNode; 'Data-dependent branching' in its strict fallback) and "
                "the legacy exporter drops the check; skip the check while exporting"
                + ("" if fix.safe else f" (unsafe: {_IS_EXPORTING} needs torch >= 2.6, and the installed one "
                   "could not be read or is older)")
            )
        else:
            message = f"`if` on {value}: {BRANCH_FAILURE}"
            if fix is None:
                message += "; no automatic fix: " + _no_where_reason(node, condition, value)
        message += _static_guard_note(node.test, ctx)
        yield ctx.report(self, node.test, message, fix=fix)

    def visit_IfExp(self, node: ast.IfExp, ctx: FunctionContext):
        condition = tensor_condition(node.test, ctx)
        if condition is None or in_training_branch(node, ctx):
            return
        fix = None
        if condition.where_text:
            torch, imports = ctx.torch_name()
            body, orelse = ctx.segment(node.body), ctx.segment(node.orelse)
            text = f"{torch}.where({condition.where_text}, {parenthesize(body, node.body)}, {parenthesize(orelse, node.orelse)})"
            fix = Fix("Select with `torch.where` (evaluates both sides)", (ctx.replace(node, text),), safe=False, imports=imports)
        yield ctx.report(self, node.test, f"conditional expression on a tensor value: {BRANCH_FAILURE}", fix=fix)

    def _fix(self, node: ast.If, condition: Condition, ctx: FunctionContext) -> Fix | None:
        shape = _branch_shape(node, ctx)
        if shape is None:
            return None
        kind, target, when_true, when_false, last = shape
        kept = [node.test, when_true] + ([when_false] if isinstance(when_false, ast.AST) else [])
        comments = comments_outside(ctx, node, kept, last)
        if comments is None:
            return None
        torch, imports = ctx.torch_name()
        true_text = parenthesize(ctx.segment(when_true), when_true)
        false_text = parenthesize(ctx.segment(when_false), when_false) if isinstance(when_false, ast.AST) else when_false
        selected = f"{torch}.where({condition.where_text}, {true_text}, {false_text})"
        new = f"return {selected}" if kind == "return" else f"{target} = {selected}"
        edit = replace_statements(ctx, node, last, new, comments)
        return Fix("Select with `torch.where` (evaluates both branches)", (edit,), safe=False, imports=imports)


_IS_EXPORTING = "torch.compiler.is_exporting()"
IS_EXPORTING_SINCE = (2, 6)


def _skip_check_when_exporting(node: ast.If, ctx: FunctionContext) -> Fix:
    """`if bad: raise ...` -> `if not torch.compiler.is_exporting() and (bad): raise ...`. Eager
    (is_exporting() is False there, and under torch.compile and the legacy tracer) evaluates the
    same condition in the same order and raises the same error: safe, given a torch that has the
    function (2.6+; read from the installed package's metadata, never imported). torch.export
    skips the check, which it could not capture; the legacy trace dropped it already.
    Measured: tests/realworld/paligemma_token_count_check.py exports OK under both exporters."""
    from onnxfix.rewriter.exporter_inference import installed_torch_version

    torch, imports = ctx.torch_name()
    test = node.test
    text = ctx.segment(test)
    if isinstance(test, (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda)) and not (
        isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
    ):
        text = f"({text})"
    guard = _IS_EXPORTING.replace("torch", torch, 1)
    version = installed_torch_version()
    safe = version is not None and version >= IS_EXPORTING_SINCE
    return Fix(f"Skip the check while exporting (`not {guard} and ...`)",
               (ctx.replace(test, f"not {guard} and {text}"),), safe=safe, imports=imports)


EXPORT_CHECKS = ("is_exporting", "is_compiling", "is_in_onnx_export", "is_tracing", "is_scripting")


def _skipped_when_exporting(test: ast.expr) -> bool:
    """`not torch.compiler.is_exporting() and ...`: the operands after it never run under export."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return False
    first = test.values[0]
    return (
        isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.Not) and isinstance(first.operand, ast.Call)
        and isinstance(first.operand.func, (ast.Attribute, ast.Name))
        and getattr(first.operand.func, "attr", getattr(first.operand.func, "id", "")) in EXPORT_CHECKS
    )


def _no_where_reason(node: ast.If, condition: Condition, value: str) -> str:
    if value != "a tensor value":
        return "a size read from the data has no tensor form to select with (`torch.cond` works in dynamo only)"
    if condition.where_text is None:
        return "the condition is not one comparison, `any()`/`all()` or `bool()` of a tensor"
    return "`torch.where` replaces only branches that are one `return` or one assignment to the same name each"


def _reads_data_size(test: ast.expr, ctx: FunctionContext) -> bool:
    return any(is_data_dependent_size(node, ctx) for node in ast.walk(test))


def _raises_only(node: ast.If) -> bool:
    """`if n_tokens != n_features: raise ValueError(...)`: an input check, not a choice
    between computations. Measured on torch 2.13: dynamo still fails on it; legacy drops it."""
    return not node.orelse and len(node.body) == 1 and isinstance(node.body[0], ast.Raise)


def _static_guard_note(test: ast.expr, ctx: FunctionContext) -> str:
    """`if h.dtype == torch.float16 and not torch.isfinite(h).all():` (BART-family fp16
    clamps): the operands of an `and` before the first tensor test are Python values, decided
    once at export. When they are false (a float32 export) the tensor test never runs and
    nothing breaks; when they hold, it does. Still reported, naming the guard."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return ""
    guards = []
    for value in test.values:
        if tensor_condition(value, ctx):
            break
        guards.append(value)
    if not guards:
        return ""
    text = " and ".join(ctx.segment(g) for g in guards)
    if len(text) > 60:
        text = text[:57] + "..."
    return f" (only when `{text}` holds at export: otherwise the tensor test never runs)"


def _branch_shape(node: ast.If, ctx: FunctionContext):
    """('return'|'assign', target, true expr, false expr, last statement replaced) or None."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.If) and node in parent.orelse:
        return None  # an `elif`: replacing it would detach it from the `if` it belongs to
    body, orelse = node.body, node.orelse
    if len(body) != 1:
        return None
    only = body[0]
    if isinstance(only, ast.Return) and only.value is not None:
        if len(orelse) == 1 and isinstance(orelse[0], ast.Return) and orelse[0].value is not None:
            return "return", None, only.value, orelse[0].value, node
        following = _next_statement(node, ctx)
        if not orelse and isinstance(following, ast.Return) and following.value is not None:
            return "return", None, only.value, following.value, following
        return None
    target = _single_name_assignment(only)
    if target is None:
        return None
    if len(orelse) == 1 and _single_name_assignment(orelse[0]) == target:
        return "assign", target, only.value, orelse[0].value, node
    if not orelse and _bound_before(target, node, ctx):
        return "assign", target, only.value, target, node  # no else: keep the previous value
    return None


def _single_name_assignment(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    return None


def _next_statement(node: ast.stmt, ctx: FunctionContext) -> ast.stmt | None:
    return _sibling_statement(node, ctx, 1)


def _previous_statement(node: ast.stmt, ctx: FunctionContext) -> ast.stmt | None:
    return _sibling_statement(node, ctx, -1)


def _sibling_statement(node: ast.stmt, ctx: FunctionContext, offset: int) -> ast.stmt | None:
    """The statement ``offset`` places after ``node`` in its block, if any."""
    parent = ctx.parent(node)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and node in block:
            index = block.index(node) + offset
            return block[index] if 0 <= index < len(block) else None
    return None


def _bound_before(name: str, node: ast.stmt, ctx: FunctionContext) -> bool:
    """``name`` is a parameter or assigned by a statement in the same block before ``node``."""
    if ctx.is_parameter(name):
        return True
    parent = ctx.parent(node)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and node in block:
            return any(_single_name_assignment(s) == name for s in block[: block.index(node)])
    return False


# -- ONX601 on sizes: a branch that only decides whether a zero pad is applied --------------------
PAD_FUNCTIONS = frozenset({"torch.nn.functional.pad"})
SIZE_BRANCH_FAILURE = (
    "the legacy exporter records the branch taken at export time and the dynamo exporter "
    "specializes the size's parity (the exported model fails in onnxruntime for sizes of the "
    "other parity)"
)


def _size_parity_pad(rule: Rule, node: ast.If, ctx: FunctionContext):
    """`if H % 2 == 1 or W % 2 == 1: x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))` (Swin's patch
    merging), also through a flag assigned once (`pad_input = ...; if pad_input:`). When the
    condition is false every pad amount is zero, and a zero pad is a copy of `x` with the same
    values, dtype, shape and strides (torch.equal; measured in tests/test_flow_proofs.py), so the
    branch can go: the pad runs always. An amount `k - S % k` guarded by `S % k != 0` becomes
    `(k - S % k) % k`, zero when the guard is false and unchanged when it holds."""
    if node.orelse or len(node.body) != 1:
        return
    parent = ctx.parent(node)
    if isinstance(parent, ast.If) and node in parent.orelse:
        return  # an `elif`
    statement = node.body[0]
    target = _single_name_assignment(statement)
    call = statement.value if target else None
    if not (
        isinstance(call, ast.Call) and ctx.qualname(call.func) in PAD_FUNCTIONS and len(call.args) >= 2
        and isinstance(call.args[0], ast.Name) and call.args[0].id == target
    ):
        return
    if any(k.arg not in ("mode", "value") for k in call.keywords) or len(call.args) > 4:
        return
    mode = [k.value for k in call.keywords if k.arg == "mode"] + call.args[2:3]
    if mode and not (isinstance(mode[0], ast.Constant) and mode[0].value == "constant"):
        return  # reflect/replicate/circular pads of zero are no-ops too, but not measured here
    flag, test = None, node.test
    if isinstance(test, ast.Name):
        flag = _flag_assignment(test.id, node, ctx)
        if flag is None:
            return
        test = flag.value
    moduli = _parity_terms(test, ctx)
    amounts = call.args[1]
    if not moduli or not isinstance(amounts, (ast.Tuple, ast.List)):
        return
    rewrites = []
    for amount in amounts.elts:
        kind = _zero_when_divisible(amount, moduli, ctx)
        if kind is None:
            return
        if kind == "complement":
            rewrites.append((amount, f"({ctx.segment(amount)}) % {ctx.segment(amount.left)}"))
    comments = comments_outside(ctx, node, [statement])
    if comments is None:
        return
    body = ctx.segment(statement)
    start = ctx.file.source.span(statement)[0]
    for amount, text in sorted(rewrites, key=lambda r: -ctx.file.source.span(r[0])[0]):
        a, b = ctx.file.source.span(amount)
        body = body[: a - start] + text + body[b - start:]
    shift = len(statement_indent(ctx, statement)) - len(statement_indent(ctx, node))
    body = "\n".join(line[shift:] if line[:shift].isspace() else line for line in body.split("\n"))
    edits = [replace_statements(ctx, node, node, body, comments)]
    if flag is not None:
        removal = _statement_removal(flag, ctx)
        if removal is None:
            return
        edits.append(removal)
    escapes = _escapes_after(target, node, ctx)
    fix = Fix(
        "Pad always: the amounts are zero whenever the condition is false",
        tuple(edits), safe=not escapes,
    )
    message = f"`if` on the parity of a size guarding a pad: {SIZE_BRANCH_FAILURE}; the pad amounts are zero when the condition is false, so the branch can go"
    if escapes:
        message += (
            f" (unsafe: `{target}` is {escapes} after the `if`; a zero pad returns a copy, so that "
            "no longer reaches the unpadded tensor)"
        )
    yield ctx.report(rule, node.test, message, fix=fix)


def _flag_assignment(name: str, node: ast.If, ctx: FunctionContext) -> ast.Assign | None:
    """`pad_input = <condition>` right before the `if` in its block, the name's only
    assignment, read only by this `if`: the flag goes with the branch (`or` on SymInt parities
    would still guard in dynamo)."""
    previous = _sibling_statement(node, ctx, -1)
    values = ctx.assignments(name)
    if not (isinstance(previous, ast.Assign) and _single_name_assignment(previous) == name):
        return None
    if len(values) != 1 or values[0] is not previous.value or _name_loads(name, ctx) != 1 or ctx.is_parameter(name):
        return None
    return previous


def _statement_removal(statement: ast.stmt, ctx: FunctionContext) -> Edit | None:
    """Delete a statement that fills its lines alone (no comment, no `;`)."""
    source = ctx.file.source
    start, end = source.span(statement)
    line_start = source.line_starts[statement.lineno - 1]
    text = source.text
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    if text[line_start:start].strip() or text[end:line_end].strip():
        return None
    return Edit(line_start, line_end, "")


def _parity_terms(test: ast.expr, ctx: FunctionContext) -> set[tuple[str, int]] | None:
    """(size text, k) for a condition that is false only when every `S % k` is 0: an `or` of
    `S % k != 0`, `S % k > 0`, `S % k` and, for k == 2, `S % 2 == 1`, with S a size."""
    values = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    terms = set()
    for value in values:
        modulo = value
        if isinstance(value, ast.Compare) and len(value.ops) == 1:
            op, right = value.ops[0], value.comparators[0]
            if not isinstance(right, ast.Constant) or type(right.value) is not int:
                return None
            modulo = value.left
            k = _modulus(modulo, ctx)
            if k is None:
                return None
            if not (
                (isinstance(op, (ast.NotEq, ast.Gt)) and right.value == 0)
                or (isinstance(op, ast.Eq) and right.value == 1 and k == 2)
            ):
                return None
        elif _modulus(modulo, ctx) is None:
            return None
        terms.add((ctx.segment(modulo.left), _modulus(modulo, ctx)))
    return terms


def _modulus(node: ast.expr, ctx: FunctionContext) -> int | None:
    """k for `S % k` with S an integer size and k a positive int literal."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)):
        return None
    k = node.right
    if not (isinstance(k, ast.Constant) and type(k.value) is int and k.value > 0):
        return None
    return k.value if ctx.sizes.is_size(node.left) and ctx.ints.is_int(node.left) else None


def _zero_when_divisible(amount: ast.expr, terms: set[tuple[str, int]], ctx: FunctionContext) -> str | None:
    """'zero': a literal 0; 'same': `S % k` of a term (0 when the condition is false);
    'complement': `k - S % k` of a term (k then: rewritten `(k - S % k) % k`)."""
    if isinstance(amount, ast.Constant) and type(amount.value) is int and amount.value == 0:
        return "zero"
    k = _modulus(amount, ctx)
    if k is not None:
        if (ctx.segment(amount.left), k) in terms:
            return "same"
        inner = amount.left  # (k - S % k) % k and (-S) % k are zero when S % k is
        if isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.USub) and (ctx.segment(inner.operand), k) in terms:
            return "same"
        if (
            isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub) and _modulus(inner.right, ctx) == k
            and (ctx.segment(inner.right.left), k) in terms
        ):
            return "same"
        return None
    if isinstance(amount, ast.BinOp) and isinstance(amount.op, ast.Sub):
        left, right = amount.left, amount.right
        k = _modulus(right, ctx)
        if (
            k is not None and isinstance(left, ast.Constant) and left.value == k and type(left.value) is int
            and (ctx.segment(right.left), k) in terms
        ):
            return "complement"
    return None


def _escapes_after(name: str, node: ast.If, ctx: FunctionContext) -> str | None:
    """How the unpadded tensor could still be seen after the `if` (then the copy a zero pad
    makes is observable): something written in place (`.add_()`, `[...] =`, `+=`, `out=`,
    `inplace=`), or the tensor handed on as itself (returned, stored, aliased, passed to a call
    that is not torch's). Scanned from the `if` to the statement of its block that rebinds the
    name (`x = torch.cat(...)`), or to the end of the function when none does. None when
    nothing of the kind happens."""
    statements = []
    parent = ctx.parent(node)
    block = next(
        (b for b in (getattr(parent, f, None) for f in ("body", "orelse", "finalbody")) if isinstance(b, list) and node in b),
        [],
    )
    rebound = False
    for statement in block[block.index(node) + 1:] if node in block else []:
        statements.append(statement)
        if _single_name_assignment(statement) == name:
            rebound = True
            break
    if not rebound:
        statements = [s for s in ast.walk(ctx.fn.node) if isinstance(s, ast.stmt) and s.lineno > node.end_lineno]
    for statement in statements:
        for current in ast.walk(statement):
            reason = _escape(current, name, ctx)
            if reason:
                return reason
    return None


def _escape(current: ast.AST, name: str, ctx: FunctionContext) -> str | None:
    def bare(value):
        return isinstance(value, ast.Name) and value.id == name

    if isinstance(current, ast.AugAssign) and not ctx.ints.is_int(current.target):
        return "written in place"
    if isinstance(current, ast.Subscript) and isinstance(current.ctx, ast.Store):
        return "written in place"
    if isinstance(current, ast.Call):
        func = current.func
        if isinstance(func, ast.Attribute) and func.attr.endswith("_") and not func.attr.endswith("__"):
            return "written in place"
        if any(k.arg in ("out", "inplace") for k in current.keywords):
            return "written in place"
        qualname = ctx.qualname(func) or ""
        if not qualname.startswith("torch.") and any(bare(a) for a in [*current.args, *(k.value for k in current.keywords)]):
            return f"passed to `{ctx.segment(func)}`"
    if isinstance(current, (ast.Return, ast.Assign, ast.AnnAssign, ast.Yield)) and bare(current.value):
        return "handed on as itself"
    if isinstance(current, (ast.List, ast.Tuple, ast.Set)) and not isinstance(current.ctx, ast.Store) if hasattr(current, "ctx") else isinstance(current, ast.Set):
        if any(bare(e) for e in current.elts):
            return "handed on as itself"
    if isinstance(current, ast.Dict) and any(bare(v) for v in current.values):
        return "handed on as itself"
    return None


# -- ONX602 -------------------------------------------------------------------------------------
class TensorWhile(Rule):
    code = "ONX602"
    name = "tensor-condition-loop"
    summary = "`while` loop on a tensor value"
    doc = RuleDoc(
        what="Finds `while` loops whose condition is a tensor value (`while x.max() > 1:`).",
        why="""
            The number of iterations is decided by the values at export time. The legacy
            exporter unrolls the iterations it ran and records no loop (TracerWarning
            "Converting a tensor to a Python boolean"): measured on torch 2.13, `while x.max() >
            1 and n < 10: x = x / 2` is silently wrong on other values. The dynamo exporter
            fails with `GuardOnDataDependentSymNode` ("Data-dependent branching" in strict mode).
            Both are re-measured on the installed torch by tests/test_flow_proofs.py
            (tests/flow_models/while_halve.py, `while x.abs().max() > 1: x = x / 2`).
        """,
        example="""
            def forward(self, x: torch.Tensor):
                while x.abs().max() > 1:
                    x = x / 2
                return x
        """,
        use_instead="""
            def forward(self, x: torch.Tensor):
                # the number of halvings, computed with tensor ops
                steps = torch.ceil(torch.log2(x.abs().max())).clamp(min=0)
                return x / 2 ** steps
        """,
        fix_safety="""
            No fix: a loop whose trip count depends on data has no general tensor form. Compute
            the trip count with tensor ops, bound the loop by a constant and select with
            `torch.where` inside it, or (dynamo only) use `torch.while_loop`.
        """,
        references=CONTROL_FLOW_REFERENCES,
    )

    def visit_While(self, node: ast.While, ctx: FunctionContext):
        if tensor_condition(node.test, ctx) is None or in_training_branch(node, ctx):
            return
        yield ctx.report(self, node.test, "`while` on a tensor value: the legacy exporter unrolls the iterations run at export time and the dynamo exporter fails (GuardOnDataDependentSymNode)")


# -- ONX603 -------------------------------------------------------------------------------------
SUM_OPERATORS = {ast.Add: "+", ast.Sub: "-"}
ELEMENTWISE_FUNCTIONS = frozenset(
    {
        "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
        "relu", "square", "neg", "negative", "floor", "ceil", "round", "sign", "reciprocal",
    }
)
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


class SizeLoop(Rule):
    code = "ONX603"
    python_hazard = True  # scripted code keeps it dynamic (tests/test_export_guards.py)
    name = "dynamic-size-loop"
    summary = "Python loop whose trip count is a tensor size"
    fix_availability = "sometimes"
    default_safety = "unsafe"
    doc = RuleDoc(
        what="""
            Finds `for` loops and comprehensions over `range(<size>)` where the size comes from
            a tensor's shape (`range(x.shape[0])`, `range(x.size(1))`, `range(len(t))`, or a
            name holding one), and loops iterating over a tensor itself (`for row in t:`,
            `enumerate(t)`), also inside a call: `rows, cols = zip(*ind)` (udop) iterates over
            the rows of `ind`.
        """,
        why="""
            A traced loop is unrolled: the exported graph repeats the body as many times as it
            ran at export. Measured on torch 2.13 with `acc = acc + x[i] * (i + 1)`: the legacy
            exporter with `dynamic_axes` silently keeps 3 iterations (no warning at all) and is
            wrong for every other size; the dynamo exporter with `Dim.DYNAMIC` fails ("tracing
            inferred a static shape of 3 for dimension inputs['x'].shape[0]"). Both are right
            only when that dimension is static. `zip(*ind)` over an `(N, 2)` index tensor,
            measured the same way (tests/flow_models/zip_rows.py): dynamo fails the same way,
            and the legacy graph splits `ind` into the export-time N rows, so onnxruntime fails
            on any other N.
        """,
        example="""
            def forward(self, x):
                acc = torch.zeros_like(x[0])
                for i in range(x.shape[0]):
                    acc = acc + x[i] * 2
                return acc
        """,
        use_instead="""
            def forward(self, x):
                acc = torch.zeros_like(x[0])
                acc = acc + (x * 2).sum(0)
                return acc
        """,
        fix_safety="""
            An accumulation loop is vectorised when its body is one statement `acc = acc + E`,
            `acc += E`, `acc = acc - E` or `acc -= E` and `E` is elementwise in `x[i]` (the
            tensor the range is taken from, indexed by the loop variable and nothing else:
            arithmetic with numbers, `torch.exp`, `.sigmoid()`, ...): `E` is applied to all of
            `x` and summed over dim 0. Always unsafe: a sum reduction adds in a different order
            than the loop, so float results can differ in the last bits; `sum` of int8/int16/
            int32 values accumulates in int64 where the loop wrapped around in the narrow type;
            and `-0.0 + sum([])` is `0.0`.

            A loop that repeats each row a data-dependent number of times (the length
            regulator of FastSpeech-style TTS models) becomes `torch.repeat_interleave`:
            `out = []` / `for i in range(x.shape[0]): out.append(x[i].expand(n[i], -1))` /
            `torch.cat(out, dim=0)` (also `.repeat(n[i], 1)`, `int(n[i])`, `n[i].item()`, and
            the same as a comprehension inside `torch.cat`) becomes
            `torch.repeat_interleave(x, n, dim=0)`, which both exporters translate with the
            output length computed in the graph. Unsafe: it needs `n` to be an integer tensor
            of length `x.shape[0]` and `x` to be 2-D, which static analysis cannot check (the
            loop also accepted a float `n` through `int()`, or a longer `n`).

            `zip(*t)` is only reported: `t.unbind(1)` gives the columns as tensors, where zip
            gave tuples of 0-d tensors (not the same value for every use). Other loops are only
            reported: vectorise them by hand (`torch.arange` for the index,
            a `cumsum`, or `torch.cat` of masked parts).
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-python-control-flow",
            "https://github.com/pytorch/pytorch/issues/99701",
            "https://github.com/ming024/FastSpeech2/blob/master/model/modules.py",
        ),
    )

    def visit_For(self, node: ast.For, ctx: FunctionContext):
        described = _dynamic_iteration(node.iter, ctx)
        if described is None or in_training_branch(node, ctx):
            return
        message = (
            f"loop over {described}: unrolled at export (legacy: silently, for the export-time "
            f"size; dynamo: fails when that dimension is dynamic, 'tracing inferred a static shape')"
        )
        fix = _vectorised_accumulation(node, ctx) or _repeated_rows_loop(node, ctx)
        yield ctx.report(self, node, message + ("" if fix else NO_LOOP_FIX), fix=fix)

    def visit_comprehension(self, node: ast.comprehension, ctx: FunctionContext):
        described = _dynamic_iteration(node.iter, ctx)
        if described is None or in_training_branch(node.iter, ctx):
            return
        message = (
            f"comprehension over {described}: unrolled at export (legacy: silently, for the "
            f"export-time size; dynamo: fails when that dimension is dynamic)"
        )
        fix = _repeated_rows_comprehension(node, ctx)
        yield ctx.report(self, node.iter, message + ("" if fix else NO_LOOP_FIX), fix=fix)

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        """`zip(*t)`: the star iterates over the rows of ``t`` while the call is made."""
        if not (isinstance(node.func, ast.Name) and node.func.id == "zip" and ctx.scope.lookup("zip") is None):
            return
        for argument in node.args:
            described = _tensor_iterable(argument.value, ctx) if isinstance(argument, ast.Starred) else None
            if described is not None and not in_training_branch(node, ctx):
                message = (
                    f"`{ctx.segment(node)}` iterates over {described}: unrolled at export (legacy: for the "
                    f"export-time row count; dynamo: fails when that dimension is dynamic, 'tracing inferred "
                    f"a static shape')"
                )
                yield ctx.report(self, node, message + NO_LOOP_FIX)
                return


# Why a loop over a dynamic size keeps no fix: the two forms the rule rewrites are exact; any
# other body would need its semantics proven elementwise, which text analysis cannot do.
NO_LOOP_FIX = (
    "; no automatic fix: only an elementwise accumulation (`acc = acc + f(x[i])`) or a repeat of "
    "rows is rewritten exactly; vectorise the body over the dimension by hand"
)
FIXED_COUNT_SPLITS = frozenset({"split", "chunk", "tensor_split", "split_with_sizes"})


def _dynamic_iteration(iterable: ast.expr, ctx: FunctionContext) -> str | None:
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and ctx.scope.lookup(iterable.func.id) is None:
        name = iterable.func.id
        if name == "range" and iterable.args and not iterable.keywords:
            if any(_is_size_bound(arg, ctx) for arg in iterable.args):
                return f"`{ctx.segment(iterable)}`, a tensor size"
            return None
        if name in ("enumerate", "reversed") and iterable.args:
            return _tensor_iterable(iterable.args[0], ctx)
        if name == "zip" and iterable.args:
            # zip stops at its shortest argument: one list or module list of fixed length
            # bounds the loop, so report only when every argument is a tensor
            described = [_tensor_iterable(arg, ctx) for arg in iterable.args]
            return described[0] if all(described) else None
        return None
    return _tensor_iterable(iterable, ctx)


def _tensor_iterable(node: ast.expr, ctx: FunctionContext) -> str | None:
    """Iterating over a tensor runs once per row. The parts of split/chunk are a tuple whose
    length is fixed by the arguments, not a tensor."""
    if isinstance(node, ast.Call):
        last = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if last in FIXED_COUNT_SPLITS or (ctx.qualname(node.func) or "").rpartition(".")[2] in FIXED_COUNT_SPLITS:
            return None
    if ctx.tensors.is_tensor(node):
        return f"the tensor `{ctx.segment(node)}`"
    return None


def _is_size_bound(node: ast.expr, ctx: FunctionContext) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        return bool(ctx.tensors.is_tensor(node.args[0]))
    if isinstance(node, ast.Attribute) and node.attr == "ndim":
        return False  # the rank is static under both exporters
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("dim", "ndimension"):
        return False
    return ctx.sizes.is_size(node)


def _loop_length_source(iterable: ast.expr) -> str | None:
    """The tensor name X of `range(X.shape[0])`, `range(X.size(0))`, `range(len(X))`."""
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"):
        return None
    if len(iterable.args) != 1:
        return None
    bound = iterable.args[0]
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len" and len(bound.args) == 1:
        return bound.args[0].id if isinstance(bound.args[0], ast.Name) else None
    if isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Attribute) and bound.value.attr == "shape":
        if _is_zero(bound.slice) and isinstance(bound.value.value, ast.Name):
            return bound.value.value.id
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Attribute) and bound.func.attr == "size":
        if len(bound.args) == 1 and _is_zero(bound.args[0]) and isinstance(bound.func.value, ast.Name):
            return bound.func.value.id
    return None


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and type(node.value) is int


def _vectorised_accumulation(node: ast.For, ctx: FunctionContext) -> Fix | None:
    source_name = _loop_length_source(node.iter)
    if source_name is None or node.orelse or len(node.body) != 1 or not isinstance(node.target, ast.Name):
        return None
    if not ctx.tensors.is_tensor(ast.Name(id=source_name, ctx=ast.Load())):
        return None
    index = node.target.id
    accumulator, operator, term = _accumulation(node.body[0])
    if accumulator is None or accumulator in (index, source_name):
        return None
    if not _elementwise_in(term, source_name, index, ctx) or _uses_name_elsewhere(index, node, ctx):
        return None
    comments = comments_outside(ctx, node, [term])
    if comments is None:
        return None
    vectorised = _substitute_rows(ctx, term, source_name)
    if not isinstance(term, (ast.Name, ast.Subscript, ast.Call, ast.Attribute)):
        vectorised = f"({vectorised})"
    total = f"{vectorised}.sum(0)"
    if isinstance(node.body[0], ast.AugAssign):
        new = f"{accumulator} {operator}= {total}"
    else:
        new = f"{accumulator} = {accumulator} {operator} {total}"
    edit = replace_statements(ctx, node, node, new, comments)
    return Fix("Vectorise the accumulation (`.sum(0)` over the rows)", (edit,), safe=False)


def _accumulation(statement: ast.stmt) -> tuple[str | None, str | None, ast.expr | None]:
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        operator = SUM_OPERATORS.get(type(statement.op))
        if operator:
            return statement.target.id, operator, statement.value
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        name = statement.targets[0].id
        value = statement.value
        if isinstance(value, ast.BinOp) and type(value.op) in SUM_OPERATORS:
            if isinstance(value.left, ast.Name) and value.left.id == name:
                return name, SUM_OPERATORS[type(value.op)], value.right
    return None, None, None


def _elementwise_in(term: ast.expr, source: str, index: str, ctx: FunctionContext) -> bool:
    """``term`` uses ``source[index]`` at least once, the index nowhere else, and only
    elementwise operations with numbers."""
    rows = 0
    for node in ast.walk(term):
        if _is_row(node, source, index):
            rows += 1
    if rows == 0:
        return False
    return _elementwise(term, source, index, ctx)


def _elementwise(node: ast.expr, source: str, index: str, ctx: FunctionContext) -> bool:
    if _is_row(node, source, index):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
        return _elementwise(node.left, source, index, ctx) and _elementwise(node.right, source, index, ctx)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _elementwise(node.operand, source, index, ctx)
    if isinstance(node, ast.Call) and not node.keywords:
        qualname = ctx.qualname(node.func) or ""
        module, _, last = qualname.rpartition(".")
        if module in ("torch", "torch.nn.functional") and last in ELEMENTWISE_FUNCTIONS and len(node.args) == 1:
            return _elementwise(node.args[0], source, index, ctx)
        if isinstance(node.func, ast.Attribute) and node.func.attr in ELEMENTWISE_FUNCTIONS and not node.args:
            return _elementwise(node.func.value, source, index, ctx)
    return False


def _is_row(node: ast.AST, source: str, index: str) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == source
        and isinstance(node.slice, ast.Name)
        and node.slice.id == index
    )


def _uses_name_elsewhere(index: str, loop: ast.For, ctx: FunctionContext) -> bool:
    """The loop variable is read outside `X[i]` in the body, or after the loop (Python keeps
    it bound); reads inside other loops or comprehensions that rebind it do not count."""
    allowed = {id(n.slice) for n in ast.walk(loop.body[0]) if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name)}
    inside = {id(n) for n in ast.walk(loop)}
    rebinding = set()
    for node in ast.walk(ctx.fn.node):
        if node is loop:
            continue
        targets = []
        if isinstance(node, (ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            targets = [g.target for g in node.generators]
        if any(isinstance(t, ast.Name) and t.id == index for t in targets):
            rebinding.update(id(n) for n in ast.walk(node))
    for node in ast.walk(ctx.fn.node):
        if isinstance(node, ast.Name) and node.id == index and isinstance(node.ctx, ast.Load):
            if id(node) in inside:
                if id(node) not in allowed:
                    return True
            elif id(node) not in rebinding:
                return True
    return False


def _substitute_rows(ctx: FunctionContext, term: ast.expr, source: str) -> str:
    text = ctx.file.source.text
    start, end = ctx.file.source.span(term)
    rows = sorted(
        ctx.file.source.span(n) for n in ast.walk(term) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == source
    )
    pieces, position = [], start
    for row_start, row_end in rows:
        pieces.append(text[position:row_start])
        pieces.append(source)
        position = row_end
    pieces.append(text[position:end])
    return "".join(pieces)


# -- ONX603: rows repeated by data-dependent counts -> torch.repeat_interleave -------------------
def _repeated_rows_loop(node: ast.For, ctx: FunctionContext) -> Fix | None:
    """`out = []` / `for i in range(x.shape[0]): out.append(<x[i] repeated n[i] times>)` /
    `return torch.cat(out, dim=0)` (or `y = torch.cat(...)`)."""
    source_name = _loop_length_source(node.iter)
    if source_name is None or node.orelse or len(node.body) != 1 or not isinstance(node.target, ast.Name):
        return None
    appended = _appended(node.body[0])
    if appended is None:
        return None
    accumulator, value = appended
    counts = _repeated_row(value, source_name, node.target.id)
    before, after = _previous_statement(node, ctx), _next_statement(node, ctx)
    if counts is None or not _is_empty_list(before, accumulator) or after is None:
        return None
    concatenated = _concatenation(after, accumulator, ctx)
    if concatenated is None or _uses_name_elsewhere(node.target.id, node, ctx):
        return None
    if _name_loads(accumulator, ctx) != 2 or len({source_name, counts, accumulator, node.target.id}) != 4:
        return None  # the list is read elsewhere, or the names collide
    comments = comments_outside(ctx, before, [], after)
    if comments is None:
        return None
    torch_name, imports = ctx.torch_name()
    call = f"{torch_name}.repeat_interleave({source_name}, {counts}, dim=0)"
    new = f"return {call}" if isinstance(after, ast.Return) else f"{_single_name_assignment(after)} = {call}"
    edit = replace_statements(ctx, before, after, new, comments)
    return Fix("Repeat the rows with `torch.repeat_interleave`", (edit,), safe=False, imports=imports)


def _repeated_rows_comprehension(node: ast.comprehension, ctx: FunctionContext) -> Fix | None:
    """`torch.cat([<x[i] repeated n[i] times> for i in range(x.shape[0])], dim=0)`."""
    listcomp = ctx.parent(node)
    call = ctx.parent(listcomp) if isinstance(listcomp, ast.ListComp) else None
    source_name = _loop_length_source(node.iter)
    if call is None or source_name is None or node.ifs or node.is_async or not isinstance(node.target, ast.Name):
        return None
    if len(listcomp.generators) != 1 or not _is_concatenation_of(call, listcomp, ctx):
        return None
    counts = _repeated_row(listcomp.elt, source_name, node.target.id)
    if counts is None or node.target.id in (source_name, counts):
        return None
    torch_name, imports = ctx.torch_name()
    text = f"{torch_name}.repeat_interleave({source_name}, {counts}, dim=0)"
    return Fix("Repeat the rows with `torch.repeat_interleave`", (ctx.replace(call, text),), safe=False, imports=imports)


def _appended(statement: ast.stmt) -> tuple[str, ast.expr] | None:
    """(list name, value) of `name.append(value)`."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return None
    call = statement.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "append" and isinstance(call.func.value, ast.Name)):
        return None
    if len(call.args) != 1 or call.keywords:
        return None
    return call.func.value.id, call.args[0]


def _repeated_row(value: ast.expr, source: str, index: str) -> str | None:
    """The counts tensor N of `source[index].expand(N[index], -1)` / `.repeat(N[index], 1)`,
    the count optionally wrapped in `int(...)` / `.item()`."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and not value.keywords):
        return None
    if not _is_row(value.func.value, source, index) or len(value.args) != 2:
        return None
    rest = {"expand": -1, "repeat": 1}.get(value.func.attr)
    last = value.args[1]
    if rest is None or not _is_int_constant(last, rest):
        return None
    return _count_source(value.args[0], index)


def _is_int_constant(node: ast.expr, number: int) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _is_int_constant(node.operand, -number)
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == number


def _count_source(node: ast.expr, index: str) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int" and len(node.args) == 1:
        return _count_source(node.args[0], index)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item" and not node.args:
        node = node.func.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Name):
        return node.value.id if node.slice.id == index else None
    return None


def _is_empty_list(statement: ast.stmt | None, name: str) -> bool:
    return (
        statement is not None
        and _single_name_assignment(statement) == name
        and isinstance(statement.value, ast.List)
        and not statement.value.elts
    )


def _concatenation(statement: ast.stmt, accumulator: str, ctx: FunctionContext) -> ast.Call | None:
    """`return torch.cat(acc, dim=0)` or `y = torch.cat(acc, 0)`."""
    value = statement.value if isinstance(statement, (ast.Return, ast.Assign)) else None
    if isinstance(statement, ast.Assign) and _single_name_assignment(statement) in (None, accumulator):
        return None
    if not isinstance(value, ast.Call):
        return None
    arguments = value.args[:1]
    if not (arguments and isinstance(arguments[0], ast.Name) and arguments[0].id == accumulator):
        return None
    return value if _is_concatenation_of(value, arguments[0], ctx) else None


def _is_concatenation_of(call: ast.AST, first: ast.expr, ctx: FunctionContext) -> bool:
    """`torch.cat(first)`, `torch.cat(first, 0)` or `torch.cat(first, dim=0)` (also concat)."""
    if not (isinstance(call, ast.Call) and call.args and call.args[0] is first):
        return False
    if ctx.qualname(call.func) not in ("torch.cat", "torch.concat", "torch.concatenate"):
        return False
    dims = call.args[1:] + [k.value for k in call.keywords if k.arg in ("dim", "axis")]
    if len(dims) + 1 != len(call.args) + len(call.keywords):
        return False  # out= or another keyword
    return len(dims) <= 1 and all(_is_zero(d) for d in dims)


def _name_loads(name: str, ctx: FunctionContext) -> int:
    return sum(
        1 for n in ast.walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    )


RULES = [TensorIf, TensorWhile, SizeLoop]
