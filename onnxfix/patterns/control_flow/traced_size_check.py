"""ONX617: `torch._check(...)` on sizes, which the legacy exporter's tracer holds as tensors.

torch.export reads `torch._check(cond)` as a fact about its symbolic sizes (TabPFN's
`torch._check(num_parallel_calls >= 1)  # These checks help torch.compile.`). While the legacy
exporter traces, a size read from a tensor is a 0-d tensor, so the condition is a tensor, and
`torch._check` refuses it: "TypeError: cond must be a bool, but got a Tensor". The check is a
hint for torch.export and an assertion in eager; the TorchScript tracer needs neither.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.bindings import reaching_value
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

# torch's checks that raise on a condition that is not a Python bool, and the position of the
# condition among their arguments (`_check_is_size(i)` checks `i >= 0` itself)
CHECKS = {"torch._check": 0, "torch._check_is_size": 0, "torch._check_index": 0, "torch._check_value": 0,
          "torch._check_type": 0, "torch._check_not_implemented": 0, "torch._check_with": 1}


class TracedSizeCheck(Rule):
    code = "ONX617"
    name = "size-check-under-tracer"
    summary = "`torch._check(...)` on sizes: the legacy exporter's tracer makes the condition a tensor, which it refuses"
    fix_availability = "always"
    default_safety = "safe"
    python_hazard = True  # code the legacy exporter runs compiled by TorchScript has no traced sizes
    triggers = tuple(name.rsplit(".", 1)[1] for name in CHECKS)
    exporters = ("legacy",)
    doc = RuleDoc(
        what="Finds statements calling `torch._check` (or `_check_is_size`, `_check_with`, "
        "`_check_index`, `_check_value`, `_check_type`, `_check_not_implemented`) whose condition is "
        "computed from tensor sizes: `torch._check(x.shape[0] >= 1)`, `torch._check(n > 0)` with `n = "
        "math.prod(q.shape[:2])`, a size a caller passes in. Not a condition that is a Python bool under the "
        "tracer (`not ...`, `in`, whole shapes compared), nor one that also reads a value read out as a Python "
        "number (`.item()`, `int()`): the legacy trace bakes that value in, and the check's failure is then the "
        "only sign of it (skipping the check turned ExecuTorch's attention sink from EXPORT-FAILS into "
        "SILENTLY-WRONG).",
        why="While the legacy exporter traces, sizes are 0-d tensors, so the condition is a tensor and "
        "`torch._check` raises \"TypeError: cond must be a bool, but got a Tensor\": the export fails. "
        "Measured on torch 2.13 (tests/flow_models/traced_size_check.py). torch.export reads the same "
        "call as a fact about its symbolic sizes, and eager as an assertion.",
        example="def forward(self, q):\n    torch._check(q.shape[0] >= 1)\n    return q * 2",
        use_instead="def forward(self, q):\n    torch.jit.is_tracing() or torch._check(q.shape[0] >= 1)\n    return q * 2",
        fix_safety="Safe: `torch.jit.is_tracing()` is False in eager and under torch.export, which run "
        "the check as before; only the TorchScript tracer skips it.",
        references=("https://github.com/PriorLabs/TabPFN/blob/main/src/tabpfn/architectures/base/attention/full_attention.py",),
    )

    def visit_Expr(self, node: ast.Expr, ctx: FunctionContext):
        call = node.value
        if not isinstance(call, ast.Call):
            return
        position = CHECKS.get(ctx.qualname(call.func) or "")
        condition = call.args[position] if position is not None and len(call.args) > position else None
        if condition is None or not _tensor_under_tracer(condition, ctx):
            return
        torch, imports = ctx.torch_name()
        fix = Fix("Skip the check while the TorchScript tracer runs",
                  (ctx.replace(call, f"{torch}.jit.is_tracing() or {ctx.segment(call)}"),), safe=True, imports=imports)
        message = ("a check on sizes: while the legacy exporter traces, sizes are tensors and the check raises "
                   "\"cond must be a bool, but got a Tensor\"; skip it under the tracer (`torch.jit.is_tracing() or`)")
        yield ctx.report(self, call, message, fix=fix)


# calls whose result is a Python number while the legacy exporter traces (a constant, not a tensor)
PYTHON_NUMBERS = frozenset({"item", "int", "float", "len", "bool"})
WHOLE_SHAPES = frozenset({"shape", "size"})


def _tensor_under_tracer(condition: ast.expr, ctx: FunctionContext) -> bool:
    """The condition is a 0-d tensor while the legacy exporter traces: a comparison (or arithmetic)
    of a traced size; not `not ...`, `in`, `is`, nor a comparison of whole shapes (torch.Size
    compares as a tuple: a Python bool there too)."""
    if isinstance(condition, ast.UnaryOp) and isinstance(condition.op, ast.Not):
        return False
    if isinstance(condition, ast.BoolOp):
        return _tensor_under_tracer(condition.values[-1], ctx)  # `a and b` gives `b` once `a` holds
    if isinstance(condition, ast.Compare):
        operands = [condition.left, *condition.comparators]
        if any(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in condition.ops) \
                or any(_whole_shape(operand) for operand in operands):
            return False
    # a value read out as a Python number (`.item()`, `int()`) is a constant in the legacy trace:
    # the check's failure is then the only sign that the export would be wrong (ExecuTorch's
    # attention sink: `torch._check(remapped_item + seq_len <= ...)`, remapped from `.item()`);
    # skipping it turns that failure silent
    return _reads(condition, ctx) == {SIZE}


def _whole_shape(node: ast.expr) -> bool:
    """`x.shape`, `x.size()`: a torch.Size, whose comparisons are Python bools."""
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WHOLE_SHAPES
            and not node.args and not node.keywords)


SIZE, NUMBER = "a traced size", "a Python number"


def _reads(node: ast.AST, ctx: FunctionContext, depth: int = 4) -> set[str]:
    """What the condition's values are made of while the legacy exporter traces: SIZE where it reads
    a size (directly, through a name bound to one, or a parameter a caller passes one), NUMBER where
    a value is read out as a Python number (`.item()`, `int()`, `len()`: constants there, and so is
    what they read). A loop's index (`for i in range(x.size(0))`) is an int: neither."""
    if depth == 0:
        return set()
    if isinstance(node, ast.Call):
        func = node.func
        if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in PYTHON_NUMBERS:
            return {NUMBER}
    if isinstance(node, ast.Name):
        reaching = reaching_value(node, ctx)  # the value this read sees, where straight-line code decides it
        if reaching is not None:
            return _reads(reaching, ctx, depth - 1)
        found = {SIZE} if ctx.sizes.passed_a_size(node) else set()
        for value in ctx.assignments(node.id):
            value = value.value if isinstance(value, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else value
            if isinstance(value, ast.expr):
                found |= _reads(value, ctx, depth - 1)
        return found
    found = {SIZE} if isinstance(node, ast.expr) and ctx.sizes.is_size(node) else set()
    for child in ast.iter_child_nodes(node):
        found |= _reads(child, ctx, depth)
    return found


RULES = [TracedSizeCheck]
