"""ONX604: a torch.distributions object built in forward checks its arguments' values.

With argument validation on (torch's default), `Normal(loc, scale)` runs
`constraint.check(value).all()` and raises on a False: a Python branch on a tensor value. The
dynamo exporter refuses it ("Could not guard on data-dependent expression"); the legacy exporter
bakes the check in as a constant. Policies (Stable-Baselines3's DiagGaussianDistribution), VAEs
and flows build their distribution in forward, so their export stops there.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.edits import appended_keyword
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

MODULE = "torch.distributions."
GLOBAL_SWITCH = "set_default_validate_args"


def distribution_class(node: ast.Call, ctx: FunctionContext) -> str | None:
    """`torch.distributions.Normal` / `.normal.Normal` / `D.Categorical`: the class name."""
    qualname = ctx.qualname(node.func)
    if not qualname or not qualname.startswith(MODULE):
        return None
    name = qualname.rsplit(".", 1)[-1]
    return name if name[:1].isupper() and name not in ("Distribution", "ExponentialFamily") else None


class DistributionValidatesArgs(Rule):
    code = "ONX604"
    name = "distribution-validates-args"
    summary = "A torch.distributions object built in forward validates its arguments' values (a data-dependent check)"
    fix_availability = "sometimes"
    default_safety = "unsafe"
    triggers = ("distributions",)
    exporters = ("dynamo",)
    doc = RuleDoc(
        what="Finds `torch.distributions` classes constructed in export-time code without "
        "`validate_args=False` (`Normal(mean, std)`, `D.Categorical(logits=x)`), unless the file "
        "turns validation off with `Distribution.set_default_validate_args(False)`.",
        why="With validation on (the default), the constructor checks every parameter against "
        "its constraint and raises on a violation: `if not valid.all(): raise ValueError(...)`, "
        "a Python branch on a tensor value. The dynamo exporter stops there (\"Could not guard on "
        "data-dependent expression\"); the legacy exporter traces the check as a constant.",
        example="def forward(self, obs):\n    mean = self.net(obs)\n"
        "    return torch.distributions.Normal(mean, self.log_std.exp()).log_prob(mean)",
        use_instead="def forward(self, obs):\n    mean = self.net(obs)\n"
        "    return torch.distributions.Normal(mean, self.log_std.exp(), validate_args=False).log_prob(mean)",
        fix_safety="Unsafe: for valid parameters the distribution computes the same values, but "
        "invalid ones (a negative scale, probabilities outside [0, 1]) no longer raise in eager.",
        references=("https://github.com/DLR-RM/stable-baselines3/issues/2093",
                    "https://pytorch.org/docs/stable/distributions.html#torch.distributions.distribution.Distribution.set_default_validate_args"),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        name = distribution_class(node, ctx)
        if name is None or GLOBAL_SWITCH in ctx.file.source.text:
            return
        given = next((k.value for k in node.keywords if k.arg == "validate_args"), None)
        if isinstance(given, ast.Constant) and given.value is False:
            return
        fix = None
        if given is None and not any(k.arg is None for k in node.keywords) and (node.args or node.keywords):
            fix = Fix("Pass `validate_args=False`", (appended_keyword(node, "validate_args=False", ctx),), safe=False)
        message = (
            f"`{name}(...)` validates its arguments' values (`constraint.check(value).all()`, then raise): "
            "a data-dependent branch the dynamo exporter cannot trace; pass `validate_args=False`"
        )
        yield ctx.report(self, node, message, fix=fix)


RULES = [DistributionValidatesArgs]
