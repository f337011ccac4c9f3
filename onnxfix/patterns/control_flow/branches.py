"""ONX601: `if` and conditional expressions on tensor values (torch.where for one-statement
branches; input checks skipped while exporting)."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.conditions import (
    BRANCH_FAILURE,
    CONTROL_FLOW_REFERENCES,
    Condition,
    converted_out_of_torch,
    may_hold_python_value,
    python_container,
    tensor_condition,
)
from onnxfix.patterns.control_flow.augmented_branch import augmented_fix
from onnxfix.patterns.control_flow.best_rows_cut import best_rows_cut
from onnxfix.patterns.control_flow.bool_select import select_text
from onnxfix.patterns.control_flow.branch_reasons import no_select_reason, no_where_reason
from onnxfix.patterns.control_flow.built_optional import built_optional_fix
from onnxfix.patterns.control_flow.check_call import skip_check_call
from onnxfix.patterns.control_flow.conjoined_write import conjoined_write
from onnxfix.patterns.control_flow.dropped_optional import dropped_optional_fix
from onnxfix.patterns.control_flow.masked_guard import empty_write_guard
from onnxfix.patterns.messages import message_block, test_skippable_when_exporting
from onnxfix.patterns.control_flow.branch_shapes import reshaped_branch
from onnxfix.patterns.control_flow.empty_exit import branch_shape, empty_exit_fix
from onnxfix.patterns.control_flow.empty_guard import runs_if_nonempty, skips_empty_exit
from onnxfix.patterns.control_flow.size_parity import size_parity_pad
from onnxfix.patterns.control_flow.static_guard import static_guard_where
from onnxfix.patterns.control_flow.value_select import value_select_fix
from onnxfix.patterns.control_flow.zero_pad_shortcut import SIZES as ZERO_PAD_SIZES, WHY as ZERO_PAD, zero_pad_shortcut
from onnxfix.patterns.export_checks import (
    constant_message, failed_in_run, raised_in_run, skip_assert_when_exporting, skip_raise_when_exporting,
    skipped_by_and, skipped_by_both, skipped_by_or,
)
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.datadep import is_data_dependent_size
from onnxfix.rewriter.export_guards import in_training_branch
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.statements import comments_outside, replace_statements
from onnxfix.rewriter.tree_walk import walk


# -- ONX601 -------------------------------------------------------------------------------------
class TensorIf(Rule):
    code = "ONX601"
    name = "tensor-condition-branch"
    summary = "`if` (or `a if c else b`) on a tensor value"
    fix_availability = "sometimes"
    default_safety = "per-finding"  # torch.where: unsafe; a size-parity zero pad dropped: safe
    python_hazard = True  # TorchScript compiles an `if` on a tensor into a prim::If, which the legacy export keeps
    doc = RuleDoc(
        what="""
            Finds `if` statements and conditional expressions whose condition is a tensor
            value: a comparison with a tensor (`if x.sum() > 0:`), `t.any()` / `t.all()`,
            `bool(t)`, `t.item()` in a comparison, `torch.equal(a, b)`, an elementwise predicate of a
            tensor (`t.isnan()`, `torch.isinf(t)`, `t.eq(0)`), a bare tensor, or a full
            reduction (`if x.sum():`, `bool(y.max())`: one value, selected with `t != 0`). A
            branch whose one statement updates a name in place (`if sos: out += 1.`) is selected
            too: `out = torch.where(sos, out + 1., out)` (the name rebound, no longer written in
            place: unsafe, as every torch.where fix).
            Conditions on shapes, flags and `None` checks are not reported. Two kinds are
            reported with a narrower message: an `if` whose only statement is `raise` (an input
            check: the dynamo exporter fails on it while the legacy exporter drops it, which is
            harmless for valid inputs, measured by tests/test_flow_proofs.py
            (tests/flow_models/raise_check.py); `torch._check` keeps it; a check function called
            as a statement on such a test, whose body only tests and raises, is the same input
            check: kornia's `KORNIA_CHECK(any(factor >= 0), msg)` becomes
            `torch.compiler.is_exporting() or KORNIA_CHECK(...)`, Python's `any()` of a tensor
            counting as a tensor test), and
            an `and` whose first operands are Python values (`h.dtype == torch.float16 and not
            torch.isfinite(h).all()`, the BART-family fp16 clamp): those are decided once at
            export, so the tensor test runs, and breaks, only in an export where they hold (a
            float16 export here; a float32 export passes both exporters, measured by hand on
            torch 2.13, not kept as a test). Also one `if` on sizes: a branch on a size's parity
            (`if H % 2 == 1 or W % 2 == 1:`, directly or through a flag assigned just before)
            whose only statement pads by amounts that are zero when the condition is false
            (`x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))`, Swin's patch merging), or to a multiple
            of a literal or a configuration int (`if W % self.patch_size[1] != 0:`, Swin's patch
            embedding, its sizes also followed through names bound in a cycle); and an `if` that
            skips a pad where every amount is zero, its `else` padding by those amounts
            (detectron2's `ImageList.from_tensors`: `if all(x == 0 for x in padding_size):`, or
            `pad_h == 0 and pad_w == 0`, `not any(padding)`; amounts read from the input); other
            branches on sizes are not reported (most are on static dimensions).
        """,
        why="""
            Export traces one run. The legacy exporter evaluates the condition on the export
            inputs and records only the branch taken (TracerWarning "Converting a tensor to a
            Python boolean"): measured on torch 2.13, `if x.sum() > 0: return x * 2 else:
            return x - 1` exports a model that is silently wrong whenever the sign flips. The
            dynamo exporter fails: `GuardOnDataDependentSymNode: Could not guard on
            data-dependent expression` (non-strict capture) and `Unsupported: Data-dependent
            branching` (its strict fallback). `torch.cond` works in dynamo only; the legacy
            exporter fails on it ("Detected that you are using FX to torch.jit.trace a
            dynamo-optimized function"). In a function TorchScript compiles (`@torch.jit.script`,
            `script_if_tracing`) the legacy export keeps the `if` (a prim::If, an ONNX If):
            reported for the dynamo exporter only (pnnx's scripted `_abs`: legacy OK before).
        """,
        example="""
            def forward(self, x: torch.Tensor):
                if x.sum() > 0:
                    return x * 2
                else:
                    return x - 1
        """,
        use_instead="""
            def forward(self, x: torch.Tensor):
                return torch.where(x.sum() > 0, x * 2, x - 1)
        """,
        fix_safety="""
            Offered when both branches are one `return <expr>` (an `if` that returns, followed
            by a `return`, counts), or one assignment to the same name (a missing `else` keeps
            the name's previous value), or for `a if c else b`; with a comparison, `any()`,
            `all()` or `bool()` of one as the condition (`.item()` is dropped), or a bare tensor
            that a recorded run (`onnxfix export --fix`) saw 0-d only, a flag passed as an
            input (`if deterministic:`; as is when bool, `t != 0` otherwise). Always unsafe:
            `torch.where` evaluates both branches (an error or a side effect in the branch not
            taken now happens), broadcasts them to a common shape and promotes them to a common
            dtype, returns a tensor where a branch gave a Python number, and a comparison that
            used `.item()` (a double) is now made in the tensor's dtype. Exact when both
            branches are tensors of the same shape and dtype as the result and have no side
            effects, which static analysis cannot check. Between Python bools (kornia's
            `validate_bbox`: `if torch.any(...): return False ... return True`) the select is
            the logical form, `~c`, `~c & x`, `c | x` (the same bool tensor; onnxruntime has no
            `Where` kernel for bool), and a bool beside another value a 0-d tensor (the legacy
            exporter has no `aten::where` for bool scalars).
            Branches `torch.where` cannot take as they are (several statements binding names the
            code after reads, both ending in `return`, or an early `return` before the rest of the
            function: SB3-contrib's recurrent policy, `if th.all(episode_starts == 0.0):` the whole
            sequence at once, else a loop resetting states) become nested functions, the names a
            branch rebinds passed in, and `_onnx_value_select(<test>, _onnx_if_N, _onnx_else_N,
            (<names>,))` runs them: in eager (and under torch.compile) it is the `if` itself, only
            the branch taken running, the same statements in the same order: safe (unsafe only where
            the test's tensor form is not the test: a dropped `.item()`, `&` / `|` for `and` / `or`).
            While either exporter traces (`torch.onnx.is_in_onnx_export()`), both branches run and
            `torch.where` selects each output where the two agree in structure, shape and dtype;
            otherwise torch.export gets `torch.cond`, and where that fails too, the `if` as before.
            Not offered where a branch writes module state, an item or an attribute, updates a
            tensor in place (`inplace=`, `out=`), gives a visible Python value (a number, a list:
            the helper would only take the `if` again), or rebinds a name that is not bound on
            every path to the `if` (a loop-carried value, a comprehension's variable), inside a
            `try`, nor under TorchScript. A branch the export inputs never take is now exported
            too: an operator an exporter cannot translate there fails that export, where it used
            to record the other branch (`onnxfix export --fix` keeps the original then). Measured: tests/flow_models/
            value_fast_path.py fails under dynamo and is silently wrong under legacy; rewritten, it
            exports and matches eager under both (tests/test_value_select.py: eager identity, and
            branches of different shapes through torch.cond).
            An `if` whose body only sets names bound before to `None` (transformers'
            Mamba-family `_update_mamba_mask`: `if cache_position[0] > 0 or (attention_mask is not
            None and torch.all(attention_mask == 1)): mamba_mask = None`), or binds them in an `else`
            (Phi-4-multimodal's vision tower: `else: attention_mask = _prepare_4d_attention_mask(...)`),
            is a shortcut that drops a value the general path would apply to no effect: `if not (torch.jit.is_tracing() or
            torch.compiler.is_exporting()) and (<test>):`. Eager tests as before; both exporters keep
            the value for every input. Unsafe: exact only where the kept value then changes nothing
            (a mask of ones). Measured: tests/flow_models/dropped_mask.py fails under dynamo and is
            silently wrong under legacy for padded inputs; rewritten, it is OK under both.
            Its mirror, an `if` with no `else` that only builds names otherwise None (ChatGLM2/3:
            `if attention_mask is not None and not attention_mask.all(): full_attention_mask =
            self.get_masks(...)`, attention causal without it): each operand reading tensor values
            is taken as true while exporting (`attention_mask is not None and (torch.jit.is_tracing()
            or torch.compiler.is_exporting() or not attention_mask.all())`), the Python operands
            still decide. Unsafe: exact only where the value built from data that did not need it
            acts as None does. Measured: tests/flow_models/built_mask.py fails under dynamo and is
            silently wrong under legacy for padded inputs; rewritten, it is OK under both.
            An `and` whose operands before the last are Python values (no tensor test: dtype
            comparisons, `is None`, flags) and whose last is a tensor test with a `torch.where`
            form (`not t.all()` as `~t.all()`), around single-name assignments (no `else`, not an
            `elif`) the last of which rebinds a name bound before and the others set names read
            only in the body, or outside it only after being set again earlier in the same block
            (the BART-family fp16 clamp; LongT5's three clamps sharing `clamp_value`): the `if` keeps the Python operands and
            the last assignment selects, `h = torch.where(~torch.isfinite(h).all(),
            torch.clamp(h, ...), h)`. Safe when the tensor test is 0-d (`any()`/`all()` without
            a dim, or `not` of one: all elements come from one side, bit for bit), the other
            assignments are Python numbers (`torch.finfo(h.dtype).max - 1000`), the value is
            `clamp`/`clip` of the name with Python-number bounds and a Python operand is
            `h.dtype == torch.<floating dtype>` (so the clamp keeps h's dtype and shape), and `h`
            is not written in place or handed on as itself after the `if` (where the test is
            false `h` is now a copy); unsafe otherwise. The clamp is never applied
            unconditionally: it changes finite values in (max - 1000, max]. Measured:
            tests/flow_models/fp16_clamp.py exports OK under both exporters (float32, where the
            dtype test skips the branch; onnxruntime's CPU float16 coverage is thin), and
            tests/test_static_guard_where.py checks float16 bit-identity with and without
            inf/NaN.
            A guard around writes through a mask that is empty whenever the test is false (`if
            m.any(): x[m] = 0`; `if t.min() <= eps: zero = t <= eps; scale[zero] = 0`,
            pytorch-quantization's tensor_quant): the `if` is dropped and the body always runs
            (masks bound in it or once before it in the same block, views of them, index writes
            and `masked_fill_`). Safe for `m.any()`, `torch.any(m)`, `m.sum() > 0` and
            `not (m == c).all()` (ChatGLM's, the mask `m != c`; a bool `m != 0` is `m`) with
            written values that are names or constants, into an integer or bool tensor (an empty
            selection writes nothing; a write that would raise, a mask of another shape, now raises
            on every call, not only where the test held); unsafe into other tensors (a write of no
            element still bumps the version of a tensor autograd may need, and backward fails) and for `min()`/`max()` tests (a NaN makes the test false
            while other elements may still be selected) or computed values. Counts of a comparison
            or a bool mask (`(m).sum() != 0`, `>= 1`, `.item()` of one) are the same test (not in an
            `elif`, not where the test or the body draws random numbers, nor where a statement between
            a tested count's binding and the `if` writes in place). Where the body starts with
            messages (a log record, a warning, a print: CosyVoice's `logger.debug` before forcing
            fully masked rows) or writes into a bool tensor (one known bool, or given `True` /
            `False`: a Where on bools in the legacy export, which onnxruntime cannot run), the `if` stays and torch.export takes it: `if
            torch.compiler.is_exporting() or (<test>):` (eager and the legacy trace test as before;
            a message is printed once while tracing).
            A test of one value (a comparison of whole-tensor reductions and numbers, `t.any()`,
            `t.all()`) around one write of a number through a bool mask that the test does not
            ask about (FastSpeech2Conformer's `if durations.sum() == 0: durations[durations.sum(dim=1)
            .eq(0)] = 1`) folds the test into the mask: `durations[mask & (durations.sum() == 0)] = 1`,
            the `if` dropped: where the test holds the mask is unchanged, where it does not it selects
            nothing, and the test is still read before the write. Unsafe: where the test is false the
            target and the mask are now evaluated (they may raise) and the tensor is written in place
            with no element, which makes backward fail on a tensor autograd needs. Measured: tests/flow_models/conjoined_write.py (FAILS / WRONG before,
            OK / OK after).
            The size-parity pad is different: the `if` (and its flag) is removed and the pad
            always runs, an amount `k - S % k` becoming `(k - S % k) % k`. When the condition is
            false every amount is zero, and a zero constant pad returns a copy with the same
            values, dtype, shape and strides (a non-dense input comes back contiguous); so the
            fix is safe unless the unpadded tensor could still be observed after the `if` (an
            in-place write, the tensor returned, stored or passed to a call that is not
            torch's before the name is rebound), then unsafe. With `S % k != 0` this holds for
            any non-zero k; `S % k > 0` with a configuration k is unsafe (never true for a
            negative k, where the rewrite would pad by a negative amount). Measured: the original
            ORT-FAILS under both exporters on the other parity, the rewrite is OK under both
            (tests/flow_models/size_parity_pad.py, tests/realworld/swin_patch_merging_parity.py).
            The zero-pad shortcut's test is made false under export (`not (torch.jit.is_tracing()
            or torch.compiler.is_exporting()) and ...`), so the padding branch runs for every
            size: a constant pad by zeros is a copy, and eager keeps its shortcut; unsafe, since
            the analysis does not prove that the rest of the padding branch computes what the
            shortcut does (tests/flow_models/zero_pad_shortcut.py: WRONG / WRONG before, OK / OK
            after).
            An `if` whose only statement is `raise` (an input check: `if n_tokens !=
            n_features: raise ValueError(...)`), or whose statements only warn, log or print
            (torchaudio's `if (fb.max(dim=0).values == 0.0).any(): warnings.warn(...)`; also with
            the text built first in names read nowhere else, under `if`s on Python values:
            transformers' `if pad_token_id in input_ids[:, [-1, 0]]:` padding warning, a
            membership test being `(t == v).any()`), is fixed differently: `if not
            torch.compiler.is_exporting() and <condition>: raise ...`; an `assert` on a tensor
            value with a message computed from it (`assert (discriminant >= 0).all(),
            discriminant`: torch.export keeps the check as a runtime assertion, but fails on
            such a message) likewise, as is an `assert` on a size read from tensor values whatever
            its message (RT-IGEV's `assert torch.unique(ygrid).numel() == 1 and H == 1`: torch.export
            must decide the size to evaluate the test; tests/flow_models/unique_assert.py), and under `onnxfix export --fix` an `assert` the export
            stopped on (a data-dependent guard in its call chain: detectron2's `assert len(self)
            == data_len` whose `__len__` is a selection's row count), as ONX201 fixes an assert on `.item()`: `assert torch.onnx.is_in_onnx_export() or <condition>`; likewise an `if
            <condition>: raise` on Python values an export stopped on (Transformers4Rec's hashed sizes,
            docs/export-cmd.md), with `not ... and` (safe: False in
            eager, set by both exporters while tracing; no fix where TorchScript compiles the
            function). Safe: in eager (and under
            torch.compile and the legacy tracer) `is_exporting()` is False, so the same
            condition is evaluated in the same order and raises the same error; torch.export
            skips the check it could not capture (the legacy trace dropped it anyway). Unsafe
            only when the installed torch is older than 2.6 (no `torch.compiler.is_exporting`)
            or unknown (read from package metadata; torch is never imported). Measured:
            tests/flow_models/raise_check.py and tests/realworld/paligemma_token_count_check.py
            export OK under both exporters after the fix. Conditions on a size read from tensor
            values (`x[mask].numel()`, `len(t.nonzero())`) are reported too: such a size is an
            unbacked symbol, on which dynamo cannot branch. One of those has a fix: an early exit
            on an empty selection whose value is what the main path gives for it anyway (`if
            y.numel() == 0: return x.new_zeros(())` before `return y.sum()`; `len(y)`,
            `y.shape[k]`, `y.size(k)` alike; `prod` and a one alike; or one assignment to the
            same name in each branch) loses the check: the sum of an empty tensor is a zero.
            Unsafe: that zero has `y.sum()`'s dtype (int64 for an integer or bool `y`) and device,
            and comes with autograd history when `y` requires grad, while the early value has
            its own dtype and device. Measured: the original fails under dynamo, the rewrite is
            OK under both exporters, empty selections included (tests/flow_models/empty_exit.py,
            tests/realworld/numel_empty_exit.py).
        """,
        references=CONTROL_FLOW_REFERENCES,
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        if skipped_by_or(node.test) or skipped_by_both(node.test):
            return  # `torch.compiler.is_exporting() or ...`: torch.export takes the branch (this rule's fixes)
        zero_pad = zero_pad_shortcut(node, ctx) if not in_training_branch(node, ctx) else None
        if zero_pad is not None:
            failure = BRANCH_FAILURE if tensor_condition(node.test, ctx) else ZERO_PAD_SIZES
            yield ctx.report(self, node.test, f"`if` skipping a pad where every amount is zero: {failure}{ZERO_PAD}",
                             fix=zero_pad)
            return
        condition = tensor_condition(node.test, ctx)
        if condition is None and raised_in_run(node, ctx):
            yield ctx.report(self, node.test, "input check an export stopped on (the run raised at its lines, where "
                             "eager passed it on the same inputs: sizes hashed in a `set`, a test the tracer cannot "
                             "take); skip the check while exporting", fix=skip_raise_when_exporting(node, ctx))
            return
        if condition is None and not in_training_branch(node, ctx):
            yield from size_parity_pad(self, node, ctx)
        if condition is None or in_training_branch(node, ctx):
            return
        cut = best_rows_cut(node, ctx)  # a cut to the k best rows of a selection (ALIKE's keypoints): ONX615 fixes it
        deferral = ("ONX615", cut[0]) if cut is not None else None
        fix = self._fix(node, condition, ctx) if condition.where_text else None
        value = "a size read from tensor values" if _reads_data_size(node.test, ctx) else "a tensor value"
        if _raises_only(node, ctx):
            if skipped_by_and(node.test):
                return  # `if not torch.compiler.is_exporting() and bad: raise`: already right
            fix = _skip_check_when_exporting(node, ctx)
            message = (
                f"`if` on {value} guarding a {'`raise`' if isinstance(node.body[-1], ast.Raise) else 'message (a warning, log or print)'}: "
                "the dynamo exporter fails "
                "(GuardOnDataDependentSymNode; 'Data-dependent branching' in its strict fallback) and "
                "the legacy exporter drops the check; skip the check while exporting"
                + ("" if fix.safe else f" (unsafe: {_IS_EXPORTING} needs torch >= 2.6, and the installed one "
                   "could not be read or is older)")
            )
        else:
            message = f"`if` on {value}: {BRANCH_FAILURE}"
            guarded = (empty_write_guard(node, ctx) or static_guard_where(node, ctx)
                       or conjoined_write(node, ctx)) if fix is None else None
            dropped = empty_exit_fix(node, branch_shape(node, ctx), ctx) if fix is None and guarded is None else None
            shape = branch_shape(node, ctx)
            reshaped = shape is not None and reshaped_branch(shape[2], shape[3], ctx)
            leaves_torch = shape is not None and any(converted_out_of_torch(side, ctx) for side in shape[2:4])
            # a value None unless the test holds: the branches' selection would meet None (no tensor)
            built = built_optional_fix(node, ctx) if fix is None and guarded is None and dropped is None else None
            selected = (value_select_fix(node, ctx) if fix is None and guarded is None and dropped is None
                        and built is None and not reshaped and not leaves_torch else None)
            shortcut = built or (dropped_optional_fix(node, ctx) if fix is None and guarded is None and dropped is None
                                 and selected is None else None)
            if guarded is not None:
                fix, why = guarded
                message += why
            elif dropped is not None:
                fix, why = dropped
                message += why
            elif selected is not None:
                fix, why = selected
                message += why
            elif shortcut is not None:
                fix, why = shortcut
                message += why
            elif fix is None:
                message += "; no automatic fix: " + no_where_reason(node, condition, value, ctx)
        message += _static_guard_note(node.test, ctx)
        # an empty exit, a block run only when not empty: ONX610 reports it for the dynamo exporter, with its fix
        exporters = ("legacy",) if fix is None and (skips_empty_exit(node, ctx) or runs_if_nonempty(node, ctx)) else None
        yield ctx.report(self, node.test, message, fix=fix, exporters=exporters, deferred_to=deferral)

    def visit_Assert(self, node: ast.Assert, ctx: FunctionContext):
        """`assert (d >= 0).all(), d` (Piper's spline flow): torch.export keeps an assert on a
        tensor value as a runtime assertion, but fails on a message computed from the value (a
        tensor, an f-string of one): skipped while exporting as ONX201 skips one on `.item()`."""
        if failed_in_run(node, ctx) and not skipped_by_or(node.test) and not in_training_branch(node, ctx):
            yield ctx.report(self, node.test, "`assert` whose test the export stopped on (a data-dependent guard "
                             "while evaluating it, e.g. `len()` of a selection in a `__len__`): the check cannot be "
                             "decided while tracing; skip it while exporting", fix=skip_assert_when_exporting(node, ctx))
            return
        data_size = _reads_data_size(node.test, ctx)
        if constant_message(node.msg) and not data_size:
            return  # torch.export keeps such a check as a runtime assertion (tests/flow_models/assert_positive.py)
        if tensor_condition(node.test, ctx) is None or in_training_branch(node, ctx) or skipped_by_or(node.test):
            return
        if any(ctx.tensors.item_receiver(n) is not None for n in walk(node.test)):
            return  # `.item()` in the assert: ONX201 reports it, with the same fix
        fix = skip_assert_when_exporting(node, ctx)
        # a size read from the data (`torch.unique(y).numel() == 1`, RT-IGEV) is a symbol torch.export
        # must decide to evaluate the test: it fails on the test itself, whatever the message
        failure = ("`assert` on a size read from tensor values: the dynamo exporter cannot decide it "
                   "(GuardOnDataDependentSymNode)" if data_size else
                   "`assert` on a tensor value with a message computed from it: the dynamo exporter fails on the "
                   "message (GuardOnDataDependentSymNode)")
        yield ctx.report(
            self, node.test,
            f"{failure} and the legacy exporter drops the check; skip the check while exporting" + ("" if fix else " (no fix: the function is compiled by TorchScript, which cannot compile "
                           "`torch.onnx.is_in_onnx_export()`)"),
            fix=fix,
        )

    def visit_Expr(self, node: ast.Expr, ctx: FunctionContext):
        """`KORNIA_CHECK(any(factor >= 0), msg)`: a check function's test on tensor values."""
        fix = skip_check_call(node, ctx) if not in_training_branch(node, ctx) else None
        if fix is not None:
            yield ctx.report(self, node.value, "check function called on a tensor value's test: the dynamo exporter "
                             "fails inside it (GuardOnDataDependentSymNode) and the legacy exporter drops it; skip "
                             "the check while exporting", fix=fix)

    def visit_IfExp(self, node: ast.IfExp, ctx: FunctionContext):
        condition = tensor_condition(node.test, ctx)
        if condition is None or in_training_branch(node, ctx):
            return
        fix, reshaped = None, reshaped_branch(node.body, node.orelse, ctx)
        if condition.where_text and not reshaped and not (python_container(node.body) or python_container(node.orelse)):
            torch, imports = ctx.torch_name()
            text = select_text(condition.where_text, node.body, node.orelse, ctx, torch)
            imports = imports if f"{torch}." in text else ()
            fix = Fix("Select with `torch.where` (evaluates both sides)", (ctx.replace(node, text),), safe=False, imports=imports)
        reason = "" if fix is not None else no_select_reason(node, condition, reshaped)
        yield ctx.report(self, node.test, f"conditional expression on a tensor value: {BRANCH_FAILURE}" + reason,
                         fix=fix)

    def _fix(self, node: ast.If, condition: Condition, ctx: FunctionContext) -> Fix | None:
        shape = branch_shape(node, ctx)
        if shape is None:
            return augmented_fix(node, condition, ctx)
        kind, target, when_true, when_false, last = shape
        if reshaped_branch(when_true, when_false, ctx):  # a missing `else` keeps the name: its text
            return None
        if python_container(when_true) or (python_container(when_false) if isinstance(when_false, ast.AST)
                                           else may_hold_python_value(when_false, ctx)):
            return None
        if any(converted_out_of_torch(side, ctx) for side in (when_true, when_false)):
            return None  # `b = b.numpy()`: no tensor to select
        kept = [node.test, when_true] + ([when_false] if isinstance(when_false, ast.AST) else [])
        comments = comments_outside(ctx, node, kept, last)
        if comments is None:
            return None
        torch, imports = ctx.torch_name()
        selected = select_text(condition.where_text, when_true, when_false, ctx, torch)
        imports = imports if f"{torch}." in selected else ()  # a logical form (bools) needs no torch
        new = f"return {selected}" if kind == "return" else f"{target} = {selected}"
        edit = replace_statements(ctx, node, last, new, comments)
        return Fix("Select with `torch.where` (evaluates both branches)", (edit,), safe=False, imports=imports)


_IS_EXPORTING = "torch.compiler.is_exporting()"


def _skip_check_when_exporting(node: ast.If, ctx: FunctionContext) -> Fix:
    """`if bad: raise ...` -> `if not torch.compiler.is_exporting() and (bad): raise ...`. Eager
    (is_exporting() is False there, and under torch.compile and the legacy tracer) evaluates the
    same condition in the same order and raises the same error: safe, given a torch that has the
    function (2.6+; read from the installed package's metadata, never imported). torch.export
    skips the check, which it could not capture; the legacy trace dropped it already.
    Measured: tests/realworld/paligemma_token_count_check.py exports OK under both exporters."""
    torch, imports = ctx.torch_name()
    test = node.test
    text = ctx.segment(test)
    if isinstance(test, (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda)) and not (
        isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
    ):
        text = f"({text})"
    guard = _IS_EXPORTING.replace("torch", torch, 1)
    safe = test_skippable_when_exporting(test)
    return Fix(f"Skip the check while exporting (`not {guard} and ...`)",
               (ctx.replace(test, f"not {guard} and {text}"),), safe=safe, imports=imports)


def _reads_data_size(test: ast.expr, ctx: FunctionContext) -> bool:
    return any(is_data_dependent_size(node, ctx) for node in walk(test))


def _raises_only(node: ast.If, ctx: FunctionContext) -> bool:
    """`if n_tokens != n_features: raise ValueError(...)`: an input check, not a choice
    between computations. Measured on torch 2.13: dynamo still fails on it; legacy drops it.
    A body that only warns or logs is a check too (torchaudio's `melscale_fbanks`: `if
    (fb.max(dim=0).values == 0.0).any(): warnings.warn(...)`)."""
    if node.orelse or not node.body:
        return False
    if isinstance(node.body[-1], ast.Raise) and all(_message_text(s) for s in node.body[:-1]):
        return True  # `msg = f"..."` then `raise ValueError(msg)` (getiaction's normalizer check) too
    return message_block(node.body, ctx, node)


def _message_text(statement: ast.stmt) -> bool:
    """`msg = "..."` / an f-string / a concatenation of them: the text a raise is given, nothing run."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
        return False
    value = statement.value
    while isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and _text(value.right):
        value = value.left
    return _text(value) or isinstance(value, ast.Name) and value is not statement.value  # `msg + "..."`


def _text(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


def _static_guard_note(test: ast.expr, ctx: FunctionContext) -> str:
    """`if h.dtype == torch.float16 and not torch.isfinite(h).all():` (BART-family fp16
    clamps): the operands of an `and` before the first tensor test are Python values, decided
    once at export. When they are false (a float32 export) the tensor test never runs and
    nothing breaks; when they hold, it does. Still reported, naming the guard."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return ""
    guards = []
    for value in test.values:
        if tensor_condition(value, ctx):
            break
        guards.append(value)
    if not guards:
        return ""
    text = " and ".join(ctx.segment(g) for g in guards)
    if len(text) > 60:
        text = text[:57] + "..."
    return f" (only when `{text}` holds at export: otherwise the tensor test never runs)"
