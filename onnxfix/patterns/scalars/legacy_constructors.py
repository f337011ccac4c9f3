"""ONX206: the legacy typed constructors given a size (`torch.FloatTensor(t.size()).zero_()`).

Old model code (pix2pixHD's one-hot label maps, CLOVA's attention decoder) allocates with the
typed constructors: `torch.FloatTensor(torch.Size(shape)).zero_()`, `torch.ByteTensor(t.size())`,
`torch.LongTensor(b, n).fill_(0)`. A torch.Size or several numbers make them size constructors;
a list or a tuple makes them data constructors (`torch.FloatTensor((2, 3))` is the 2-vector
[2., 3.]). The legacy exporter records a size constructor as a constant of the export-time shape
(the flow model then fails in onnxruntime on other sizes). `torch.zeros` / `torch.full` / `torch.empty` with the size, the
constructor's dtype and device are the same tensor, and both exporters take their sizes from the
graph.
"""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_number
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

DTYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
          "ByteTensor": "uint8", "CharTensor": "int8", "ShortTensor": "int16", "IntTensor": "int32",
          "LongTensor": "int64", "BoolTensor": "bool"}
CONSTRUCTORS = {f"{module}.{name}": (dtype, device) for name, dtype in DTYPES.items()
                for module, device in (("torch", "cpu"), ("torch.cuda", "cuda"))}


class LegacySizeConstructor(Rule):
    code = "ONX206"
    name = "legacy-size-constructor"
    summary = "`torch.FloatTensor(size)` and the other typed constructors given a size"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)  # torch.export reads the sizes (measured: tests/flow_models/legacy_constructor.py)
    triggers = tuple(DTYPES)
    doc = RuleDoc(
        what="Finds `torch.FloatTensor`, `torch.ByteTensor`, `torch.LongTensor`, ... (and the "
        "`torch.cuda.` ones) called with a size: a `torch.Size` (`t.size()`, `t.shape`, "
        "`torch.Size(shape)`) or several numbers, alone, `.zero_()`-ed or `.fill_(v)`-ed.",
        why="The legacy exporter records the allocation as a constant of the export-time shape: "
        "measured on torch 2.13 (tests/flow_models/legacy_constructor.py, pix2pixHD's one-hot "
        "encoder), the exported model fails in onnxruntime on other sizes (a constant of the wrong "
        "shape can also pass silently). The dynamo exporter takes the sizes from the graph.",
        example="def forward(self, label_map):\n"
        "    return torch.FloatTensor(label_map.size()).zero_().scatter_(1, label_map.long(), 1.0)",
        use_instead="def forward(self, label_map):\n"
        "    one_hot = torch.zeros(label_map.size(), dtype=torch.float32, device=\"cpu\")\n"
        "    return one_hot.scatter_(1, label_map.long(), 1.0)",
        fix_safety="Safe: `torch.zeros` (`.zero_()`), `torch.full` (`.fill_(v)`) or `torch.empty` "
        "(a bare constructor: uninitialised either way) with the size as given, the constructor's "
        "dtype and its device (`cpu`, or `cuda` for `torch.cuda.*`) is the same tensor. A list, "
        "a tuple or a name the size oracle cannot read is data, not a size: left alone.",
        references=("https://pytorch.org/docs/stable/tensors.html#torch.Tensor",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        target = CONSTRUCTORS.get(ctx.qualname(node.func) or "")
        if target is None or node.keywords or not node.args or not _size_arguments(node.args, ctx):
            return
        dtype, device = target
        torch, imports = ctx.torch_name()
        outer, factory, extra = _allocation(node, ctx)
        sizes = [ctx.segment(a) for a in node.args]
        if factory == "full" and (len(sizes) > 1 or ctx.ints.is_int(node.args[0])):
            sizes = [f"({', '.join(sizes)},)" if len(sizes) == 1 else f"({', '.join(sizes)})"]  # full takes one sequence
        arguments = ", ".join(sizes + extra)
        text = f"{torch}.{factory}({arguments}, dtype={torch}.{dtype}, device=\"{device}\")"
        fix = Fix(f"Allocate with `torch.{factory}`", (ctx.replace(outer, text),), safe=True, imports=imports)
        yield ctx.report(self, node, f"`{ctx.segment(node.func)}` of a size: the legacy exporter records a constant of "
                         f"the export-time shape; `torch.{factory}` with the size takes it from the graph", fix=fix)


def _size_arguments(args: list[ast.expr], ctx: FunctionContext) -> bool:
    """A torch.Size (`t.size()`, `t.shape`, `torch.Size(...)`), or numbers: sizes, never data."""
    if any(isinstance(a, ast.Starred) for a in args):
        return False
    if len(args) == 1:  # a torch.Size (all of one, a slice of one, a name bound to one) or one int
        return _torch_size(args[0], ctx) or ctx.ints.is_int(args[0])
    # Two or more arguments are the size form whatever they are (the data form takes one
    # sequence): one proven size or int is enough to report it, and the factory takes the same
    # arguments (an argument that is no int raises in both).
    return any(ctx.ints.is_int(a) or ctx.sizes.is_size(a) for a in args) and not any(
        isinstance(a, (ast.List, ast.Tuple, ast.Dict, ast.Set)) or (isinstance(a, ast.Constant) and type(a.value) is not int)
        for a in args)


def _torch_size(node: ast.expr, ctx: FunctionContext) -> bool:
    """`t.shape`, `t.size()` (t not known to be NumPy's), `torch.Size(...)`, a slice of one,
    or a name bound once to one: a torch.Size, never data."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        return _torch_size(node.value, ctx)
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        return len(values) == 1 and isinstance(values[0], ast.expr) and _torch_size(values[0], ctx)
    if isinstance(node, ast.Call) and ctx.qualname(node.func) == "torch.Size":
        return True
    shape = isinstance(node, ast.Attribute) and node.attr == "shape"
    size = (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
            and not node.args and not node.keywords)
    receiver = node.value if shape else node.func.value if size else None
    return receiver is not None and ctx.tensors.is_tensor(receiver) is not False


def _allocation(node: ast.Call, ctx: FunctionContext) -> tuple[ast.expr, str, list[str]]:
    """(the expression replaced, the factory, its extra arguments): `.zero_()` -> zeros,
    `.fill_(v)` -> full with v, else empty."""
    parent = ctx.parent(node)
    call = ctx.parent(parent) if isinstance(parent, ast.Attribute) and parent.value is node else None
    if isinstance(call, ast.Call) and call.func is parent and not call.keywords:
        if parent.attr == "zero_" and not call.args:
            return call, "zeros", []
        if parent.attr == "fill_" and len(call.args) == 1 and is_number(call.args[0]):
            return call, "full", [ctx.segment(call.args[0])]
    return node, "empty", []

