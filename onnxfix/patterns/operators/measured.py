"""ONX524: an operator that torch's own OpInfo database, probed under both exporters, shows failing
for every argument pattern, where no other operator rule knows it."""

from __future__ import annotations

import ast

from onnxfix import opdb_catalog
from onnxfix import operator_catalog as catalog
from onnxfix.patterns.operators.base import TARGETS
from onnxfix.patterns.operators.complex_values import carries_complex_pair
from onnxfix.patterns.operators.transposes import DEFINITIONS as TRANSPOSES
from onnxfix.patterns.operators.unsupported import NO_DECOMPOSITION_OPS
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Rule, RuleDoc

PROBE = "python bench/opdb_probe.py"


def _left_to_other_rules(spelling: str) -> bool:
    """Ops the hand-probed catalog measures are the decomposition and report rules' (ONX501-523):
    they know the argument forms that fail and the rewrite. Whatever the spelling: `Tensor.cumprod_`
    is cumprod's too."""
    known = catalog.cases_by_op()
    return any(s in TARGETS or s in NO_DECOMPOSITION_OPS or s in known or s in TRANSPOSES
               for s in (spelling, *opdb_catalog.siblings(spelling)))


def _is_self(node: ast.AST) -> bool:
    """`self.inner(x)` calls a submodule, not `Tensor.inner`."""
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def spelling_of(node: ast.Call, ctx: FunctionContext) -> tuple[str | None, bool]:
    """(`torch.x` / `torch.nn.functional.x` / `Tensor.x`, is a method call) whatever the import alias."""
    qualname = ctx.qualname(node.func)
    if qualname is not None:
        return qualname, False
    func = node.func
    if isinstance(func, ast.Attribute) and not _is_self(func.value) and ctx.tensors.is_tensor(func.value) is not False:
        return f"Tensor.{func.attr}", True
    return None, False


# Inverse real FFTs that a `_onnx_complex_pair` (ONX526) computes on its parts.
_OF_A_PAIR = frozenset({"torch.fft.irfft", "torch.fft.irfft2", "torch.fft.irfftn"})


class MeasuredFailingOperator(Rule):
    code = "ONX524"
    name = "op-db-failing-operator"
    summary = "An operator torch's OpInfo database shows failing to export for every argument pattern"
    fix_availability = "never"
    triggers = tuple(sorted({s.rsplit(".", 1)[-1] for s in opdb_catalog.failing_spellings()}))
    _last_names = frozenset(triggers)  # `x.attr(...)` of another attr is no failing spelling
    doc = RuleDoc(
        what="Finds calls, in any spelling (`torch.x`, `torch.linalg.x`, `torch.special.x`, "
        "`F.x`, `Tensor.x`, aliases), to operators that the op_db probe "
        "measured failing under an exporter for every argument pattern and dtype of torch's own "
        "OpInfo samples, and that no other ONX5xx rule covers (those know the failing argument "
        "forms and the rewrite). docs/opdb.md lists every op with its verdicts.",
        why="torch.onnx's consistency tests are built on the same OpInfo database: each entry's "
        "sample inputs cover the op's argument forms. When every one of them fails (no ONNX "
        "function for the ATen overload, no symbolic, an invalid graph, wrong values), the "
        f"call fails whatever its arguments. The verdicts come from `{PROBE}` on the installed "
        "torch; after an upgrade that fixes an op, re-running the probe silences the rule.",
        example="def forward(self, x):\n    return torch.linalg.vander(x, N=4)",
        use_instead="def forward(self, x):  # the powers x**0 .. x**3 with exportable ops\n"
        "    return x.unsqueeze(-1) ** torch.arange(4, device=x.device)",
        fix_safety="No fix: onnxfix has no decomposition for these ops. `onnxfix export` "
        "reports the failing ATen overload at this line.",
        references=("https://github.com/pytorch/pytorch/blob/main/torch/testing/_internal/common_methods_invocations.py",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if isinstance(node.func, ast.Attribute) and node.func.attr not in self._last_names:
            return  # a method or module function of no failing name (the receiver's type is not asked)
        spelling, _ = spelling_of(node, ctx)
        failed = opdb_catalog.fails_always(spelling) if spelling else {}
        if not failed or _left_to_other_rules(spelling):
            return
        if spelling in _OF_A_PAIR and node.args and carries_complex_pair(node.args[0], ctx):
            return  # ONX526's pair computes it (complex_pair.py): no failure left once that is fixed
        message = (
            f"`{spelling}` breaks ONNX export for every argument pattern torch's OpInfo samples give "
            f"({opdb_catalog.describe(failed)}; op_db probe on torch {opdb_catalog.torch_version()}); "
            "onnxfix has no rewrite for it"
        )
        yield ctx.report(self, node, message, exporters=tuple(sorted(failed)))


RULES = [MeasuredFailingOperator]
