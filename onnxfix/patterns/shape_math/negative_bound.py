"""ONX410: a slice bound of minus an amount computed from sizes (`x[:, :-pad]`, `m[:, -pad:] = True`)
under `if pad > 0:`.

fairseq's transformer encoder (wav2vec 2.0, data2vec, HuBERT, SCOREQ) pads the frames to a multiple
and undoes it:

    x, pad_length = pad_to_multiple(x, self.required_seq_len_multiple, dim=-2, value=0)
    if pad_length > 0 and padding_mask is None:
        padding_mask = x.new_zeros((x.size(0), x.size(1)), dtype=torch.bool)
        padding_mask[:, -pad_length:] = True
    ...
    if pad_length > 0:
        x = x[:, :-pad_length]

`-pad_length` counts from the end only while the amount is positive, which the `if` ensures in eager.
The legacy exporter computes the bound in the graph from the traced sizes and keeps the branch the
example took: where another input's amount is 0 the bound is 0, the start of the dimension, so
`[:, -0:]` masks every frame and `[:, :-0]` keeps none. Counted from the start
(`x.shape[1] - pad_length`) the bound is the same for every positive amount up to the size, and for
0 the dim's end (nothing masked, nothing cut). While the TorchScript tracer runs only: torch.export
keeps `-n` correct in some models and fails on the subtraction in others (fairseq's HuBERT
`padding_mask[:, :-extra]` followed by a view: a data-dependent guard), so dynamo keeps the original.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.module_outputs import returns_one_tensor
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk
from onnxfix.rewriter.none_defaults import is_none_literal

POSITIVE = {ast.Gt: 0, ast.GtE: 1}  # `n > 0`, `n >= 1`
POSITIVE_FLIPPED = {ast.Lt: 0, ast.LtE: 1}  # `0 < n`, `1 <= n`


class NegativeAmountBound(Rule):
    code = "ONX410"
    name = "negative-amount-bound"
    summary = "A slice bound of minus an amount from sizes (`x[:, :-pad]`) under `if pad > 0:`: traced, the bound is 0 where the amount is 0"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = ("legacy",)
    triggers = (">", "<")  # the positive test (`n > 0`, `0 < n`, `n >= 1`) is in every file it reports in
    doc = RuleDoc(
        what="Finds, in export-time code, a slice bound written as minus a name (`x[:, :-pad_length]`, "
        "`padding_mask[:, -pad_length:] = True`, `x[..., :-n]`) of a tensor, where the name is bound once in the "
        "function, to an int computed from tensor sizes or unpacked from a call of a function of the same file "
        "whose returns give ints at that position (fairseq's `pad_to_multiple`), inside the body of an `if` that "
        "tests it positive (`if n > 0:`, `if n > 0 and mask is None:`, `n >= 1`, `0 < n`) and binds it nowhere.",
        why="`-n` counts from the end only while n is positive. The legacy exporter computes the bound in the graph "
        "from the traced sizes and keeps the branch the example took: where the amount is 0 for another input "
        "the bound is 0, the start of the dimension, so `m[:, -n:] = True` masks the whole dimension and "
        "`x[:, :-n]` keeps nothing (SCOREQ's wav2vec 2.0 encoder, once its `.is_integer()` is fixed: legacy "
        "SILENTLY-WRONG for lengths that need no padding; measured on torch 2.13). torch.export is not "
        "reported: it keeps `-n` right in some models, and the subtraction makes it fail in others "
        "(fairseq's HuBERT: a view of the slice then needs a data-dependent guard).",
        example="def forward(self, x):\n    pad = (4 - x.shape[1] % 4) % 4\n    x = F.pad(x, (0, 0, 0, pad))\n"
        "    x = x.cumsum(1)\n    if pad > 0:\n        x = x[:, :-pad]\n    return x",
        use_instead="def forward(self, x):\n    pad = (4 - x.shape[1] % 4) % 4\n    x = F.pad(x, (0, 0, 0, pad))\n"
        "    x = x.cumsum(1)\n    if pad > 0:\n"
        "        x = x[:, :(x.shape[1] - pad if torch.jit.is_tracing() else -pad)]\n"
        "    return x",
        fix_safety="Safe: outside the TorchScript tracer (`torch.jit.is_tracing()` is False in eager and under "
        "torch.export) the bound is `-n` as before. While tracing it is `size - n`, the same bound for every "
        "amount from 1 to the size, and for an amount of 0 the dim's end: an empty slice for a start (nothing "
        "masked), the whole dim for an end (nothing cut), which is what a model that pads and crops by the "
        "amount means where it skips the branch; another body, or an amount beyond the size (where `size - n` "
        "wraps and `-n` clamps), is what the export's comparison with eager on other inputs shows. After this "
        "fix, ONX608 no longer sees a crop `if n > 0: x = x[:, :-n]` (its stronger, unsafe fix drops the `if`): "
        "`--write --unsafe-fixes` in one run takes ONX608's.",
        references=("https://github.com/facebookresearch/fairseq/blob/main/fairseq/models/wav2vec/utils.py",
                    "https://github.com/ftian1/scoreq"),
    )

    def visit_Subscript(self, node: ast.Subscript, ctx: FunctionContext):
        if ctx.compiled_by_torchscript or not _plain_value(node.value) or not _maybe_tensor(node.value, ctx):
            return
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for position, item in enumerate(items):
            if not isinstance(item, ast.Slice) or item.step is not None:
                continue
            for bound in (item.lower, item.upper):
                amount = _negated_name(bound)
                if amount is None or not _size_amount(amount.id, ctx) or not _tested_positive(node, amount, ctx):
                    continue
                dim = _source_dim(items, position)
                if dim is None:
                    continue
                yield _report(self, node, bound, amount.id, dim, ctx)


def _report(rule: Rule, node: ast.Subscript, bound: ast.UnaryOp, amount: str, dim: int, ctx: FunctionContext):
    torch_name, imports = ctx.torch_name()
    size = f"{ctx.segment(node.value)}.shape[{dim}]"
    fix = Fix("Count the bound from the start while tracing",
              (ctx.replace(bound, f"({size} - {amount} if {torch_name}.jit.is_tracing() else -{amount})"),),
              safe=True, imports=imports)
    message = (f"`-{amount}` as a slice bound counts from the end only while `{amount}` > 0: the legacy exporter "
               f"computes it from the traced sizes and keeps this branch, so for an input whose `{amount}` is 0 the "
               f"bound is 0, the start of the dimension (all of it, or none); bound it by `{size} - {amount}` "
               "while tracing")
    return ctx.report(rule, bound, message, fix=fix)


def _plain_value(node: ast.expr) -> bool:
    """A value the fix can name twice: `x`, `self.pe`, `x[0]`, no call."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _plain_value(node.value)
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and _plain_value(node.value)
    return False


SEQUENCES = (ast.List, ast.Tuple, ast.ListComp, ast.Dict)
TENSOR_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult)
SEQUENCE_CALLS = frozenset({"list", "tuple", "sorted", "reversed", "range", "zip", "enumerate"})


def _maybe_tensor(value: ast.expr, ctx: FunctionContext) -> bool:
    """A tensor as far as the source shows: known to the type inference, or a local every binding
    of which is a torch call, a tensor method's result or an element unpacked from a call of this
    file's helper or a submodule's output that is one tensor (rewriter/module_outputs.py), none a
    sequence (`feats = [x, y]`, `hs = tuple(x.unbind(0))`, `s = x.shape`); not an attribute
    (`self.blocks`: a ModuleList)."""
    if ctx.tensors.is_tensor(value) is True:
        return True
    if not isinstance(value, ast.Name) or ctx.tensors.is_tensor(value) is False:
        return False
    bindings = [b for b in ctx.assignments(value.id) if not _slice_of(b, value.id)]  # `x = x[:, :-n]` keeps the kind
    return bool(bindings) and all(_tensor_binding(b, ctx) for b in bindings)


def _slice_of(binding: ast.AST, name: str) -> bool:
    return isinstance(binding, ast.Subscript) and isinstance(binding.value, ast.Name) and binding.value.id == name


def _tensor_binding(binding: ast.AST, ctx: FunctionContext) -> bool:
    if isinstance(binding, ast.Assign):  # tuple unpacking: `x, n = pad_to_multiple(x, ...)`
        return isinstance(binding.value, ast.Call) and isinstance(binding.value.func, ast.Name)
    if isinstance(binding, ast.BinOp) and isinstance(binding.op, TENSOR_ARITHMETIC):
        # `x = x + x_conv.transpose(1, 2)`: arithmetic with a tensor-making call is a tensor
        return any(isinstance(side, ast.Call) and _tensor_binding(side, ctx) for side in (binding.left, binding.right))
    if not isinstance(binding, ast.Call) or _sequence(binding):
        return False
    if isinstance(binding.func, ast.Attribute) and ctx.is_self_attr(binding.func):
        return returns_one_tensor(binding, ctx)  # a submodule may return a list
    if isinstance(binding.func, ast.Name):  # a function of this file returning a sequence is not a tensor
        helper = next((s for s in ctx.file.module.tree.body
                       if isinstance(s, ast.FunctionDef) and s.name == binding.func.id), None)
        return helper is None or not any(isinstance(n, ast.Return) and isinstance(n.value, SEQUENCES)
                                         for n in walk(helper))
    return True  # torch's functions, tensor methods


def _sequence(node: ast.expr) -> bool:
    if isinstance(node, (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Set, ast.Dict)):
        return True
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    if isinstance(node, ast.Call):
        called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        return called in SEQUENCE_CALLS or called == "size"
    return False


def _negated_name(bound: ast.expr | None) -> ast.Name | None:
    if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub) and isinstance(bound.operand, ast.Name):
        return bound.operand
    return None


def _size_amount(name: str, ctx: FunctionContext) -> bool:
    """An int computed from sizes, bound once in the function: a size expression, or unpacked from
    a call of a function of this file whose returns give ints at that position
    (`x, pad_length = pad_to_multiple(x, ...)`); not a tensor, not an input of forward."""
    target = ast.Name(id=name, ctx=ast.Load())
    if ctx.tensors.is_tensor(target) is True or ctx.is_parameter(name) or ctx.declared_outer(name):
        return False
    bindings = ctx.assignments(name)
    if len(bindings) != 1:
        return False
    binding = bindings[0]
    if isinstance(binding, ast.Assign):  # a tuple-unpacking target: the whole assignment
        return _helper_int(binding, name, ctx)
    return (isinstance(binding, ast.expr) and ctx.sizes.is_size(binding) and not _mentions(binding, name)
            and not _reads_rank(binding))


def _reads_rank(node: ast.AST) -> bool:
    """`len(x.shape) - 2`, `x.ndim - 2`, `x.dim() - 1`: a rank, a constant to both exporters."""
    for n in walk(node):
        if isinstance(n, ast.Attribute) and n.attr == "ndim":
            return True
        if isinstance(n, ast.Call) and (getattr(n.func, "id", "") == "len" or getattr(n.func, "attr", "") == "dim"):
            return True
    return False


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in walk(node))


def _helper_int(assignment: ast.Assign, name: str, ctx: FunctionContext) -> bool:
    """`a, n = helper(...)` with `helper` a function of this file every `return` of which is a tuple
    of that length whose element at n's position is int arithmetic (numbers, names, sizes)."""
    target, call = assignment.targets[0], assignment.value
    if len(assignment.targets) != 1 or not isinstance(target, ast.Tuple) or not isinstance(call, ast.Call):
        return False
    names = [e.id if isinstance(e, ast.Name) else None for e in target.elts]
    if name not in names or not isinstance(call.func, ast.Name) or ctx.is_builtin(call.func.id):
        return False
    position = names.index(name)
    helper = next((s for s in ctx.file.module.tree.body
                   if isinstance(s, ast.FunctionDef) and s.name == call.func.id), None)
    returns = [n.value for n in walk(helper) if isinstance(n, ast.Return)] if helper else []
    return bool(returns) and all(
        isinstance(r, ast.Tuple) and len(r.elts) == len(names) and _int_arithmetic(r.elts[position]) for r in returns)


INT_CALLS = frozenset({"size", "ceil", "floor", "len", "max", "min", "int"})


def _int_arithmetic(node: ast.expr) -> bool:
    """Numbers, names and sizes combined by arithmetic (no tensor op, no comparison)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.BinOp):
        return _int_arithmetic(node.left) and _int_arithmetic(node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _int_arithmetic(node.operand)
    if isinstance(node, ast.Subscript):  # `x.shape[1]`
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.Call):
        called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        return called in INT_CALLS and all(_int_arithmetic(a) for a in node.args)
    return False


def _tested_positive(node: ast.AST, amount: ast.Name, ctx: FunctionContext) -> bool:
    """Inside the body of an `if` whose test (or one `and` operand of it) says the amount > 0, and
    not in a lambda or comprehension of its own (`[x[:, :-n] for n in ...]` is another `n`)."""
    if ctx.inner_scope(amount) is not None:
        return False
    child = node
    for parent in ctx.enclosing(node):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if isinstance(parent, ast.If) and child in parent.body and not consults_export_guard(parent.test):
            if _says_positive(parent.test, amount.id):
                return True
        child = parent
    return False


def _says_positive(test: ast.expr, amount: str) -> bool:
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return any(_positive_comparison(part, amount) for part in parts)


def _positive_comparison(part: ast.expr, amount: str) -> bool:
    if not (isinstance(part, ast.Compare) and len(part.ops) == 1):
        return False
    left, op, right = part.left, type(part.ops[0]), part.comparators[0]
    if _is_name(left, amount) and op in POSITIVE:
        return _is_int(right, POSITIVE[op])
    if _is_name(right, amount) and op in POSITIVE_FLIPPED:
        return _is_int(left, POSITIVE_FLIPPED[op])
    return False


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_int(node: ast.expr, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _source_dim(items: list[ast.expr], position: int) -> int | None:
    """The dim of the subscripted tensor the slice at ``position`` runs over: counted from the
    start when no `...` comes before it, from the end when one does (`x[..., :-n]` is -1).
    None when an index that may take several dims (a mask, a name) is on the counted side."""
    before, after = items[:position], items[position + 1:]
    if any(_is_ellipsis(i) for i in before):
        if any(_is_ellipsis(i) for i in after) or not all(_one_dim_or_none(i) for i in after):
            return None
        return -(1 + sum(1 for i in after if not is_none_literal(i)))
    if not all(_one_dim_or_none(i) for i in before):
        return None
    return sum(1 for i in before if not is_none_literal(i))


def _one_dim_or_none(item: ast.expr) -> bool:
    return isinstance(item, ast.Slice) or is_none_literal(item) or (
        isinstance(item, ast.Constant) and type(item.value) is int) or (
        isinstance(item, ast.UnaryOp) and isinstance(item.op, ast.USub)
        and isinstance(item.operand, ast.Constant) and type(item.operand.value) is int)


def _is_ellipsis(item: ast.expr) -> bool:
    return isinstance(item, ast.Constant) and item.value is Ellipsis


RULES = [NegativeAmountBound]
