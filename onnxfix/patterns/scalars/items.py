"""ONX201 (`.item()`); ONX202 (`.tolist()`) is tolist.py."""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.patterns.export_checks import skip_assert_when_exporting, skipped_by_and, skipped_by_or
from onnxfix.patterns.messages import is_message
from onnxfix.patterns.scalars.integer_items import integer_item_fix
from onnxfix.patterns.scalars.rebuilt import REBUILT_UNSAFE, rebuilt_tensor_fix
from onnxfix.patterns.scalars.clamp_bounds import clamp_bound_fix
from onnxfix.patterns.scalars.uses import item_use
from onnxfix.patterns.scalars.values import (
    EXACT,
    UNSAFE,
    UNSAFE_BECAUSE,
    assigned_name,
    while_tracing,
    is_zero_dim,
    name_as_tensor,
    python_use,
    python_values_tensor,
    shifted_by_int,
    tensor_in_place,
    tensor_operand_is_exact,
)
from onnxfix.rewriter.attr_changes import CHANGED, REBOUND
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.precedence import ATOM, in_place_of, operand, precedence
from onnxfix.rewriter.rule import Edit, Finding, Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk


class ItemCall(Rule):
    code = "ONX201"
    python_hazard = True  # scripted code keeps it dynamic (tests/test_export_guards.py)
    triggers = ("item",)
    name = "tensor-item"
    summary = "`.item()` turns a tensor into a Python number"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    doc = RuleDoc(
        what="""
            Finds `tensor.item()` in code that runs under export and classifies the use: as a
            size (`x.reshape(n.item(), -1)`, `torch.zeros(n.item())`, a slice bound, topk's `k`,
            `F.pad`'s amounts), in tensor arithmetic (`x * s.item()`), in a condition
            (`if t.item() > 0:`), or elsewhere. A number assigned to a name (`k = t.item()`,
            also as a branch of `n = n if n > 0 else t.item()`) is classified at every use of
            the name in the function.
            A tensor built in the same expression from Python values and only put through
            elementwise math (`-torch.log2(torch.tensor(scale)).item()`, torchvision's
            poolers) is not reported: the number taken out was computed from Python values.
            Nor, outside conditions, is `.item()` of a parameter or buffer of the module (or a
            constant-index item of one) that no function of the file but an `__init__` rebinds
            or changes in place (a store, `.data = `, `add_`, `nn.init.*_`, setattr; by the
            attribute's name, so a subclass's forward counts) (onnx2torch's ConstantOfShape
            `fill_value=self.value.item()`): the number the legacy exporter records is the
            model's own, right for every input.
        """,
        why="""
            The legacy exporter records the Python number as a constant (TracerWarning
            "Converting a tensor to a Python number"): `reshape(n.item(), -1)` exported with
            n=2 always reshapes to 2 rows. Measured on torch 2.13 it is silently wrong on every
            other input. The dynamo exporter handles sizes and arithmetic through unbacked
            SymInts but cannot branch on the value: `if x.sum().item() > 0:` fails with
            `GuardOnDataDependentSymNode`.
        """,
        example="""
            def forward(self, x, n, s):
                return x.reshape(n.item(), -1) * s.item()
        """,
        use_instead="""
            def forward(self, x, n, s):
                return x.reshape(n, -1) * s
        """,
        fix_safety="""
            As a size, dropping `.item()` is safe: int size arguments (reshape/view/expand/zeros
            and the like, topk's `k`, `F.pad`'s amounts) and slice bounds accept a 0-d or
            one-element integer tensor and mean the same (a float raises either way; measured
            on torch 2.13; not checked: a bool tensor, whose `.item()` is a valid size and which
            raises as one). `torch.arange` takes Scalars: a 0-d tensor but not a one-element
            tensor of higher rank, so there, for a receiver not 0-d whatever the input (a full
            reduction such as `lengths.max()` is), the tensor is passed only while the legacy
            exporter traces: `torch.arange((n.reshape(()) if torch.jit.is_tracing() else n.item()))`
            (safe: eager and torch.export run `.item()` as written; `.reshape(())` reads the one
            element `.item()` reads, and raises where it raises). In
            arithmetic with a tensor it is unsafe: a 0-d
            tensor takes part in type promotion differently from a Python number (int32 tensor
            times a 0-d float64 tensor is float64, times a Python float is float32), and a
            one-element tensor of higher rank would broadcast. So is a number literal or a
            configured `self.x` added to, subtracted from, multiplied or divided by the value where
            the result is an operand of tensor arithmetic (`x - (x.max().item() - self.floor)`):
            the tensor's dtype computes what Python computed in double. As one bound of a clamp
            beside a number bound (`clamp(x, min=t.item() - top_db, max=np.inf)`, torchlibrosa),
            the tensor alone would not do (eager refuses the mix where the tensor needs grad, both
            exporters while tracing): the clamp goes by one bound at a time,
            `clamp(x, min=t - top_db).clamp(max=np.inf)`, which is clamp's own order (max with the
            lower bound, then min with the upper), unsafe for the same rounding. Where only a number or a 0-d
            tensor is taken (`torch.full`'s fill_value, `masked_fill`'s and `fill_`'s value:
            onnx2torch's one-element `value` buffer), `.item()` becomes `.detach().reshape(())`: the 0-d tensor of the one element
            `.item()` reads (both raise for any other count), without the gradient a number does
            not carry (`torch.full` refuses a tensor that needs one); `.detach()` alone for a
            receiver 0-d whatever the input. In conditions and other Python
            uses there is no fix here (see the control-flow rules), except in an `assert`:
            `assert lengths.max().item() <= slen` becomes `assert torch.onnx.is_in_onnx_export()
            or lengths.max().item() <= slen` (the test parenthesised when it binds looser than
            `or`; the message kept). Safe: in eager `is_in_onnx_export()` is False, so the same
            test runs and fails with the same message; both exporters set it while tracing, so
            the check is skipped there (the legacy trace never recorded an assert; measured on
            torch 2.13, dynamo turns an assert without a message into a runtime assertion and fails
            with GuardOnDataDependentSymNode on one with a message). Not offered where TorchScript compiles the function (a
            `@torch.jit._script_if_tracing` callee under the legacy exporter), which cannot
            compile `is_in_onnx_export` (nor would a model scripted by hand, outside export).
            Measured: tests/flow_models/item_assert.py exports OK under both exporters.
            `n = int(t.item())` (torchaudio's `_lengths_to_padding_mask`), every use of `n`
            taking a tensor in its place: `n = t.long()`, a 0-d int64 tensor. `.long()`
            truncates toward zero as `int()` does; it differs only on NaN, infinities and values
            out of int64's range (where `int()` raises), so unless a recorded run saw `t` as an
            int64 tensor (for which `.long()` returns `t` itself), the tensor is kept only while
            the legacy exporter traces, `n = (t.long() if torch.jit.is_tracing() else
            int(t.item()))`: safe, and torch.export keeps the number, which it exports where a
            tensor size fails; for an integer `t` (ONX203's proof) the eager side is `t.item()`,
            the same int, which torch.export keeps symbolic where `int()` of a value from the
            data stops it. With no tensor form, `int(t.item())` of an integer `t` still becomes
            `t.item()` (safe) for torch.export. `n = int(t.item() + k)` (PyG's graph count
            `int(batch.max().item() + 1)`) likewise keeps `(t + k).long()`. A use of `n` as a
            size includes an element of a list the function builds and passes whole as a size
            (`size[dim] = n`, then `torch.zeros(size)`), and an argument of a function of the
            file whose parameter is only read as a size or tested against None (`scatter(...,
            dim_size=n)`). Integer arithmetic on `.item()` giving a size
            (`F.pad(x, (0, n.item() - w))`) takes the same tracing-only form, `(n.long() if
            torch.jit.is_tracing() else n.item())`, unless the receiver is known int64 (an int32
            amount made the legacy graph invalid). Neither form where TorchScript compiles the function (it types an
            if-expression's two branches alike): there the plain fixes stay unsafe.
            `name = t.item()` becomes `name = t` when every use of `name` in the function (uses
            inside the assigned expression itself see the previous value and are skipped) takes
            the tensor: the fix is safe when every use is exact as above, unsafe when some use
            is only unsafe as above or is integer arithmetic feeding a size
            (`F.pad(x, (0, target - x.shape[-1]))`: the tensor keeps its dtype, and a uint8
            value wraps where a Python int does not), and absent when `name` is used in a
            condition, updated in place (`name += 1`), declared global, or used anywhere else
            (returned, passed on, compared); the message names the line and the reason.
            A tensor rebuilt from the numbers, `torch.tensor([x.item() + y.item()])` or
            `torch.tensor(E)` with `E` made of `.item()` of names, number literals, `+ - * /` and
            unary minus (or `math.ceil`/`math.floor` of such, as a whole), becomes the same
            arithmetic on the tensors, detached and reshaped to the rebuilt shape
            (`(x + y).detach().reshape(1)`, `torch.ceil(x).detach().long().reshape(1)`):
            unsafe. The result keeps the tensors' dtype and device where `torch.tensor` used the
            default dtype (int64 for ints) and the CPU; one float32 operation on float32 tensors
            gives the same float as the double Python computed, rounded once (53 >= 2 * 24 + 2),
            but a chain rounds at every step.
            With run-time evidence (`onnxfix export --fix`), keeping the tensor is safe where the
            recorded run proves it exact: the receiver was always a 0-d float32/float64/int64
            tensor of dtype D, the number is an operand of `+`, `-`, `*` or `/` (not the
            dividend: `n / t` runs as `t.reciprocal() * n`) with a tensor, and that tensor or
            the result was always of dtype D. `s = t.item()` whose every use is such arithmetic
            (or an exact size) becomes `s = t` safely; integer arithmetic feeding a size is
            exact when the receiver was always a 0-d int64 tensor.
            `torch.tensor(S).item()` / `torch.as_tensor(S).item()` of a size S (an int >= 0:
            a shape item) becomes `S`, safely: the int64 tensor's item is the same int.
        """,
        references=(
            "https://blog.csdn.net/u011622208/article/details/120304656",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
            "https://github.com/pytorch/pytorch/issues/42966",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        func = node.func
        if ctx.tensors.item_receiver(node) is None or python_values_tensor(func.value, ctx):
            return
        size = _size_round_trip(func.value, ctx)
        if size is not None:  # `torch.tensor(q.shape[2]).item()`: the size itself, as the same int
            text = in_place_of(ctx.parent(node), node, ctx.segment(size), precedence(size))
            yield ctx.report(self, node, "`.item()` of a tensor built from a size gives back the size, as a number the "
                             "legacy exporter bakes in; use the size itself", fix=Fix(
                                 "Use the size itself", (ctx.replace(node, text),), safe=True))
            return
        use = item_use(node, ctx)
        if use == "condition" and _in_eager_only_check(node, ctx):
            return  # a test torch.export skips, around messages only: the legacy trace freezes a log
        if use != "condition" and _model_constant(func.value, ctx):
            return  # the value the legacy exporter records is the model's own, right for every input
        drop = ctx.delete_suffix(func, node)
        verdict, kind = tensor_in_place(node, func.value, ctx)
        if use == "size":
            fix = Fix("Pass the tensor itself as the size", (drop,), safe=verdict == EXACT)
            message = "`.item()` used as a size: the legacy exporter bakes the value in as a constant; pass the tensor"
            if verdict == UNSAFE:
                fix, message = _size_kept_while_tracing(node, kind, fix, message, ctx)
            exporters = (LEGACY,)
        elif use == "arithmetic":
            if _scalar_only(node, ctx):
                # torch.full's fill_value, masked_fill's and fill_'s value take a number or a 0-d
                # tensor that needs no gradient (onnx2torch's one-element `value` buffer; a
                # parameter's): `.item()` read any rank and gave a number without one
                start, end = ctx.dot_span(func, node)
                drop = Edit(start, end, ".detach()" if is_zero_dim(func.value, ctx) else ".detach().reshape(())")
            fix = Fix("Keep the value as a 0-d tensor", (drop,), safe=tensor_operand_is_exact(func.value, node, ctx))
            message = "`.item()` as a tensor operand: the legacy exporter bakes the value in as a constant; keep it a tensor"
            exporters = (LEGACY,)
        elif kind == "clamp bound":  # `clamp(x, min=x.max().item() - self.top_db, max=np.inf)`
            fix, message = clamp_bound_fix(node, ctx)
            exporters = (LEGACY,)
        elif kind == "tensor operand":  # `x - (x.max().item() - self.floor)`: the arithmetic on the tensor
            fix = Fix("Keep the value as a 0-d tensor", (drop,), safe=verdict == EXACT)
            message = ("`.item()` in arithmetic with a number whose result is a tensor operand: the legacy exporter "
                       "bakes the value in as a constant; keep it a tensor")
            exporters = (LEGACY,)
        elif kind == "size arithmetic":  # `F.pad(x, (0, n.item() - w))`
            fix = Fix("Pass the tensor itself into the size", (drop,), safe=verdict == EXACT)
            message = (
                "`.item()` in arithmetic giving a size: the legacy exporter bakes the value in as a constant; "
                "keep it a tensor"
            )
            if verdict != EXACT:
                fix, message = _size_kept_while_tracing(node, kind, fix, message, ctx)
            exporters = (LEGACY,)
        elif use == "condition":
            fix = None
            message = (
                "`.item()` in a condition: the legacy exporter freezes the branch taken at export time "
                "and the dynamo exporter fails (GuardOnDataDependentSymNode); no automatic fix: only a "
                "branch whose both sides are tensor values can be selected with `torch.where` (ONX601), "
                "or `torch.cond` when both sides are functions of tensors"
            )
            check = _assert_of(node, ctx)
            if check is not None:
                fix = skip_assert_when_exporting(check, ctx)
                dynamo = (
                    "the dynamo exporter fails on its message (GuardOnDataDependentSymNode)" if check.msg is not None
                    else "the dynamo exporter keeps it as a runtime assertion but fails once it has a message"
                )
                message = (
                    f"`.item()` in an `assert`: {dynamo} and the legacy exporter drops the check; "
                    "skip the check while exporting"
                    + ("" if fix else " (no fix: the function is compiled by TorchScript, which cannot compile "
                       "`torch.onnx.is_in_onnx_export()`)")
                )
            exporters = (LEGACY, DYNAMO)
        elif (wrapped := _cast_of_item(self, node, func.value, ctx))[0] is not None:
            yield wrapped[0]  # `n = int(t.item())`, then uses of n
            return
        else:
            fix = None
            message = "`.item()` turns a tensor into a Python number: the legacy exporter bakes it in as a constant"
            verdict, why = name_as_tensor(node, func.value, ctx)  # `s = t.item()`, then uses of s
            rebuilt = rebuilt_tensor_fix(node, ctx) if verdict is None else None
            if rebuilt is not None:  # `torch.tensor([x.item() + y.item()])`
                fix = rebuilt
                message = (
                    "`.item()` in a tensor rebuilt from Python numbers: the legacy exporter bakes it in as a "
                    f"constant; compute with the tensors (unsafe: {REBUILT_UNSAFE})"
                )
            elif verdict is not None:
                name = assigned_name(node, ctx)
                fix = Fix(f"Keep `{name}` a 0-d tensor", (drop,), safe=verdict == EXACT)
                message = (
                    f"`.item()` assigned to `{name}`: the legacy exporter bakes the value in as a constant; "
                    f"keep `{name}` a tensor" + (f" (unsafe: {why})" if why else "")
                )
            else:  # `n = int(t.item())`: why `n` cannot be the tensor, rather than "passed to `int`"
                message += f" (no fix: {why or wrapped[1] or 'the number is ' + python_use(node, use, ctx)})"
            exporters = (LEGACY,)
            if fix is None and (read := integer_item_fix(ctx.parent(node), ctx)) is not None:
                fix, message, exporters = read[0], message.replace(" (no fix: ", " (no legacy fix: ") + read[1], (LEGACY, DYNAMO)
        yield ctx.report(self, node, message, fix=fix, exporters=exporters)


def _model_constant(receiver: ast.expr, ctx: FunctionContext) -> bool:
    """A parameter or buffer of the module (or a constant-index item of one) that no method but
    __init__ changes: onnx2torch's ConstantOfShape `fill_value=self.value.item()`."""
    while isinstance(receiver, ast.Subscript) and isinstance(receiver.slice, ast.Constant):
        receiver = receiver.value
    # any function of the file rebinding or changing `<x>.<attr>` outside __init__ (a subclass's
    # forward, `.data = `, `nn.init.zeros_(...)`, setattr): its value at export is not every call's
    return (ctx.is_self_attr(receiver) and ctx.is_own_parameter(receiver)
            and not ctx.file.module.changes_of(receiver.attr) & {REBOUND, CHANGED})


def _size_kept_while_tracing(
    node: ast.Call, kind: str, fix: Fix, message: str, ctx: FunctionContext
) -> tuple[Fix, str]:
    """A size whose tensor is not exact in eager (`torch.arange` of a one-element tensor, a narrow
    integer's arithmetic) keeps `.item()` outside the legacy trace: safe, where TorchScript does
    not compile the function (it types an if-expression's branches alike); unsafe otherwise."""
    if ctx.compiled_by_torchscript:
        return fix, message + f" (unsafe: {UNSAFE_BECAUSE[kind]})"
    receiver = node.func.value
    # arange takes only a 0-d tensor: `.reshape(())` reads the one element `.item()` reads; in
    # integer arithmetic giving a size, `.long()` computes as the Python int does (no uint8
    # wrap), and an int32 amount would meet the int64 sizes in the legacy graph (invalid Concat)
    suffix = {"scalar size": ".reshape(())", "size arithmetic": ".long()"}.get(kind, "")
    kept = operand(ctx.segment(receiver), receiver, ATOM) + suffix
    return while_tracing(node, kept, ctx), message + " while tracing (eager and torch.export keep the number)"


def _cast_of_item(rule: Rule, node: ast.Call, receiver: ast.expr, ctx: FunctionContext) -> tuple[Finding | None, str]:
    """`n = int(t.item())` (torchaudio's `_lengths_to_padding_mask`): the finding that keeps `n`
    the 0-d tensor `t.long()`, when every use of `n` takes a tensor in its place; None otherwise,
    with why where `n` is used where a tensor cannot stand for it.
    `.long()` truncates toward zero as `int()` does (it differs on NaN, infinities and values out
    of int64's range, where `int()` raises); exact by construction only where a recorded run saw
    `t` as an int64 tensor, for which `.long()` returns `t` itself; otherwise kept only while the
    legacy exporter traces (safe)."""
    argument, wrapper = node, ctx.parent(node)
    if shifted_by_int(wrapper, node):  # `int(t.item() + 1)` (PyG's global pooling: the graph count)
        argument, wrapper = wrapper, ctx.parent(wrapper)
    if not (isinstance(wrapper, ast.Call) and wrapper.args == [argument] and not wrapper.keywords):
        return None, ""
    if builtin_call(wrapper, ctx, frozenset({"int"})) is None:
        return None, ""
    verdict, why = name_as_tensor(wrapper, receiver, ctx)
    traced_only = verdict is None and not ctx.compiled_by_torchscript
    if traced_only:  # a use only torch.export runs (a `torch._check_is_size(n)` hint) needs the number
        verdict, _ = name_as_tensor(wrapper, receiver, ctx, while_traced=True)
    if verdict is None:
        return None, why
    exact = verdict == EXACT and ctx.tensors.scalar_dtype(receiver) == "int64" and not traced_only
    name = assigned_name(wrapper, ctx)
    text = f"{operand(ctx.segment(receiver), receiver, ATOM)}.long()"
    if argument is not node:  # the shift on the tensor, then the truncation: `(t + 1).long()`
        shifted = ctx.segment(receiver) if argument.left is node else ctx.segment(argument.left)
        shift = ctx.segment(argument.right) if argument.left is node else ctx.segment(receiver)
        symbol = "+" if isinstance(argument.op, ast.Add) else "-"
        text = f"({shifted} {symbol} {shift}).long()"
    message = (f"`{ctx.segment(wrapper)}` assigned to `{name}`: the legacy exporter bakes the value in as a constant; "
               f"keep `{name}` a 0-d int64 tensor")
    if exact:
        fix = Fix(f"Keep `{name}` a 0-d tensor", (ctx.replace(wrapper, text),), safe=True)
    elif not ctx.compiled_by_torchscript:  # eager and torch.export keep `int()`'s number
        fix, message = while_tracing(wrapper, text, ctx), message + " while tracing (eager and torch.export keep the number)"
    else:
        because = why or "`.long()` and `int()` differ on NaN, infinities and values out of int64's range"
        fix, message = Fix(f"Keep `{name}` a 0-d tensor", (ctx.replace(wrapper, text),), safe=False), message + f" (unsafe: {because})"
    return ctx.report(rule, wrapper, message, fix=fix, exporters=(LEGACY,)), ""


def _size_round_trip(receiver: ast.expr, ctx: FunctionContext) -> ast.expr | None:
    """``X`` of `torch.tensor(X)` / `torch.as_tensor(X)` (no other argument) with ``X`` a size, an
    int >= 0: the int64 tensor's `.item()` is ``X`` again (a TensorRT blog's attention block
    reads its sizes as `torch.tensor(q.shape[2]).item()`)."""
    if not (isinstance(receiver, ast.Call) and ctx.qualname(receiver.func) in ("torch.tensor", "torch.as_tensor")
            and len(receiver.args) == 1 and not receiver.keywords):
        return None
    size = receiver.args[0]
    return size if ctx.sizes.is_size(size) and ctx.ints.is_nonnegative_int(size) else None


def _in_eager_only_check(node: ast.expr, ctx: FunctionContext) -> bool:
    """`if not torch.compiler.is_exporting() and (<test>): logger.debug(...)` (or `raise`): the test
    never runs under torch.export, and what the legacy trace freezes only reports; and `if
    torch.compiler.is_exporting() or (<test>):`, whose branch torch.export takes untested."""
    statement = next((a for a in ctx.ancestors(node) if isinstance(a, ast.stmt)), None)
    if not (isinstance(statement, ast.If) and not statement.orelse and any(n is node for n in walk(statement.test))):
        return False
    if skipped_by_or(statement.test):
        return True  # `torch.compiler.is_exporting() or (...)`: torch.export takes the branch untested (ONX601's fix)
    return skipped_by_and(statement.test) and all(is_message(s, ctx) or isinstance(s, ast.Raise) for s in statement.body)


def _assert_of(node: ast.expr, ctx: FunctionContext) -> ast.Assert | None:
    """The `assert` whose test holds ``node`` (not its message), if any."""
    child: ast.AST = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.stmt):
            return ancestor if isinstance(ancestor, ast.Assert) and ancestor.test is child else None
        child = ancestor
    return None


SCALAR_ONLY_METHODS = frozenset({"masked_fill", "masked_fill_", "fill_", "index_fill", "index_fill_"})


def _scalar_only(node: ast.expr, ctx: FunctionContext) -> bool:
    """``node`` is an argument that takes a number or a 0-d tensor, no other tensor."""
    holder = ctx.parent(node)
    if isinstance(holder, ast.keyword):
        holder = ctx.parent(holder)
    if not isinstance(holder, ast.Call) or node is holder.func:
        return False
    func = holder.func
    return ctx.qualname(func) == "torch.full" or (isinstance(func, ast.Attribute) and func.attr in SCALAR_ONLY_METHODS)
