"""ONX608: padding a tensor to a multiple of a window or patch size, and cropping it back, under
`if` statements on the size (Swin, FocalNet and most windowed vision models)::

    if width % self.patch_size != 0:
        pad_values = (0, self.patch_size - width % self.patch_size)
        pixel_values = nn.functional.pad(pixel_values, pad_values)
    ...
    if pad_right > 0 or pad_bottom > 0:
        windows = windows[:, :height, :width, :].contiguous()

With the size dynamic, torch.export guards on the branch (ONX915, "works only for sizes in 32, 36,
...") and the exported model pads or crops only as the export-time size needed. Both branches are
one computation: the pad `B - A % B` taken modulo B is 0 where B divides A, and F.pad by 0 and
a crop to the size the tensor already has leave the values as they are.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.cat_pad import amount_concatenation, concatenated_pad
from onnxfix.patterns.control_flow.resize_multiple import UNSAFE, resized_to_multiple
from onnxfix.patterns.control_flow.size_parity import escapes_after, unconditional_body
from onnxfix.patterns.control_flow.size_remainder import remainder_test
from onnxfix.patterns.control_flow.vanishing import (
    int_value, structure, vanishing_body, without_empty_blocks, zero_amounts,
)
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.statements import enclosing_statement, read_after_if, single_name_assignment
from onnxfix.rewriter.tensors import RANDOM_CALLS
from onnxfix.rewriter.tree_walk import walk

_PAD = ("torch.nn.functional.pad",)


def _pad_amounts(body: list[ast.stmt], a: ast.expr, b: ast.expr) -> list[ast.BinOp] | None:
    """The `B - A % B` expressions of the body, if every `A % B` in it is one."""
    remainder = structure(ast.BinOp(a, ast.Mod(), b))
    amounts, remainders = [], 0
    for statement in body:
        for sub in walk(statement):
            if isinstance(sub, ast.BinOp) and structure(sub) == remainder:
                remainders += 1
            if (isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Sub) and structure(sub.left) == structure(b)
                    and structure(sub.right) == remainder):
                amounts.append(sub)
    return amounts if amounts and len(amounts) == remainders else None


def _is_padding_body(body: list[ast.stmt], ctx: FunctionContext) -> str | None:
    """The tensor name the body pads (`x = F.pad(x, ...)` last, local assignments before), or
    that every branch of its one `if` / `elif` chain on the configuration pads."""
    branches = _padding_branches(body, ctx)
    names = {_pads_name(branch, ctx) for branch in branches} if branches else {None}
    return names.pop() if len(names) == 1 else None


def _padding_branches(body: list[ast.stmt], ctx: FunctionContext) -> list[list[ast.stmt]] | None:
    """The body, or each branch of a body that is one `if` / `elif` chain whose tests read no size
    and no tensor (mmcv's AdaptivePadding: `if self.padding == 'corner': x = F.pad(x, [0, pad_w, 0,
    pad_h])`, `elif self.padding == 'same': ...`, in mmdetection's and mmsegmentation's Swin and
    PVT): a chain without `else` leaves the tensor as it is in the other configurations."""
    if len(body) != 1 or not isinstance(body[0], ast.If):
        return [body]
    branches, node = [], body[0]
    while True:
        if any(ctx.sizes.is_size(n) or ctx.tensors.is_tensor(n) for n in walk(node.test)):
            return None
        branches.append(node.body)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            continue
        if node.orelse:
            branches.append(node.orelse)
        return branches


def _pads_name(body: list[ast.stmt], ctx: FunctionContext) -> str | None:
    if not body or not all(single_name_assignment(s) for s in body):
        return None
    last = body[-1].value
    name = single_name_assignment(body[-1])
    if not (isinstance(last, ast.Call) and ctx.qualname(last.func) in _PAD and last.args
            and isinstance(last.args[0], ast.Name) and last.args[0].id == name):
        return None
    return name


def _crop_body(node: ast.If, ctx: FunctionContext) -> bool:
    """`x = x[:, :h, :w, :]` (optionally `.contiguous()`): slices with upper bounds only."""
    if len(node.body) != 1 or node.orelse:
        return False
    name = single_name_assignment(node.body[0])
    value = node.body[0].value if name else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "contiguous" and not value.args:
        value = value.func.value
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == name):
        return False
    items = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    slices = [i for i in items if isinstance(i, ast.Slice)]
    if not (len(slices) == len(items) and all(s.lower is None and s.step is None for s in slices) and any(s.upper for s in slices)):
        return False
    # the crop is to other sizes than the amounts tested (`if a > 0: x = x[:a]` crops by the amount)
    tested = {n.id for n in walk(node.test) if isinstance(n, ast.Name)}
    bounds = {n.id for s in slices if s.upper for n in walk(s.upper) if isinstance(n, ast.Name)}
    return not tested & bounds


def _negative_crop_ends(node: ast.If) -> list[tuple[int, ast.UnaryOp]]:
    """fairseq's `if pad_length > 0: x = x[:, :-pad_length]`: (dim, `-amount`) of each slice
    ending at minus a tested amount, in a subscript of plain slices (no `...`, `None` or index)."""
    if len(node.body) != 1 or node.orelse:
        return []
    name = single_name_assignment(node.body[0])
    value = node.body[0].value if name else None
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == name):
        return []
    items = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    if not all(isinstance(i, ast.Slice) and i.lower is None and i.step is None for i in items):
        return []
    tested = {n.id for n in walk(node.test) if isinstance(n, ast.Name)}
    ends = [(dim, i.upper) for dim, i in enumerate(items) if i.upper is not None]
    negative = all(
        isinstance(end, ast.UnaryOp) and isinstance(end.op, ast.USub) and isinstance(end.operand, ast.Name)
        and end.operand.id in tested
        for _, end in ends
    )
    return ends if ends and negative else []


def _positive_pad_test(test: ast.expr, ctx: FunctionContext) -> bool:
    """`p > 0`, `p[3] > 0 or p[5] > 0`: some pad amount (a number, not tensor data) is positive."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    return all(
        isinstance(p, ast.Compare) and len(p.ops) == 1 and isinstance(p.ops[0], (ast.Gt, ast.NotEq))
        and isinstance(p.comparators[0], ast.Constant) and p.comparators[0].value == 0
        and _is_amount(p.left, ctx)
        for p in parts
    )


def _is_amount(node: ast.expr, ctx: FunctionContext) -> bool:
    """A size, or an item of a name that is neither a tensor nor an input of the exported forward."""
    if ctx.sizes.is_size(node):
        return True
    base = node.value if isinstance(node, ast.Subscript) else node
    if not isinstance(base, ast.Name) or ctx.tensors.is_tensor(base) is True:
        return False
    return not (ctx.is_parameter(base.id) and ctx.fn.is_entry)


def _zero_pads_untested(node: ast.If, ctx: FunctionContext) -> bool:
    """Where the test `a > 0 or b != 0 ...` fails, the amounts tested are 0 (`!= 0`; `> 0` of an
    amount the ints oracle proves non-negative), and every pad of the body's closing `F.pad(x, (...))` (of each
    configuration's branch) evaluates to 0 from them through the body's assignments (`top = pad_h //
    2`, `bottom = pad_h - top`)."""
    parts = node.test.values if isinstance(node.test, ast.BoolOp) else [node.test]
    if not all(isinstance(part.left, ast.Name) for part in parts):
        return False
    if any(isinstance(part.ops[0], ast.Gt) and not ctx.ints.at_least_zero(part.left) for part in parts):
        return False  # a negative amount fails the test too, and F.pad by it crops
    zero: dict[str, int | None] = {part.left.id: 0 for part in parts}
    return all(_zero_pad(branch, dict(zero)) for branch in _padding_branches(node.body, ctx) or [])


def _zero_pad(body: list[ast.stmt], zero: dict[str, int | None]) -> bool:
    for statement in body[:-1]:
        zero[single_name_assignment(statement)] = int_value(statement.value, zero)
    pad = body[-1].value
    amounts = pad.args[1] if len(pad.args) > 1 else next((k.value for k in pad.keywords if k.arg == "pad"), None)
    if isinstance(amounts, ast.Name) and amounts.id in zero:
        amounts = next((s.value for s in body if single_name_assignment(s) == amounts.id), None)
    return isinstance(amounts, (ast.Tuple, ast.List)) and bool(amounts.elts) and all(
        int_value(e, zero) == 0 for e in amounts.elts)


def _pads_several(node: ast.If, ctx: FunctionContext) -> bool:
    """Longformer's `if padding_len > 0:` pads the mask and the tokens: the empty-blocks check
    follows every target (the amount-pad one, only the last)."""
    found = vanishing_body(node, ctx)
    return found is not None and len(found[0]) > 1


def _an_elif(node: ast.If, ctx: FunctionContext) -> bool:
    parent = ctx.parent(node)
    return isinstance(parent, ast.If) and node in parent.orelse


def _amounts(names: set[str]) -> str:
    return " or ".join(f"`{n}`" for n in sorted(names))


def _unsafe(why: list[str]) -> str:
    return f" (unsafe: {'; '.join(why)})" if why else ""


def _aliased(node: ast.IfExp, other: ast.expr, ctx: FunctionContext) -> list[str]:
    """Why the copy the taken side makes could be seen where the original gave `other` itself:
    the result or `other` written in place or handed on after the statement."""
    if not isinstance(other, ast.Name):
        return []  # a new tensor either way
    statement = enclosing_statement(node, ctx)
    result = single_name_assignment(statement) if statement is not None and statement.value is node else None
    if result is None:
        return [f"the result is `{other.id}` itself where the amount is 0, and it is handed on"]
    for name in (result, other.id):
        if escapes := escapes_after(name, statement, ctx):
            return [f"`{name}` is {escapes} afterwards, and the taken side returns a copy of `{other.id}`"]
    return []


def _hoisting_hazard(body: list[ast.stmt], ctx: FunctionContext) -> bool:
    """A call in the body whose effect is more than its value: random draws, printing or logging,
    an in-place method (`x.add_()`), or a function of the user's (unknown effects)."""
    for call in (n for statement in body for n in walk(statement) if isinstance(n, ast.Call)):
        qualname = ctx.qualname(call.func) or ""
        name = qualname.rsplit(".", 1)[-1] if qualname else getattr(call.func, "attr", getattr(call.func, "id", ""))
        if name in RANDOM_CALLS or name == "print" or qualname.startswith(("logging.", "numpy.random", "random.")):
            return True
        if name.endswith("_") and not name.endswith("__"):
            return True
        if not qualname and (isinstance(call.func, ast.Name) or (
                isinstance(call.func, ast.Attribute) and ctx.is_self_attr(call.func))):
            return True  # `helper(...)`, `self.method(...)`: the user's own code
    return False


class PadToMultipleBranch(Rule):
    code = "ONX608"
    name = "pad-to-multiple-branch"
    summary = "Padding to a multiple of a size (and cropping back) under an `if` on the size: pad and crop always"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    triggers = ("pad", "cat", "concat", "interpolate", "upsample")
    doc = RuleDoc(
        what="Finds, in export-time code: `if A % B != 0:` whose body computes a pad of `B - A % B` into "
        "names and applies it with `F.pad` to a tensor (a body of the pad call alone is ONX601's), where `A` is a size (Swin's and FocalNet's `maybe_pad`, "
        "window attention in detectors and restoration models); `if pad_h > 0 or pad_w > 0:` (`!= 0`) whose "
        "body splits those amounts (`top = pad_h // 2`, `bottom = pad_h - top`) and pads with them, "
        "where every pad evaluates to 0 when the test fails (torch#136216's pad to a multiple of 32; `> 0` "
        "needs the amount proven non-negative, as `(32 - h % 32) % 32` is); and `if <pad> > 0 [or ...]:` "
        "whose body crops a tensor back with slices (`x = x[:, :height, :width, :]`), or by minus the amount "
        "tested (fairseq's `if pad_length > 0: x = x[:, :-pad_length]`); and `if A != B:` (A a size) around a pad "
        "by `torch.cat((x, block), dim)` whose block (`t.expand(...)`, `torch.zeros(...)`) has, along `dim`, an "
        "amount that is 0 where A == B (icefall's Zipformer: `pad = d_seq_len * ds - seq_len`, checked as "
        "polynomials of the names with A replaced by B); and, in general, `if amount > 0:` (`!= 0`, `amount`, "
        "`or` of such) whose body reassigns tensors (`x`, `x[k]`) to themselves concatenated with blocks, or "
        "padded by amounts, that are empty where the amount is 0 (TabPFN's feature groups, Longformer's "
        "window pad), and the conditional expression `torch.cat([x, x[-1:].repeat(n, 1)]) if n > 0 else x` "
        "(or `x if n == 0 else ...`) whose other side is what remains (Z-Image's patch sequence); and "
        "`if h % p != 0 or w % p != 0:` around `x = F.interpolate(x, size=(new_h, new_w))` with each new size "
        "its size rounded up to the multiple (`int(math.ceil(h / p) * p)`, `(h + p - 1) // p * p`) "
        "(MobileViT's `resize_input_if_needed`): a resize to the size it has where every size is a multiple.",
        why="With the size dynamic, torch.export guards on the branch (onnxfix reports ONX915: \"works "
        "only for sizes in 32, 36, 40, ...\") and the exported model pads or crops only as the export-time "
        "size needed: other sizes fail in onnxruntime (a Reshape of the unpadded windows) or come out the "
        "wrong shape (transformers' Swin and FocalNet with a dynamic image size, measured on torch 2.13). "
        "The legacy exporter records the branch taken.",
        example="def forward(self, x):\n    w = x.shape[-1]\n    if w % 4 != 0:\n"
        "        pad = (0, 4 - w % 4)\n        x = F.pad(x, pad)\n    return x",
        use_instead="def forward(self, x):\n    w = x.shape[-1]\n    pad = (0, (4 - w % 4) % 4)\n    x = F.pad(x, pad)\n    return x",
        fix_safety="The pad: safe, unless the unpadded tensor itself is seen after the `if` (written in "
        "place, returned or stored as itself: a zero pad returns a copy; ONX601's check). Where B divides A the pad becomes 0 and F.pad by 0 returns the same "
        "values; elsewhere `(B - A % B) % B` is `B - A % B` (0 < B - A % B < B for B > 0): the same op on "
        "the same amounts. Under a test of the amounts (`if pad_h > 0 or pad_w > 0:`), where the test "
        "fails every pad evaluates to 0 (checked on the body's own arithmetic), so the pad is the "
        "values as they are. Offered only when every name the body assigns, but the padded tensor, is read "
        "nowhere else. The crop: unsafe. Slicing a tensor to the sizes it has is a no-op, but that the "
        "tensor has those sizes whenever no pad was applied is not in the source. The crop by `-amount`: "
        "unsafe, as `x[:, :x.shape[1] - amount]`, always: for an amount of 0 it keeps everything (where a "
        "slice to `-0` is empty), for 0 < amount <= the size it is the same slice; an amount larger than the "
        "size would wrap around instead of giving an empty tensor. The pad by concatenation: safe, unless the "
        "unpadded tensor is seen after the `if` as itself: where the sizes are equal the block is empty and "
        "`torch.cat` gives the tensor's values (a copy); the body's asserts are kept as they are. The empty "
        "blocks: safe where the amount is shown to be 0 when the test fails (`!= 0`, or `> 0` of an amount "
        "proven non-negative, as `(-n) % 32` is), each dropped block has the kept tensor's dtype, and the kept "
        "tensor is not seen as itself afterwards (the concatenation returns a copy); an amount `... % d` with "
        "`d` from the configuration is non-negative only for a positive `d` (unsafe), and a dict or list item "
        "replaced by its copy is not followed (unsafe); an amount that may be negative gets no fix (F.pad "
        "would crop by it).",
        references=("https://github.com/huggingface/transformers/blob/main/src/transformers/models/swin/modeling_swin.py",),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        if node.orelse:
            return
        parts = remainder_test(node.test)
        if (resized := resized_to_multiple(node, ctx)) is not None:
            yield self._resize(node, resized, ctx)
        elif parts is not None and not parts[2] and ctx.sizes.is_size(parts[0]):
            yield from self._pad(node, parts[0], parts[1], ctx)
        elif (_positive_pad_test(node.test, ctx) and _is_padding_body(node.body, ctx) and _zero_pads_untested(node, ctx)
              and not _pads_several(node, ctx)):
            yield from self._amount_pad(node, ctx)
        elif found := concatenated_pad(node, ctx):
            padded, why = found
            assigned = {single_name_assignment(s) for s in node.body if not isinstance(s, ast.Assert)} - {padded}
            escapes = escapes_after(padded, node, ctx)
            if escapes:
                why = "; ".join(filter(None, (why, f"`{padded}` is {escapes} after the `if`, and the concatenation "
                                                   "returns a copy")))
            fix = None if read_after_if(assigned, node, ctx) else self._unconditional(
                node, ctx, [], safe=not why, title="Pad always: by an empty block where the sizes are equal")
            yield ctx.report(self, node, f"`{padded}` is padded by concatenation only when the sizes differ: with the "
                             "size dynamic, torch.export keeps the export-time branch and the legacy exporter records it; "
                             "where they are equal the block concatenated is empty" + (f" (unsafe: {why})" if why else ""),
                             fix=fix)
        elif _positive_pad_test(node.test, ctx) and (ends := _negative_crop_ends(node)):
            name = single_name_assignment(node.body[0])
            rewrites = [(end, f"{name}.shape[{dim}] - {ctx.segment(end.operand)}") for dim, end in ends]
            fix = self._unconditional(node, ctx, [], safe=False, title="Crop always, to the size minus the amount",
                                      rewrites=rewrites)
            yield ctx.report(self, node, f"`{name}` is cropped by `-amount` only when the amount is positive: with the "
                             "size dynamic, torch.export keeps the export-time branch and the legacy exporter records it, "
                             "and a slice to `-0` is empty; cropping to the size minus the amount is a no-op for 0 "
                             "(unsafe: the same slice only while the amount is at most the size)", fix=fix)
        elif _positive_pad_test(node.test, ctx) and _crop_body(node, ctx):
            fix = self._unconditional(node, ctx, [], safe=False)
            name = single_name_assignment(node.body[0])
            yield ctx.report(self, node, f"`{name}` is cropped only when a pad was applied: with the size dynamic, "
                             "torch.export keeps the export-time branch and the legacy exporter records it; "
                             "cropping to the unpadded size always leaves an unpadded tensor as it is", fix=fix)

        elif not _an_elif(node, ctx) and (found := vanishing_body(node, ctx)):
            yield from self._empty_blocks(node, *found, ctx)

    def visit_IfExp(self, node: ast.IfExp, ctx: FunctionContext):
        """`cat([x, block]) if amount > 0 else x` (or `x if amount == 0 else ...`): the side with
        the blocks, where the amount is 0, is the other side."""
        for taken, other, negated in ((node.body, node.orelse, False), (node.orelse, node.body, True)):
            zero = zero_amounts(node.test, ctx, negated)
            reduced = without_empty_blocks(taken, dict.fromkeys(zero[0], 0), ctx) if zero else None
            if reduced is None or structure(reduced[0]) != structure(other):
                continue
            why = [*zero[1], *reduced[1], *_aliased(node, other, ctx)]
            fix = Fix("Take the side with the blocks always: they are empty where the test fails",
                      (ctx.replace(node, ctx.segment(taken)),), safe=not why)
            yield ctx.report(self, node, f"`{ctx.segment(other)}` gets blocks only when {_amounts(zero[0])} is not 0: "
                             "with the size dynamic, torch.export keeps the export-time side and the legacy exporter "
                             "records it; where it is 0 the blocks are empty" + _unsafe(why), fix=fix)
            return

    def _resize(self, node: ast.If, resized: str, ctx: FunctionContext):
        assigned = {single_name_assignment(s) for s in node.body} - {resized}
        fix = None if read_after_if(assigned, node, ctx) else self._unconditional(
            node, ctx, [], safe=False, title="Resize always: to the size the tensor has where it divides evenly")
        escapes = escapes_after(resized, node, ctx)
        why = UNSAFE + (f"; `{resized}` is {escapes} after the `if`, and the resize returns a copy" if escapes else "")
        return ctx.report(self, node, f"`{resized}` is resized to a multiple only when a size is not one: with the size "
                          "dynamic, torch.export keeps the export-time branch and the legacy exporter records it; "
                          f"where every size is a multiple the resize is to the size it has (unsafe: {why})", fix=fix)

    def _empty_blocks(self, node: ast.If, targets: list[ast.expr], local: dict[str, ast.expr], why: list[str],
                      ctx: FunctionContext):
        why = list(why)
        for target in targets:
            if not isinstance(target, ast.Name):
                why.append(f"`{ctx.segment(target)}` becomes a copy where it stayed itself (its container is not followed)")
            elif escapes := escapes_after(target.id, node, ctx):
                why.append(f"`{target.id}` is {escapes} after the `if`, and the concatenation or pad returns a copy")
        fix = None if read_after_if(set(local), node, ctx) else self._unconditional(
            node, ctx, [], safe=not why, title="Pad always: the blocks are empty where the test fails")
        names = ", ".join(f"`{ctx.segment(t)}`" for t in targets)
        zero = zero_amounts(node.test, ctx)[0]
        verb = "get" if len(targets) > 1 else "gets"
        yield ctx.report(self, node, f"{names} {verb} blocks only when {_amounts(zero)} is not 0: with the size dynamic, "
                         "torch.export keeps the export-time branch and the legacy exporter records it; where it is 0 "
                         "the blocks are empty" + _unsafe(why), fix=fix)

    def _pad(self, node: ast.If, a: ast.expr, b: ast.expr, ctx: FunctionContext):
        if len(node.body) == 1:
            return  # the pad alone: ONX601's (control_flow/size_parity.py)
        amounts = _pad_amounts(node.body, a, b)
        name, why = _is_padding_body(node.body, ctx), []
        if amounts is not None and name is None and (found := amount_concatenation(node.body, amounts, ctx)):
            name, why = found[0], [found[1]] if found[1] else []  # a block of that many concatenated (Chronos-2)
        if amounts is None or name is None:
            return
        assigned = {single_name_assignment(s) for s in node.body} - {name}
        # a zero pad returns a copy: unsafe where the unpadded tensor itself is seen afterwards (ONX601's check)
        if escapes := escapes_after(name, node, ctx):
            why.append(f"`{name}` is {escapes} after the `if`, and a zero pad returns a copy")
        if _hoisting_hazard(node.body, ctx):
            why.append("the body does more than compute values (random draws, printing, in-place writes or the "
                       "model's own functions), which now happens where the size divides too")
        fix = None if read_after_if(assigned, node, ctx) else self._unconditional(node, ctx, amounts, safe=not why)
        yield ctx.report(self, node, f"`{name}` is padded to a multiple of `{ctx.segment(b)}` only when "
                         f"`{ctx.segment(a)}`, a size, does not divide: with the size dynamic, torch.export keeps the "
                         "export-time branch and the legacy exporter records it; the pad taken modulo "
                         f"`{ctx.segment(b)}` is 0 where it divides" + _unsafe(why), fix=fix)

    def _amount_pad(self, node: ast.If, ctx: FunctionContext):
        """`if pad_h > 0 or pad_w > 0:` around pads derived from those amounts (halves, the
        rest): where the test fails, every pad the body computes is 0."""
        name = _is_padding_body(node.body, ctx)
        assigned = {single_name_assignment(s) for branch in _padding_branches(node.body, ctx) for s in branch} - {name}
        escapes = escapes_after(name, node, ctx)
        why = [f"`{name}` is {escapes} after the `if`, and a zero pad returns a copy"] if escapes else []
        fix = None if read_after_if(assigned, node, ctx) else self._unconditional(node, ctx, [], safe=not why,
                                                                                  title="Pad always")
        yield ctx.report(self, node, f"`{name}` is padded only when a pad amount, a size, is positive: with the size "
                         "dynamic, torch.export keeps the export-time branch and the legacy exporter records it; "
                         "where the test fails every pad the body computes is 0" + _unsafe(why), fix=fix)

    def _unconditional(self, node: ast.If, ctx: FunctionContext, amounts: list[ast.BinOp], safe: bool,
                       title: str = "", rewrites: list | None = None) -> Fix | None:
        """The body at the `if`'s place and indentation, each pad amount taken modulo its divisor.
        None for an `elif` (its body at the outer level would run after the taken branch too);
        unsafe when the body does more than compute values (draws random numbers, prints, writes
        in place, calls the model's own functions): it then happens where the test was false too."""
        if _an_elif(node, ctx):
            return None
        safe = safe and not _hoisting_hazard(node.body, ctx)
        rewrites = [*(rewrites or []), *((a, f"({ctx.segment(a)}) % {ctx.segment(a.left)}") for a in amounts)]
        edit = unconditional_body(ctx, node, rewrites)
        title = title or ("Pad always, by the amount modulo the divisor" if amounts else "Crop always")
        return None if edit is None else Fix(title, (edit,), safe=safe)


RULES = [PadToMultipleBranch]
