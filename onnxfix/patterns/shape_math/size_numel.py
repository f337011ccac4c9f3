"""ONX411: `torch.Size.numel()`, the product of sizes computed outside the graph."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.torch_sizes import is_torch_size


class SizeNumel(Rule):
    code = "ONX411"
    name = "size-numel"
    summary = "`torch.Size.numel()` of sizes from the input"
    triggers = ("numel",)
    fix_availability = "always"
    default_safety = "safe"
    doc = RuleDoc(
        what="""
            Finds `.numel()` called on a torch.Size rather than on a tensor: `x.shape[2:].numel()`,
            `x.size().numel()`, a name bound to one, an item of a list of them
            (`featmap_sizes = [s.shape[2:] for s in cls_scores]`, then
            `for featmap_size, stride in zip(featmap_sizes, strides)`), or, under
            `onnxfix export --fix`, a name the run saw hold only torch.Size values.
        """,
        why="""
            `torch.Size.numel()` multiplies the sizes in C++, out of the exporters' sight: the
            legacy exporter records the example's count as a constant (onnxruntime fails or
            computes with the wrong count on other sizes), and torch.export specializes the
            dims it reads (mmyolo's YOLOv5 head, tests/realworld/mmyolo_yolov5_predict_by_feat_
            featmap_size_numel_strides.py: the feature-map sizes fixed at the example's).
            `math.prod` of the same sizes multiplies the traced sizes one by one, which both
            exporters follow (measured on torch 2.13, tests/values_models.py SizeNumel).
        """,
        example="""
            def forward(self, x):
                sizes = [f.shape[2:] for f in self.features(x)]
                return [x.new_full((s.numel(),), 8.0) for s in sizes]
        """,
        use_instead="""
            def forward(self, x):
                sizes = [f.shape[2:] for f in self.features(x)]
                return [x.new_full((math.prod(s),), 8.0) for s in sizes]
        """,
        fix_safety="""
            Safe: `math.prod` of a torch.Size is the same Python int as its `numel()` (1 for an
            empty one). `numel()` of a tensor is never rewritten: only receivers known to be a
            torch.Size are. Unsafe where the list of sizes the receiver comes from is passed to
            a call the analysis cannot follow (a method of another object), which could replace
            its items.
        """,
        references=("https://github.com/open-mmlab/mmyolo/blob/main/mmyolo/models/dense_heads/yolov5_head.py",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "numel" and not node.args and not node.keywords):
            return
        safe = is_torch_size(ctx, func.value)
        if not (safe or is_torch_size(ctx, func.value, strict=False)):
            return
        math = ctx.module_name("math")
        fix = None if math is None else Fix("Use `math.prod(...)` of the sizes", self._edits(node, ctx, math[0]),
                                              safe=safe, imports=math[1])
        message = ("`torch.Size.numel()` multiplies the sizes outside the graph: the legacy exporter records the "
                   "example's count and torch.export can specialize the dims; `math.prod` keeps the product traced")
        yield ctx.report(self, node, message, fix=fix)

    @staticmethod
    def _edits(node: ast.Call, ctx: FunctionContext, math: str) -> tuple[Edit, ...]:
        start, end = ctx.file.source.span(node)
        return (Edit(start, end, f"{math}.prod({ctx.segment(node.func.value)})"),)


RULES = [SizeNumel]
