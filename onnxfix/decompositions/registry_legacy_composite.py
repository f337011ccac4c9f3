"""Composite ops (ATen implements them with other ops) that the legacy (TorchScript) exporter
records as themselves and has no symbolic for, found by the op_db probe (every argument pattern
fails: docs/opdb.md): layout helpers (ONX519) and elementwise math and losses (ONX517). The dynamo
exporter decomposes each, so every helper keeps the op under dynamo (and in eager)."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof, proven

GUARDED = " Eager and dynamo keep the op (guarded helper)."


def _record(key, targets, notes, rule, original, inputs, **kwargs):
    return proven(key, targets, notes + GUARDED, rule, original, inputs, **kwargs)


F = "torch.nn.functional."
LOSS = ("loss_reduce",)
DECOMPOSITIONS: tuple[Decomposition, ...] = (
    # ---- layout (ONX519) ------------------------------------------------------------------------
    _record("fliplr", ("torch.fliplr", "Tensor.fliplr"), "flip(1).", "ONX519", "torch.fliplr(a)", "(randn(g, b, 4, 3),)", tol=0.0, scripted="{input}.flip(1)"),
    _record("flipud", ("torch.flipud", "Tensor.flipud"), "flip(0).", "ONX519", "torch.flipud(a)", "(randn(g, b, 4, 3),)", tol=0.0, scripted="{input}.flip(0)"),
    _record("ravel", ("torch.ravel", "Tensor.ravel"), "reshape(-1).", "ONX519", "torch.ravel(a)", "(randn(g, b, 4, 3),)", tol=0.0, scripted="{input}.contiguous().view(-1)"),
    _record("positive", ("torch.positive", "Tensor.positive"), "the input itself.", "ONX519", "torch.positive(a)",
            "(randn(g, b, 4),)", tol=0.0),
    _record("column_stack", ("torch.column_stack",), "0-d and 1-d tensors as columns, then cat along 1.", "ONX519",
            "torch.column_stack((a, c[:, 0], a))", "(randn(g, b, 3), randn(g, b, 2))", params="a, c", tol=0.0),
    _record("dstack", ("torch.dstack",), "each tensor at least 3-d, then cat along 2.", "ONX519",
            "torch.dstack((a, c))", "(randn(g, b, 3), randn(g, b, 3, 2))", params="a, c", tol=0.0),
    _record("hsplit", ("torch.hsplit", "Tensor.hsplit"), "tensor_split along 1 (0 for 1-d tensors).", "ONX519",
            "torch.cat(torch.hsplit(a, 2)[::-1], 1)", "(randn(g, b, 6),)", tol=0.0),
    _record("vsplit", ("torch.vsplit", "Tensor.vsplit"), "tensor_split along 0.", "ONX519",
            "torch.cat(torch.vsplit(a.transpose(0, 1), [1, 3])[::-1], 0).transpose(0, 1)", "(randn(g, b, 6),)", tol=0.0),
    _record("dsplit", ("torch.dsplit", "Tensor.dsplit"), "tensor_split along 2.", "ONX519",
            "torch.cat(torch.dsplit(a, [1, 3])[::-1], 2)", "(randn(g, b, 2, 6),)", tol=0.0),
    # The legacy unflatten exports (a Reshape of a computed shape), but its result keeps the traced
    # shape: a size read from it later is a constant (Video Depth Anything's (B, T) frames,
    # Flux's heads), so another input size fails in onnxruntime or comes out wrong.
    _record("unflatten", ("torch.unflatten", "Tensor.unflatten"), "a view of the sizes spliced into the shape "
            "(what ATen's unflatten is), whose sizes the legacy exporter keeps as graph values.", "ONX519",
            "(z := torch.unflatten(a, 1, (2, -1))).reshape(z.shape[0], -1)", "(randn(g, b, 6, 4),)", tol=0.0,
            cases=("unflatten then a size",), evidence=("https://github.com/huggingface/optimum-onnx/pull/42",
                      "https://github.com/DepthAnything/Video-Depth-Anything/issues/22")),
    _record("argwhere", ("torch.argwhere", "Tensor.argwhere"), "nonzero (what argwhere is).", "ONX519",
            "torch.argwhere(a > 0).float()", "(randn(g, b, 5),)", tol=0.0, scripted="torch.nonzero({input})"),
    _record("channel_shuffle", ("torch.nn.functional.channel_shuffle", "torch.channel_shuffle"),
            "(n, g, c/g, ...) with the group axes swapped (`nn.ChannelShuffle`'s forward).", "ONX519",
            "torch.nn.functional.channel_shuffle(a, 2)", "(randn(g, b, 6, 3, 2),)", tol=0.0),
    _record("diagflat", ("torch.diagflat", "Tensor.diagflat"), "diag of the flattened input (_onnx_diag).", "ONX519",
            "torch.diagflat(a[0], 1) @ c", "(randn(g, b, 2, 2), randn(g, 5, 3))", params="a, c", static=(1,),
            requires=("diag",), tol=0.0),
    # ---- math (ONX517) --------------------------------------------------------------------------
    _record("inner", ("torch.inner", "Tensor.inner"), "a matmul of both flattened to (rows, k).", "ONX517",
            "torch.inner(a, c)", "(randn(g, b, 2, 4), randn(g, 3, 4))", params="a, c", static=(1,)),
    _record("vdot", ("torch.vdot", "Tensor.vdot"), "sum(conj(a) b).", "ONX517", "torch.vdot(a[0], c) + a",
            "(randn(g, b, 5), randn(g, 5))", params="a, c", static=(1,)),
    _record("addmv", ("torch.addmv", "Tensor.addmv"), "beta input + alpha (mat @ vec).", "ONX517",
            "torch.addmv(a[0], c, a[1], beta=0.5, alpha=2.0) + a", "(randn(g, b, 3), randn(g, 3, 3))", params="a, c",
            static=(1,)),
    _record("addr", ("torch.addr", "Tensor.addr"), "beta input + alpha outer(vec1, vec2).", "ONX517",
            "torch.addr(c, a[0], a[1], alpha=2.0).sum() + a", "(randn(g, b, 3), randn(g, 3, 3))", params="a, c",
            static=(1,)),
    _record("isclose", ("torch.isclose", "Tensor.isclose"), "equal, or finite and within atol + rtol |other|; NaN "
            "equal with equal_nan.", "ONX517", "torch.isclose(a, c, rtol=0.1, atol=0.05)",
            "(randn(g, b, 8), randn(g, b, 8))", params="a, c", tol=0.0),
    _record("isposinf", ("torch.isposinf", "Tensor.isposinf"), "x == +inf.", "ONX517", "torch.isposinf(a)",
            "(specials(g, b, 6),)", tol=0.0),
    # ---- losses (ONX517): reduction "none" / "mean" / "sum"; the deprecated size_average / reduce run the op --
    _record("l1_loss", (F + "l1_loss",), "|input - target|.", "ONX517", F + "l1_loss(a, c, reduction='none')",
            "(randn(g, b, 5), randn(g, b, 5))", params="a, c", requires=LOSS),
    _record("smooth_l1_loss", (F + "smooth_l1_loss",), "0.5 d^2 / beta below beta, d - beta / 2 above.", "ONX517",
            F + "smooth_l1_loss(a, c, reduction='none', beta=0.5)", "(randn(g, b, 5), randn(g, b, 5))", params="a, c",
            requires=LOSS),
    _record("huber_loss", (F + "huber_loss",), "0.5 d^2 below delta, delta (d - delta / 2) above.", "ONX517",
            F + "huber_loss(a, c, reduction='none', delta=0.7)", "(randn(g, b, 5), randn(g, b, 5))", params="a, c",
            requires=LOSS),
    _record("binary_cross_entropy", (F + "binary_cross_entropy",), "-(t log x + (1 - t) log(1 - x)), logs clamped "
            "at -100.", "ONX517", F + "binary_cross_entropy(torch.sigmoid(a), torch.sigmoid(c), reduction='none')",
            "(randn(g, b, 5), randn(g, b, 5))", params="a, c", requires=LOSS),
    _record("margin_ranking_loss", (F + "margin_ranking_loss",), "max(0, -y (x1 - x2) + margin).", "ONX517",
            F + "margin_ranking_loss(a, c, torch.sign(a - 0.3), margin=0.2, reduction='none')",
            "(randn(g, b, 5), randn(g, b, 5))", params="a, c", requires=LOSS),
    _record("cosine_embedding_loss", (F + "cosine_embedding_loss",), "ATen's cosine with 1e-12 in each squared "
            "norm: 1 - cos for y = 1, max(0, cos - margin) for y = -1.", "ONX517",
            F + "cosine_embedding_loss(a, c, torch.sign(a[:, 0]), margin=0.1, reduction='none')",
            "(randn(g, b, 5), randn(g, b, 5))", params="a, c", requires=LOSS),
    _record("pairwise_distance", (F + "pairwise_distance", "torch.pairwise_distance"), "||x1 - x2 + eps||_p over the "
            "last dim (torch.linalg.vector_norm); the legacy symbolic has no |.| and puts eps on the exponent.",
            "ONX517", F + "pairwise_distance(a, c, p=1.0)",
            "(randn(g, b, 5), randn(g, b, 5))", params="a, c"),
    _record("triplet_margin_loss", (F + "triplet_margin_loss",), "max(0, margin + d(a, p) - d(a, n)) with "
            "pairwise_distance (swap: the smaller negative distance).", "ONX517",
            F + "triplet_margin_loss(a, c, a.flip(0), p=1, swap=True, reduction='none')",
            "(randn(g, b, 5), randn(g, b, 5))", params="a, c", requires=(*LOSS, "pairwise_distance")),
    _record("soft_margin_loss", (F + "soft_margin_loss",), "log(1 + exp(-y x)).", "ONX517",
            F + "soft_margin_loss(a, torch.sign(c), reduction='none')", "(randn(g, b, 5), randn(g, b, 5))",
            params="a, c", requires=LOSS),
    _record("hinge_embedding_loss", (F + "hinge_embedding_loss",), "x where y != -1 plus max(0, margin - x) where "
            "y != 1.", "ONX517", F + "hinge_embedding_loss(a, torch.sign(c), margin=0.5, reduction='none')",
            "(randn(g, b, 5), randn(g, b, 5))", params="a, c", requires=LOSS),
    _record("poisson_nll_loss", (F + "poisson_nll_loss",), "exp(x) - t x (log_input), else x - t log(x + eps); "
            "Stirling's term with full.", "ONX517",
            F + "poisson_nll_loss(a, c.abs() * 3, full=True, reduction='none')", "(randn(g, b, 5), randn(g, b, 5))",
            params="a, c", requires=LOSS),
    Decomposition(
        "as_strided", ("torch.as_strided", "Tensor.as_strided"), True, (),
        ("https://github.com/k2-fsa/icefall/pull/796", "https://github.com/khanld/chunkformer/pull/42"),
        "as_strided of a contiguous tensor as a gather from the tensor flattened at offset + sum(i_k * stride_k) "
        "(the same values, copied), while the legacy exporter traces: its symbolic takes sizes, strides and the "
        "offset only as constants (\"Expected node type 'onnx::Constant' for argument 'offset' of node "
        "'as_strided'\"), and conformers' relative shift computes them from sizes (with ONX208's strides of "
        "the traced sizes). Export time only, named by that error; `--write` rewrites the calls the run "
        "decomposed. Eager, torch.export and views of other storage keep the op.",
        static=False, rule="ONX519", repairs_error=r"of node 'as_strided'",
        site_applies=lambda args, kwargs: args[0].is_contiguous() and args[0].storage_offset() == 0,
        proof=Proof("a.as_strided((a.shape[0], 3, 3), (12, 3, 1), 2)",
                    "_onnx_as_strided(a, (a.shape[0], 3, 3), (12, 3, 1), 2)", "(randn(g, b, 3, 4),)"),
    ),
)
SUPPORT: tuple[str, ...] = ("loss_reduce", "strides")  # helpers that decompose nothing on their own
# strides: ONX208's `x.stride()` of the traced or symbolic sizes
