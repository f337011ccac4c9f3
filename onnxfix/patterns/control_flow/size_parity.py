"""ONX601 on sizes: a branch on a size's parity that only decides whether a zero pad runs."""

from __future__ import annotations

import ast

from onnxfix.rewriter.bindings import bound_once
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix, Rule
from onnxfix.rewriter.statements import (
    assigned_just_before,
    comments_outside,
    replace_statements,
    single_name_assignment,
    statement_indent,
    statement_removal,
)
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk


# -- ONX601 on sizes: a branch that only decides whether a zero pad is applied --------------------
PAD_FUNCTIONS = frozenset({"torch.nn.functional.pad"})
SIZE_BRANCH_FAILURE = (
    "the legacy exporter records the branch taken at export time and the dynamo exporter "
    "specializes the size's parity (the exported model fails in onnxruntime for sizes of the "
    "other parity)"
)


def constant_pad(call: ast.Call, ctx: FunctionContext) -> bool:
    """`F.pad(x, amounts[, mode][, value])` in constant mode: a pad by zeros is a copy of `x` (a
    reflect, replicate or circular pad of zero is too, but not measured here)."""
    if ctx.qualname(call.func) not in PAD_FUNCTIONS or not 2 <= len(call.args) <= 4:
        return False
    if any(k.arg not in ("mode", "value") for k in call.keywords):
        return False
    mode = [k.value for k in call.keywords if k.arg == "mode"] + call.args[2:3]
    return not mode or (isinstance(mode[0], ast.Constant) and mode[0].value == "constant")


def size_parity_pad(rule: Rule, node: ast.If, ctx: FunctionContext):
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
    target = single_name_assignment(statement)
    call = statement.value if target else None
    if not (isinstance(call, ast.Call) and constant_pad(call, ctx)
            and isinstance(call.args[0], ast.Name) and call.args[0].id == target):
        return
    flag, test = None, node.test
    if isinstance(test, ast.Name):
        flag = assigned_just_before(test.id, node, ctx)
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
    body_edit = unconditional_body(ctx, node, rewrites)
    if body_edit is None:
        return
    edits = [body_edit]
    if flag is not None:
        removal = statement_removal(flag, ctx)
        if removal is None:
            return
        edits.append(removal)
    escapes = escapes_after(target, node, ctx)
    configured = _configured_divisors(test, ctx)
    fix = Fix(
        "Pad always: the amounts are zero whenever the condition is false",
        tuple(edits), safe=not escapes and not configured,
    )
    message = f"`if` on the parity of a size guarding a pad: {SIZE_BRANCH_FAILURE}; the pad amounts are zero when the condition is false, so the branch can go"
    why = []
    if escapes:
        why.append(f"`{target}` is {escapes} after the `if`; a zero pad returns a copy, so that "
                   "no longer reaches the unpadded tensor")
    if configured:
        why.append(f"`S % k > 0` with `{ctx.segment(configured[0])}`, a configuration number, is never true for "
                   "a negative one, where the rewrite pads by a negative amount")
    if why:
        message += f" (unsafe: {'; '.join(why)})"
    yield ctx.report(rule, node.test, message, fix=fix)


def unconditional_body(ctx: FunctionContext, node: ast.If, rewrites: list[tuple[ast.expr, str]]) -> Edit | None:
    """The `if` replaced by its body, dedented to the `if`'s place, each (expression, text) of
    ``rewrites`` spliced in and the comments outside the body kept above it; None if the source
    cannot be tokenized."""
    if any(isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)) and n.end_lineno != n.lineno
           for statement in node.body for n in walk(statement)):
        return None  # dedenting the body would change a multi-line string's contents
    comments = comments_outside(ctx, node, node.body, kept_block=True)  # those between its statements stay in it
    if comments is None:
        return None
    source = ctx.file.source
    start = source.span(node.body[0])[0]
    body = source.text[start : source.span(node.body[-1])[1]]
    for expression, text in sorted(rewrites, key=lambda r: -source.span(r[0])[0]):
        a, b = source.span(expression)
        body = body[: a - start] + text + body[b - start:]
    shift = len(statement_indent(ctx, node.body[0])) - len(statement_indent(ctx, node))
    body = "\n".join(line[shift:] if line[:shift].isspace() else line for line in body.split("\n"))
    return replace_statements(ctx, node, node, body, comments)


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
            modulo = bound_once(value.left, ctx)  # NeMo's `pad_amt = x.size(-1) % pad_to; if pad_amt != 0:`
            k = _modulus(modulo, ctx)
            if k is None:
                return None
            if not (
                (isinstance(op, (ast.NotEq, ast.Gt)) and right.value == 0)
                or (isinstance(op, ast.Eq) and right.value == 1 and k == "2")
            ):
                return None
        else:
            modulo = bound_once(modulo, ctx)
            if _modulus(modulo, ctx) is None:
                return None
        terms.add((ctx.segment(modulo.left), _modulus(modulo, ctx)))
    return terms


def _modulus(node: ast.expr, ctx: FunctionContext) -> str | None:
    """k's text for `S % k` with S an integer size and k a positive int literal or an int of the
    model's configuration (`self.patch_size[1]`, whose sign the source does not show)."""
    node = bound_once(node, ctx)
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)):
        return None
    k = bound_once(node.right, ctx)  # `pad_to = self.pad_to`: the configured int under a local name
    literal = isinstance(k, ast.Constant) and type(k.value) is int and k.value > 0
    if not (literal or ctx.is_config_int(k)):
        return None
    return ctx.segment(node.right) if ctx.sizes.is_size(node.left) and ctx.ints.is_int(node.left) else None


def _configured_divisors(test: ast.expr, ctx: FunctionContext) -> list[ast.expr]:
    """The divisors, not literals, of the test's `S % k > 0` terms: for a negative k the remainder
    is never positive, so the original never pads where the rewrite pads by a negative amount.
    (`S % k != 0` needs no sign: `(k - S % k) % k` is `k - S % k` for any k whose remainder
    is not 0, and 0 where it is.)"""
    moduli = [(n, bound_once(n.left, ctx)) for n in walk(test) if isinstance(n, ast.Compare) and len(n.ops) == 1
              and isinstance(n.ops[0], ast.Gt)]
    return [modulo.right for _, modulo in moduli if isinstance(modulo, ast.BinOp) and isinstance(modulo.op, ast.Mod)
            and not isinstance(bound_once(modulo.right, ctx), ast.Constant)]


def _zero_when_divisible(amount: ast.expr, terms: set[tuple[str, int]], ctx: FunctionContext) -> str | None:
    """'zero': a literal 0; 'same': `S % k` of a term (0 when the condition is false);
    'complement': `k - S % k` of a term (k then: rewritten `(k - S % k) % k`)."""
    if isinstance(amount, ast.Constant) and type(amount.value) is int and amount.value == 0:
        return "zero"
    k = _modulus(amount, ctx)
    if k is not None:
        amount = bound_once(amount, ctx)
        if (ctx.segment(amount.left), k) in terms:
            return "same"
        inner = amount.left  # (k - S % k) % k and (-S) % k are zero when S % k is
        if isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.USub) and (ctx.segment(inner.operand), k) in terms:
            return "same"
        if (
            isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub) and _modulus(inner.right, ctx) == k
            and (ctx.segment(bound_once(inner.right, ctx).left), k) in terms
        ):
            return "same"
        return None
    if isinstance(amount, ast.BinOp) and isinstance(amount.op, ast.Sub):
        left, right = amount.left, amount.right
        k = _modulus(right, ctx)
        if k is not None and ctx.segment(left) == k and (ctx.segment(bound_once(right, ctx).left), k) in terms:
            return "complement"
    return None


def escapes_after(name: str, node: ast.If, ctx: FunctionContext) -> str | None:
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
        if single_name_assignment(statement) == name:
            rebound = True
            break
    loop = next((a for a in ctx.ancestors(node) if isinstance(a, (ast.For, ast.While, ast.AsyncFor))), None)
    if not rebound or loop is not None:  # in a loop, the statements before the `if` run after it too
        statements = [s for s in walk(ctx.fn.node) if isinstance(s, ast.stmt) and s.lineno > node.end_lineno]
        statements += loop.body if loop is not None else []
    for statement in statements:
        for current in walk(statement):
            reason = _escape(current, name, ctx)
            if reason:
                return reason
    return _aliased_before(name, node, ctx)


def _aliased_before(name: str, node: ast.AST, ctx: FunctionContext) -> str | None:
    """`y = x` (or `x` stored in a container) before the `if`: the unpadded tensor stays
    reachable under another name, which a write after the `if` would show."""
    for statement in walk(ctx.fn.node):
        if isinstance(statement, ast.stmt) and statement.lineno < node.lineno and not isinstance(
                statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.While, ast.If, ast.With)):
            for current in walk(statement):
                if isinstance(current, (ast.Assign, ast.AnnAssign)) and isinstance(current.value, ast.Name) \
                        and current.value.id == name:
                    return "aliased before the `if` and so still reachable"
                if isinstance(current, (ast.List, ast.Tuple, ast.Set)) and not isinstance(getattr(current, "ctx", None), ast.Store) \
                        and any(isinstance(e, ast.Name) and e.id == name for e in current.elts) \
                        and not _concatenated(current, ctx):
                    return "stored before the `if` and so still reachable"
    return None


def _concatenated(sequence: ast.expr, ctx: FunctionContext) -> bool:
    """The tensors of `torch.cat([x, block])` / `torch.stack((a, b))`: read into a new tensor, not stored."""
    call = ctx.parent(sequence)
    return (isinstance(call, ast.Call) and bool(call.args) and call.args[0] is sequence
            and ctx.qualname(call.func) in ("torch.cat", "torch.concat", "torch.concatenate", "torch.stack"))


# torch.nn layers whose output is a new tensor, never their input or a view of it (nn.Identity,
# nn.Dropout in eval, nn.Flatten return the input or a view; an in-place activation writes it)
_FRESH_OUTPUT_LAYERS = frozenset(f"torch.nn.{name}" for name in (
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Linear",
    "LayerNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "ReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "LeakyReLU", "Softmax", "MaxPool1d",
    "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "Sequential",
))


def _torch_layer(func: ast.expr, ctx: FunctionContext) -> bool:
    """`self.conv` built from torch.nn layers that return a new tensor (an `nn.Sequential` of
    them too), none given `inplace` or a positional True (`nn.ReLU(True)` writes its input)."""
    built = ctx.only_self_attr_value(func)
    if not isinstance(built, ast.Call):
        return False
    for call in (n for n in walk(built) if isinstance(n, ast.Call)):
        if ctx.file.module.scope.qualname(call.func) not in _FRESH_OUTPUT_LAYERS:
            return False
        if any(k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
               for k in call.keywords) or any(isinstance(a, ast.Constant) and a.value is True for a in call.args):
            return False
    return True


def _escape(current: ast.AST, name: str, ctx: FunctionContext) -> str | None:
    def bare(value):
        return isinstance(value, ast.Name) and value.id == name

    if isinstance(current, ast.AugAssign) and not ctx.ints.is_int(current.target):
        return "written in place"
    if isinstance(current, ast.Subscript) and isinstance(current.ctx, ast.Store):
        return "written in place"
    if isinstance(current, ast.Call):
        func = current.func
        if isinstance(func, ast.Attribute) and in_place_method(func.attr):
            return "written in place"
        if any(k.arg in ("out", "inplace") for k in current.keywords):
            return "written in place"
        if (ctx.qualname(func) or "").startswith("torch.nn.functional.") and any(
                isinstance(a, ast.Constant) and a.value is True for a in current.args):
            return "written in place"  # `F.relu(x, True)`: inplace given by position
        qualname = ctx.qualname(func) or ""
        if (not qualname.startswith("torch.") and not _torch_layer(func, ctx)
                and any(bare(a) for a in [*current.args, *(k.value for k in current.keywords)])):
            return f"passed to `{ctx.segment(func)}`"
    if isinstance(current, (ast.Return, ast.Assign, ast.AnnAssign, ast.Yield)) and bare(current.value):
        return "handed on as itself"
    if isinstance(current, (ast.List, ast.Tuple, ast.Set)) and not isinstance(current.ctx, ast.Store) if hasattr(current, "ctx") else isinstance(current, ast.Set):
        if any(bare(e) for e in current.elts):
            return "handed on as itself"
    if isinstance(current, ast.Dict) and any(bare(v) for v in current.values):
        return "handed on as itself"
    return None
