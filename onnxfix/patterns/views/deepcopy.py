"""ONX304: `copy.deepcopy` of a tensor in forward."""

from __future__ import annotations

import ast

from onnxfix.patterns.views.mutation import ViewMutation
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import in_training_branch
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc


# -- ONX304 --------------------------------------------------------------------------------------
class DeepcopyInForward(Rule):
    code = "ONX304"
    name = "deepcopy-in-forward"
    summary = "`copy.deepcopy` of a tensor in export-time code"
    fix_availability = "always"
    default_safety = "unsafe"
    doc = RuleDoc(
        what="""
            Finds `copy.deepcopy(t)` of a tensor in code that runs under export. Copies of
            configs, dicts and other Python objects are not reported: they run as plain Python
            under both exporters.
        """,
        why="""
            Measured on torch 2.13: the legacy exporter records the copy as data, not as an
            operation on the input: `y = copy.deepcopy(x); return y * 2` exports a model wrong
            even on the export inputs, and with a write into the copy (`y[:, 0] = 0`) one that
            onnxruntime cannot run. The dynamo exporter fails at capture ("Cannot access data
            pointer of Tensor (e.g. FakeTensor, FunctionalTensor)"). `deepcopy` is the second
            most common cause of graph breaks in the Hugging Face graph-break corpus (22 of
            468 models).
        """,
        example="""
            def forward(self, x: torch.Tensor):
                y = copy.deepcopy(x)
                y[:, 0] = 0
                return y
        """,
        use_instead="""
            def forward(self, x: torch.Tensor):
                y = x.detach().clone()
                y[:, 0] = 0
                return y
        """,
        fix_safety="""
            For an argument known to be a tensor, `copy.deepcopy(t)` becomes
            `t.detach().clone()`: the same values in new memory. Unsafe: `deepcopy` of a leaf
            that requires grad returns a new leaf that requires grad, `detach()` does not; and
            deepcopy of a non-leaf tensor raises where the rewrite does not.
        """,
        references=(
            "https://github.com/penguinwu/oss-model-graph-break-corpus/blob/0dbe2f775c9ed9eea1cff121a2eec0c03bc2fffb/analysis/graph-break-analysis.md",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if ctx.qualname(node.func) != "copy.deepcopy" or len(node.args) != 1 or node.keywords:
            return
        argument = node.args[0]
        if in_training_branch(node, ctx) or not ctx.tensors.is_tensor(argument):
            return  # copies of configs and containers run as plain Python under both exporters
        text = ctx.segment(argument)
        if not isinstance(argument, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
            text = f"({text})"
        fix = Fix("Copy with `.detach().clone()`", (ctx.replace(node, f"{text}.detach().clone()"),), safe=False)
        yield ctx.report(
            self,
            node,
            "`copy.deepcopy` in export-time code: the legacy exporter records the copy as a constant "
            "and the dynamo exporter cannot trace it",
            fix=fix,
        )


RULES = [ViewMutation, DeepcopyInForward]
