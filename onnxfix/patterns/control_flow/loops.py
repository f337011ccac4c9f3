"""ONX602 (`while` on a tensor value) and ONX603 (Python loops over dynamic sizes), with the
vectorised accumulation fix."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.conditions import CONTROL_FLOW_REFERENCES, tensor_condition
from onnxfix.patterns.control_flow.accumulation_loop import vectorised_accumulation
from onnxfix.patterns.control_flow.batched_map import batched_map_comprehension
from onnxfix.patterns.control_flow.chunk_loop import (
    chunk_loop, chunk_range_comprehension, chunk_split_comprehension, chunk_split_loop,
)
from onnxfix.patterns.control_flow.expert_loop import expert_loop
from onnxfix.patterns.control_flow.gathered_rows import gathered_rows_comprehension
from onnxfix.patterns.control_flow.index_range import index_range_comprehension
from onnxfix.patterns.control_flow.iteration import (
    dynamic_iteration, is_size_bound, rank_only, size_long_list, size_on_some_path, tensor_iterable,
)
from onnxfix.patterns.control_flow.length_fill_loop import length_fill_loop
from onnxfix.patterns.control_flow.length_reductions import length_reduction_loop
from onnxfix.patterns.control_flow.number_rows import number_rows_comprehension
from onnxfix.patterns.control_flow.row_picks import row_picks_comprehension
from onnxfix.patterns.control_flow.scan_loop import scan_loop
from onnxfix.patterns.control_flow.repeated_rows import repeated_list, repeated_rows_comprehension, repeated_rows_loop
from onnxfix.patterns.control_flow.scatter_loop import scatter_loop
from onnxfix.patterns.control_flow.while_loop_fix import while_loop_fix
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import in_training_branch
from onnxfix.rewriter.rule import Rule, RuleDoc


# -- ONX602 -------------------------------------------------------------------------------------
class TensorWhile(Rule):
    code = "ONX602"
    name = "tensor-condition-loop"
    summary = "`while` loop on a tensor value"
    fix_availability = "sometimes"
    default_safety = "safe"
    doc = RuleDoc(
        what="Finds `while` loops whose condition is a tensor value (`while x.max() > 1:`).",
        why="""
            The number of iterations is decided by the values at export time. The legacy
            exporter unrolls the iterations it ran and records no loop (TracerWarning
            "Converting a tensor to a Python boolean"): measured on torch 2.13, `while x.max() >
            1 and n < 10: x = x / 2` is silently wrong on other values. The dynamo exporter
            fails with `GuardOnDataDependentSymNode` ("Data-dependent branching" in strict mode).
            Both are re-measured on the installed torch by tests/test_flow_proofs.py
            (tests/flow_models/while_halve.py, `while x.abs().max() > 1: x = x / 2`).
        """,
        example="""
            def forward(self, x: torch.Tensor):
                while x.abs().max() > 1:
                    x = x / 2
                return x
        """,
        use_instead="""
            def forward(self, x: torch.Tensor):
                # the number of halvings, computed with tensor ops (both exporters; the automatic
                # fix keeps the loop and gives torch.export a while_loop, see below)
                steps = torch.ceil(torch.log2(x.abs().max())).clamp(min=0)
                return x / 2 ** steps
        """,
        fix_safety="""
            A loop whose body only binds plain names to computed values (no attribute or index
            write, no `break`, `return` or in-place call), each name it carries bound before the
            loop, runs as `torch._higher_order_ops.while_loop` while torch.export traces: torch.onnx
            writes it as an ONNX Loop whose trip count the values decide when the model runs
            (tests/flow_models/while_halve.py: dynamo EXPORT-FAILS -> OK on other values and sizes).
            Safe: eager PyTorch (and the legacy tracer, which still unrolls the export-time
            iterations, and torch.compile) runs the loop as written, in the `else` branch, given a
            torch with `torch.compiler.is_exporting` (2.6+, read from the installed package's
            metadata). A loop carrying a value whose shape changes from one step to the next fails
            in while_loop as it failed before. Other loops: no fix; compute the trip count with
            tensor ops, or bound the loop by a constant and select with `torch.where` inside it.
        """,
        references=CONTROL_FLOW_REFERENCES,
    )

    def visit_While(self, node: ast.While, ctx: FunctionContext):
        if tensor_condition(node.test, ctx) is None or in_training_branch(node, ctx):
            return
        fix = while_loop_fix(node, ctx)
        message = ("`while` on a tensor value: the legacy exporter unrolls the iterations run at export time and the "
                   "dynamo exporter fails (GuardOnDataDependentSymNode)")
        if fix is not None:
            message += "; run it as torch's while_loop while torch.export traces (an ONNX Loop; eager and the legacy exporter keep the loop)"
        yield ctx.report(self, node.test, message, fix=fix)


# -- ONX603 -------------------------------------------------------------------------------------


class SizeLoop(Rule):
    code = "ONX603"
    python_hazard = True  # scripted code keeps it dynamic (tests/test_export_guards.py)
    name = "dynamic-size-loop"
    summary = "Python loop (or list repetition) whose trip count is a tensor size"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    doc = RuleDoc(
        what="""
            Finds `for` loops and comprehensions over `range(<size>)` where the size comes from
            a tensor's shape (`range(x.shape[0])`, `range(x.size(1))`, `range(len(t))`, or a
            name holding one), and loops iterating over a tensor itself (`for row in t:`,
            `enumerate(t)`), also inside a call: `rows, cols = zip(*ind)` (udop) iterates over
            the rows of `ind`; and lists repeated a size's number of times (`[meta] * len(inputs)`,
            `[pos_emb] * x.shape[0]`: a loop in all but name; a rank such as `x.ndim - 2` is
            static and not reported).
        """,
        why="""
            A traced loop is unrolled: the exported graph repeats the body as many times as it
            ran at export. Measured on torch 2.13 with `acc = acc + x[i] * (i + 1)`: the legacy
            exporter with `dynamic_axes` silently keeps 3 iterations (no warning at all) and is
            wrong for every other size; the dynamo exporter with `Dim.DYNAMIC` fails ("tracing
            inferred a static shape of 3 for dimension inputs['x'].shape[0]"). Both are right
            only when that dimension is static. `zip(*ind)` over an `(N, 2)` index tensor,
            measured the same way (tests/flow_models/zip_rows.py): dynamo fails the same way,
            and the legacy graph splits `ind` into the export-time N rows, so onnxruntime fails
            on any other N. A list repeated by a size is the same unrolling: OTX's
            `torch.cat([meta] * len(inputs), 0)` (tests/realworld/otx_int_shape_len.py) fails in
            the dynamo exporter with a dynamic batch and fails in onnxruntime after the legacy
            export.
        """,
        example="""
            def forward(self, x):
                acc = torch.zeros_like(x[0])
                for i in range(x.shape[0]):
                    acc = acc + x[i] * 2
                return acc
        """,
        use_instead="""
            def forward(self, x):
                acc = torch.zeros_like(x[0])
                acc = acc + (x * 2).sum(0)
                return acc
        """,
        fix_safety="""
            An accumulation loop is vectorised when its body is one statement `acc = acc + E`,
            `acc += E`, `acc = acc - E` or `acc -= E` and `E` is elementwise in `x[i]` (the
            tensor the range is taken from, indexed by the loop variable and nothing else:
            arithmetic with numbers, `torch.exp`, `.sigmoid()`, ...): `E` is applied to all of
            `x` and summed over dim 0. Always unsafe: a sum reduction adds in a different order
            than the loop, so float results can differ in the last bits; `sum` of int8/int16/
            int32 values accumulates in int64 where the loop wrapped around in the narrow type;
            and `-0.0 + sum([])` is `0.0`.

            A loop that repeats each row a data-dependent number of times (the length
            regulator of FastSpeech-style TTS models) becomes `torch.repeat_interleave`:
            `out = []` / `for i in range(x.shape[0]): out.append(x[i].expand(n[i], -1))` /
            `torch.cat(out, dim=0)` (also `.repeat(n[i], 1)`, `int(n[i])`, `n[i].item()`, and
            the same as a comprehension inside `torch.cat`) becomes
            `torch.repeat_interleave(x, n, dim=0)`, which both exporters translate with the
            output length computed in the graph. Unsafe: it needs `n` to be an integer tensor
            of length `x.shape[0]` and `x` to be 2-D, which static analysis cannot check (the
            loop also accepted a float `n` through `int()`, or a longer `n`).

            `torch.cat([t] * n, d)` (also `n * [t]`, `torch.concat`, and `L = [t] * n` whose only
            use is a later `torch.cat(L, d)` of the same block, the assignment then deleted)
            becomes `t.repeat(...)` with `n` at dimension `d` (literal 1s when `t` is bound to
            `torch.ones(1, 4, 1, 1)`-style literal sizes, else `*[1] * (t.dim() - k)`): safe for a
            tensor name `t` and a literal `d`. Every input the concatenation accepts gives the
            same values, dtype and device (`t` must be a tensor, or `torch.cat` raises); where
            it raised, for a count of 0 (`torch.cat` of an empty list) or a `d` outside the
            rank, `.repeat` may return a tensor instead, so inside a `try` the fix is unsafe.
            The name-bound form is fixed only when neither `t` nor a name of `n` is rebound
            between the assignment and the concatenation: `n` is then evaluated later to the
            same int and `t` is the same tensor the list held. Lists of other elements, or not
            concatenated, are only reported.

            The Mixture-of-Experts loop over the experts a batch hits (Mixtral and most
            transformers MoE blocks): `expert_mask = one_hot(top_k_index, num_classes=N)
            .permute(2, 1, 0)`, `expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)),
            0).nonzero()`, `for expert_idx in expert_hit:` / `expert_idx = expert_idx[0]` becomes
            `for expert_idx in range(N):` (the `expert_idx[0]` line deleted), N a model constant
            (`self.num_experts + 1`, a positive int or `self.<attr>` sum). The hit experts are
            visited in the same ascending order; any other expert's mask row is all zeros, so
            `torch.where` selects no token and `index_add_` of no rows adds nothing. Only a body
            whose one effect is `Y.index_add_(0, token_idx, <computed from the selection>)` with
            `_, token_idx = torch.where(expert_mask[expert_idx])` is rewritten: plain name
            assignments (none carried across experts or read after the loop), `with
            torch.no_grad():`, `expert_idx` used only as an index (an int now, a 0-d tensor
            before: the same `select`) and in `if expert_idx == A: continue`, which must skip the
            padding class when N is `A + 1`. Always unsafe: the body now also runs for experts
            no token is routed to, which needs every weight indexed by `expert_idx` to have a row
            per expert and the model's own calls (`self.act_fn`, ...) to accept an empty batch
            with no other effect. The exporters then see a fixed number of experts, each with a
            data-dependent selection (NonZero), not the export-time routing (`expert_hit`, now
            unused, is left: both exporters accept it).

            Each row's own selection concatenated, `torch.cat([torch.index_select(A[i], 0,
            B[i]).unsqueeze(0) for i in range(n)], dim=0)` (Reformer's axial position
            encodings; also `A[i].index_select(0, B[i])` and `torch.stack([...])`), becomes one
            `A[:n].gather(1, B[:n].long().reshape(n, -1, ...).expand(...))`: the same elements
            copied, so the same values, dtype and device. Unsafe: it needs `A` at least 2-D (a
            1-D `A` has 0-d rows, which index_select takes and gather does not), which the
            source does not show.

            A fill of each row up to (or from) its own length, `for i in range(m.shape[0]):
            m[i, :lengths[i]] = v` (also `m[i][:lengths[i]]`, `m[i, lengths[i]:]`, `for i, n in
            enumerate(lengths)`), with `v` a constant, becomes one in-place
            `m.masked_fill_(arange(m.shape[1]) < lengths[:, None], v)` (`>=` for a suffix; the
            mask broadcast over `m`'s trailing dims; `lengths` through `torch.as_tensor` unless it
            is known to be a tensor). Unsafe: it needs one length per row and no negative length
            (a slice to a negative length counts from the end, the mask compares below every
            position). The part may lie on a later dim behind whole ones (`m[i, :, :n]`), and the
            bound may be computed in the loop from the row's number (MMOCR's `valid_width = min(w,
            math.ceil(w * valid_ratio))`): with `+ - * /`, `math.ceil` / `math.floor` / `int` /
            `round` and `min` / `max` with a number, the same math runs on a float64 tensor of the
            rows' numbers (Python's doubles: the same values, integral where the slice needed an
            int; row_bounds.py). A list built as `[c for _ in range(n)]` and read only as the data
            of `torch.as_tensor(..., dtype=...)` becomes `torch.full((n,), c, dtype=torch.float64)`
            (int64 for an int `c`): the same tensor once converted, safe (tests/flow_models/
            valid_width_mask.py: dynamo fails and legacy is silently wrong before, both OK after).

            A loop whose statements each write a reduction of row `i` over its own length into row
            `i` of a tensor, `out[i, :] = x[i, :, :lengths[i]].mean(dim=1)` (`sum`, `mean`, `var`,
            `std`; a literal `dim` that includes the cut one, or none), runs while exporting
            (`torch.onnx.is_in_onnx_export()`, both exporters) as the same reductions over a mask
            of the lengths for all rows at once; eager runs the loop as written, so it is safe
            (Jasper's and NeMo's normalize_batch; tests/flow_models/length_statistics.py).

            One function applied to every row and stacked, `torch.stack([f(A[i], B[i]) for i in
            range(len(A))])` or `torch.stack([g(x) for x in X])` (or `X.unbind(0)`; kornia's per-sample augmentations;
            any literal `dim`), becomes `(torch.vmap(lambda a, b: f(a, b))(A, B) if
            torch.compiler.is_exporting() else <the comprehension>)`: the loop index only as a row
            index of tensor names or attributes, one of them the tensor whose rows the range
            counts. Eager and the legacy exporter keep the loop (the legacy tracer records vmap's
            batching with the example's sizes; measured on torch 2.13, onnxruntime then fails for
            other batches); torch.export traces the per-row expression batched, the batch kept
            symbolic. Unsafe: vmap refuses a row function that reads a Python value out of a
            tensor or branches on one (an export failure, which `onnxfix export --fix` does not
            keep), needs every mapped tensor to have as many rows as the loop ran, and its
            batching rules may compute in another order than the rows one by one (the export's
            comparison with eager shows it; tests/flow_models/per_sample_blend.py).

            The row numbers as a list used as an index (`idx = [[x] for x in range(n)]` then
            `h[idx, positions, :]`; also the flat `[x for x in range(n)]`, alone as the index
            too) become `torch.arange(n)` (`.unsqueeze(1)` for the one-element lists): indexing
            converts the list into that int64 tensor first, so the index op and its values are
            the same. Safe when every indexed value is known to be a tensor (unsafe otherwise:
            a NumPy array indexed by a tensor is not the same); a list of lists as the whole
            index (read as a tuple of indices), a list also used as a list, or an index write
            is left alone.

            A recurrence over a size (`for t in range(x.shape[1]):` stepping a state, `h =
            cell(x[:, t], h)`, and appending each step's output to a list that a `torch.stack` or
            `torch.cat` right after the loop reads: Mamba's selective scan, RNN cells stepped by
            hand) runs as `torch._higher_order_ops.scan` while torch.export traces (`if
            torch.compiler.is_exporting():`), the loop and its stack kept unchanged in the `else`
            branch: eager and the legacy exporter run the original code, and torch.onnx
            translates the scan to an ONNX Scan whose trip count follows the input. The body
            must be name assignments and appends, the index used only as the one integer
            position of `x[:, t]`-style subscripts (the stepped tensors cut to the range's
            bounds), names carried across steps bound before the loop, and no other name of the
            body read after it. A loop over the batch that cuts each item to its own length and
            reduces it (Jasper's `x_mean[i, :] = x[i, :, :seq_len[i]].mean(dim=1)`; a tensor
            written at its own row after the step read that row, `x[b] = x[b] - x[b, :n[b]]
            .mean(0)`) runs the same way: the length is a step input and the slice to it a
            data-dependent size inside the step (not taken when the cut slice is itself the
            step's output: each step's would have its own shape). Unsafe: torch.export's scan needs every carried value to be a
            tensor keeping its shape and dtype from step to step, which the source does not
            show; the legacy exporter still unrolls the loop (the finding stays, for it alone).

            A loop over the batch in chunks, to bound memory (diffusers' sliced attention, `for i
            in range((n - 1) // self.slice_size + 1)` cutting rows `i * s:(i + 1) * s`; ComfyUI's
            VAE decoded `for x in range(0, n, batch_number)`, rows `x:x + batch_number`; also
            `math.ceil(n / s)`, `(n + s - 1) // s`, `-(-n // s)` chunks; and a given number of
            chunks of the ceiling share, TabPFN's `for i in range(num_iterations)` with
            `sub_batch = (n + num_iterations - 1) // num_iterations`), becomes `for i, _onnx_step
            in _onnx_batch_chunks(...)` with the step in the body `_onnx_step`: in eager the same
            starts and step; while an exporter traces (`torch.compiler.is_exporting()` or
            `torch.onnx.is_in_onnx_export()`) one chunk of the whole batch, so the batch stays
            symbolic (torch.export) and is not unrolled (legacy). The index may only cut rows (the
            first subscript of every slice it bounds, both bounds given, directly or through names
            the body binds to `i * s` / `(i + 1) * s`), no `break` or `return`, and is not read
            after the loop. The same for the batch split into parts of a size and concatenated
            again (diffusers' sliced VAE, `decoded_slices = [self.decoder(z) for z in
            z.split(1)]; torch.cat(decoded_slices)`; also `torch.split(x, k)`, dim 0, the list
            inside `torch.cat(..., dim=0)` or bound to a name only concatenated; or a statement
            loop over the parts, directly or through a name bound once to the split, whose results
            are appended to lists only concatenated along rows after it and whose other names
            are not read after it: Wan-Animate's `for face_batch in face_batches:
            out.append(self.motion_encoder(face_batch))`, the part size an int by the code or by a
            recorded run): the split
            becomes `_onnx_batch_split(x, k)`, the parts in eager and the whole batch as one part
            while an exporter traces; and inference in batches concatenated the same way
            (`torch.cat([self.model(x[i:i + bs]) for i in range(0, len(x), bs)])`) takes the
            chunk loop's `_onnx_batch_chunks` header. A split by a list of sizes (one part per
            image: Mistral3's `split(tokens_per_image)`) is reported without a fix. Unsafe: the whole batch at once gives the rows the chunks
            gave only when the body treats every row on its own (no statistic over a chunk's
            rows), which the source does not show (the export's comparison with eager checks it;
            tests/flow_models/chunked_batch.py, tests/flow_models/sliced_decode.py,
            tests/flow_models/split_loops.py).

            `zip(*t)` is only reported: `t.unbind(1)` gives the columns as tensors, where zip
            gave tuples of 0-d tensors (not the same value for every use). Other loops are only
            reported: vectorise them by hand (`torch.arange` for the index,
            a `cumsum`, or `torch.cat` of masked parts).
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-python-control-flow",
            "https://github.com/pytorch/pytorch/issues/99701",
            "https://github.com/ming024/FastSpeech2/blob/master/model/modules.py",
            "https://github.com/huggingface/transformers/blob/main/src/transformers/models/mixtral/modeling_mixtral.py",
        ),
    )

    def visit_For(self, node: ast.For, ctx: FunctionContext):
        described = dynamic_iteration(node.iter, ctx)
        if described is None:
            yield from self._over_size_long_list(node, ctx)
            return
        if in_training_branch(node, ctx):
            return
        message = (
            f"loop over {described}: unrolled at export (legacy: silently, for the export-time "
            f"size; dynamo: fails when that dimension is dynamic, 'tracing inferred a static shape')"
        )
        fix, why = vectorised_accumulation(node, ctx) or repeated_rows_loop(node, ctx), ""
        if fix is None:
            fix, why = scatter_loop(node, ctx)
        if fix is None:
            fix, why = expert_loop(node, ctx)
        if fix is None:
            fix, why = length_fill_loop(node, ctx)
        if fix is None:
            fix, why = length_reduction_loop(node, ctx)
        if fix is None:
            fix, why = scan_loop(node, ctx)
        if fix is None:
            fix, why = chunk_loop(node, ctx)
        if fix is None:
            fix, why = chunk_split_loop(node, ctx)
        if fix is None:
            message += NO_LOOP_FIX
        elif why:
            message += f"; fix is unsafe: {why}"
        yield ctx.report(self, node, message, fix=fix)

    def _over_size_long_list(self, node: ast.For, ctx: FunctionContext):
        """`for i, r in enumerate(valid_ratios)` over a list built one element per row: reported
        where the loop itself has a fix (the list's comprehension is reported where it is built)."""
        iterable = node.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
                and iterable.args:
            iterable = iterable.args[0]
        described = size_long_list(iterable, ctx)
        if described is None or in_training_branch(node, ctx):
            return
        fix, why = length_fill_loop(node, ctx)
        if fix is not None:
            message = (f"loop over {described}: unrolled at export (legacy: silently, for the export-time size; "
                       f"dynamo: fails when that dimension is dynamic, 'tracing inferred a static shape')")
            yield ctx.report(self, node, message + (f"; fix is unsafe: {why}" if why else ""), fix=fix)

    def visit_comprehension(self, node: ast.comprehension, ctx: FunctionContext):
        described = dynamic_iteration(node.iter, ctx)
        if described is None or in_training_branch(node.iter, ctx):
            return
        message = (
            f"comprehension over {described}: unrolled at export (legacy: silently, for the "
            f"export-time size; dynamo: fails when that dimension is dynamic)"
        )
        fix, why = repeated_rows_comprehension(node, ctx), ""
        if fix is None:
            fix, why = gathered_rows_comprehension(node, ctx)
        if fix is None:
            fix, why = row_picks_comprehension(node, ctx)
        if fix is None:
            fix, why = index_range_comprehension(node, ctx)
        if fix is None:
            fix, why = number_rows_comprehension(node, ctx)
        if fix is None:
            fix, why = batched_map_comprehension(node, ctx)
        if fix is None:
            fix, why = chunk_split_comprehension(node, ctx)
        if fix is None:
            fix, why = chunk_range_comprehension(node, ctx)
        if fix is None:
            message += NO_LOOP_FIX
        elif why:
            message += f"; fix is unsafe: {why}"
        yield ctx.report(self, node.iter, message, fix=fix)

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        """`[t] * n`: a list as long as a size, built by repetition (a loop in all but name)."""
        if not isinstance(node.op, ast.Mult):
            return
        for listed, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(listed, (ast.List, ast.Tuple)) and (is_size_bound(count, ctx) or size_on_some_path(count, ctx)) \
                    and not rank_only(count, ctx):
                break
        else:
            return
        if in_training_branch(node, ctx):
            return
        fix, why = repeated_list(node, ctx)
        message = (
            f"list repeated `{ctx.segment(count)}` times, a tensor size: its length is fixed at export (legacy: "
            f"silently, for the export-time size; dynamo: fails when that dimension is dynamic)"
        )
        if why:
            message += f"; fix is unsafe: {why}" if fix else f"; no automatic fix: {why}"
        yield ctx.report(self, node, message, fix=fix)

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        """`zip(*t)`: the star iterates over the rows of ``t`` while the call is made."""
        if not (isinstance(node.func, ast.Name) and node.func.id == "zip" and ctx.is_builtin("zip")):
            return
        for argument in node.args:
            described = tensor_iterable(argument.value, ctx) if isinstance(argument, ast.Starred) else None
            if described is not None and not in_training_branch(node, ctx):
                message = (
                    f"`{ctx.segment(node)}` iterates over {described}: unrolled at export (legacy: for the "
                    f"export-time row count; dynamo: fails when that dimension is dynamic, 'tracing inferred "
                    f"a static shape')"
                )
                yield ctx.report(self, node, message + NO_LOOP_FIX)
                return


# Why a loop over a dynamic size keeps no fix: the forms the rule rewrites are exact; any
# other body would need its semantics proven elementwise, which text analysis cannot do.
NO_LOOP_FIX = (
    "; no automatic fix: only an elementwise accumulation (`acc = acc + f(x[i])`), a repeat of "
    "rows, a per-row `index_select` concatenated, a scatter by an index (`a[idx[i]] = i`), a fill of each row up to its "
    "length (`mask[i, :lengths[i]] = 0`), the row numbers as an index (`h[[[i] for i in range(n)], j]`) "
    "or a mixture-of-experts loop over the experts "
    "hit (`for e in expert_hit:` with a one-hot routing mask) is rewritten exactly, a recurrence "
    "appending each step to a list stacked after the loop runs as a torch scan under torch.export, and "
    "one function of each row stacked (`torch.stack([f(x[i]) for i in range(len(x))])`) as torch.vmap under "
    "torch.export, and a loop over the batch in chunks (`out[i:i + n] = f(x[i:i + n])`) as one chunk under export; "
    "vectorise the body over the dimension by hand"
)
