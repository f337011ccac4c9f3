"""ONX3xx: aliasing and mutation that the exporters cannot follow (``Tensor.data``)."""

from __future__ import annotations

import ast
import functools

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk

REFERENCES = (
    "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-tensor-data",
    "https://github.com/pytorch/pytorch/issues/170673",
)


def data_role(node: ast.Attribute, ctx: FunctionContext) -> str:
    """'read', or 'write' for `t.data[...] = v`, `t.data.add_(...)`, `t.data = v`."""
    if isinstance(node.ctx, ast.Store):
        return "write"
    parent = ctx.parent(node)
    if isinstance(parent, ast.Subscript) and parent.value is node:
        if isinstance(parent.ctx, ast.Store) or _is_augassign_target(parent, ctx):
            return "write"
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = ctx.parent(parent)
        if isinstance(call, ast.Call) and call.func is parent and in_place_method(parent.attr):
            return "write"
    return "read"


PACKED_FIELDS = frozenset({"batch_sizes", "sorted_indices", "unsorted_indices"})
PACKERS = ("pack_padded_sequence", "pack_sequence", "PackedSequence")


def packed_sequence(node: ast.expr, ctx: FunctionContext) -> bool:
    """A name the function reads a PackedSequence's own fields of (`seq.batch_sizes`), or binds
    from `pack_padded_sequence(...)` / `pack_sequence(...)` / `PackedSequence(...)`."""
    return isinstance(node, ast.Name) and node.id in _packed_names(ctx.fn.node)


@functools.lru_cache(maxsize=64)
def _packed_names(function: ast.AST) -> frozenset[str]:
    """The names ``function`` uses as PackedSequences (once per function: a `.data` on every line
    must not walk it again)."""
    names: set[str] = set()
    for sub in walk(function):
        if isinstance(sub, ast.Attribute) and sub.attr in PACKED_FIELDS and isinstance(sub.value, ast.Name):
            names.add(sub.value.id)
        elif (isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call)
              and ast.unparse(sub.value.func).endswith(PACKERS)):
            names.update(t.id for t in sub.targets if isinstance(t, ast.Name))
    return frozenset(names)


def _file_class_with_data(ctx: FunctionContext) -> bool:
    """A class of the file has its own `data`: a field (`data: dict` of a NamedTuple or dataclass),
    a `self.data = ...` of a method, or a method or property `data`."""
    return any(_declares_data(info) for info in ctx.file.module.classes.values())


def _read_as_mapping(node: ast.Attribute, ctx: FunctionContext) -> bool:
    """`p.data["scale"]`, `p.data.get(...)`, `.items()`, `.keys()`, `.values()`: a dict's reads, no
    tensor's (the class holding it may be imported from elsewhere)."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return isinstance(parent.slice, ast.Constant) and isinstance(parent.slice.value, str)
    return isinstance(parent, ast.Attribute) and parent.attr in ("get", "items", "keys", "values")


def _declares_data(info) -> bool:
    body_fields = any(isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == "data"
                      for s in info.node.body)
    return body_fields or "data" in info.methods or "data" in info.self_attrs


def _is_augassign_target(node: ast.AST, ctx: FunctionContext) -> bool:
    parent = ctx.parent(node)
    return isinstance(parent, ast.AugAssign) and parent.target is node


class DataRead(Rule):
    code = "ONX301"
    triggers = ("data",)
    name = "tensor-data-read"
    summary = "`Tensor.data` read in export-time code"
    fix_availability = "always"
    default_safety = "per-finding"
    doc = RuleDoc(
        what="Finds reads of `tensor.data` in code that runs under export.",
        why="""
            `.data` is an untracked alias of the tensor. The legacy exporter records `x.data` of
            an input as a constant, with no warning, so the exported model ignores its input.
            The dynamo exporter crashes the whole process with a segfault on `x.data * 2 + x`
            (torch 2.13), and fails on `self.lin.weight.data` with "Expected a real tensor, not
            a FakeTensor".
        """,
        example="""
            def forward(self, x):
                return F.linear(x, self.lin.weight.data) + x.data * 2
        """,
        use_instead="""
            def forward(self, x):
                return F.linear(x, self.lin.weight.detach()) + x.detach() * 2
        """,
        fix_safety="""
            `.detach()` returns the same values, sharing storage, without autograd history,
            exactly like `.data` for reading. The fix is safe when the receiver is known to be a
            tensor (a torch call, a module's weight, a parameter annotated `Tensor`, ...) and
            unsafe otherwise: other objects have a `.data` too (a PackedSequence does) and no
            `.detach()`. Under `onnxfix export --fix`, run-time evidence that the receiver was
            always a tensor makes it safe. A name the function reads as a PackedSequence (its
            `batch_sizes` read, or bound from `pack_padded_sequence(...)`) is not reported: its
            `.data` is the packed tensor, a plain field; nor is `.data` of a value not known to be
            a tensor in a file whose own classes have a `data` (a NamedTuple's or dataclass's
            field, `self.data = ...`, a property), or read as a dict (`p.data["scale"]`, `.get`).
        """,
        references=REFERENCES,
    )

    def visit_Attribute(self, node: ast.Attribute, ctx: FunctionContext):
        if node.attr != "data" or data_role(node, ctx) != "read":
            return
        is_tensor = ctx.tensors.is_tensor(node.value)
        if is_tensor is False or not is_tensor and packed_sequence(node.value, ctx):
            return  # a PackedSequence's `.data` is its packed tensor, a plain field
        if not is_tensor and (_file_class_with_data(ctx) or _read_as_mapping(node, ctx)):
            return  # kornia's `ParamItem(name, data)`: most likely that field, and it has no `.detach()`
        parent = ctx.parent(node)
        if isinstance(parent, ast.Attribute) and parent.attr == "detach":  # x.data.detach()
            edit = ctx.delete_suffix(node)
        else:
            end = ctx.file.source.span(node)[1]
            edit = Edit(end - len("data"), end, "detach()")
        fix = Fix(title="Replace `.data` with `.detach()`", edits=(edit,), safe=bool(is_tensor))
        yield ctx.report(
            self,
            node,
            "`.data` in export-time code: the legacy exporter bakes it in as a constant and the "
            "dynamo exporter can crash; use `.detach()`",
            fix=fix,
        )


class DataWrite(Rule):
    code = "ONX302"
    triggers = ("data",)
    name = "tensor-data-write"
    summary = "write through `Tensor.data` in export-time code"
    fix_availability = "sometimes"
    default_safety = "unsafe"
    doc = RuleDoc(
        what="""
            Finds writes through `.data` in code that runs under export: `y.data[idx] = v`,
            `y.data.clamp_(...)`, `y.data = v`.
        """,
        why="""
            The legacy exporter drops the write: `y = x * 1; y.data[:, 0] = 0; return y + 1`
            exports a model that is wrong even on the export inputs, with no warning. The dynamo
            exporter fails ("Constant lifted_tensor_1 is mutated in the forward method") or
            crashes with a segfault (`self.w.data.clamp_()`), measured on torch 2.13.
        """,
        example="""
            def forward(self, x):
                y = x * 1
                y.data[:, 0] = 0
                return y + 1
        """,
        use_instead="""
            def forward(self, x):
                y = x * 1
                y[:, 0] = 0
                return y + 1
        """,
        fix_safety="""
            For a tensor computed in the function, the write goes to the tensor itself
            (`y[:, 0] = 0`, `y.clamp_(...)`): the same values and the same aliasing, but now
            tracked by autograd, which can raise in backward where `.data` silently gave wrong
            gradients. So the fix is unsafe. Writes into module state (`self.w.data...`) change
            parameters during forward and get no fix: move them out of `forward`.
        """,
        references=REFERENCES,
    )

    def visit_Attribute(self, node: ast.Attribute, ctx: FunctionContext):
        if node.attr != "data" or data_role(node, ctx) != "write":
            return
        fix = None
        receiver = node.value
        if isinstance(node.ctx, ast.Load) and isinstance(receiver, ast.Name) and not ctx.is_parameter(receiver.id):
            if ctx.assignments(receiver.id):  # a tensor made here, not an input or module state
                fix = Fix(title="Write to the tensor instead of `.data`", edits=(ctx.delete_suffix(node),), safe=False)
        message = (
            "write through `.data` in export-time code: the legacy exporter drops it and the "
            "dynamo exporter fails or crashes"
        )
        if fix is None:
            message += (
                "; no automatic fix: the write goes to an input or to module state (a parameter changed "
                "during forward), which no exportable rewrite reproduces: move it out of `forward`"
            )
        yield ctx.report(self, node, message, fix=fix)


RULES = [DataRead, DataWrite]
