"""Ops that read a number out of a tensor (a pad value, an attention scale computed in the graph),
or whose reference decomposition asks a yes/no of a data-dependent size (nll_loss: are there any
rows?): ATen takes the value as a Python number or bool, which torch.export cannot decide ("Could
not guard on data-dependent expression") and the legacy exporter records as a constant. Export time
only: the run's calls with a tensor there are the ones rewritten (site_applies); a data-dependent
guard names a record only where it was raised inside its op (repairs_at)."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof, call_argument

# a number read out of a tensor (u0: an int or bool, zuf0: a float) that a guard needed
_READ_NUMBER = r"Could not (guard on|extract specialized integer from) data-dependent expression"
# torch._refs' nll_loss: `if input.numel() == 0 and target.numel() == 0` on rows a mask selected
_NLL_REFERENCE = r"torch/_refs/nn/functional/__init__\.py:nll_loss$"
_LOSS_EVIDENCE = ("https://github.com/pytorch/pytorch/issues/111252",)


DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "sdpa_tensor_scale", ("torch.nn.functional.scaled_dot_product_attention",), True, (),
        ("https://github.com/DataZooDE/anofox-tabfm/blob/2b46f22485db1d34cf2600b4cfde0048af45328d/tools/"
         "export_tabdpt/src/export_tabdpt/tabdpt_patches.py",),
        "Attention whose `scale=` is a tensor (a temperature computed from the context's length): the op "
        "reads it as a Python float, which torch.export cannot decide (\"Could not guard on data-dependent "
        "expression zuf0\") and the legacy exporter records as a constant. While exporting, ATen's math "
        "path with the scale a graph value (the square root of its magnitude on q and on k, the mask or "
        "causal triangle, fully masked rows zeros). Export time only, keyed on a float read out of a "
        "tensor; calls whose scale is a number run the op. Eager keeps the op.",
        static=False, rule="ONX515", repairs_error=r"Could not guard on data-dependent expression zuf\d+",
        site_applies=lambda args, kwargs: type(kwargs.get("scale")).__name__ == "Tensor",
        proof=Proof("torch.nn.functional.scaled_dot_product_attention(a, c, c, scale=c[0, 0, 0, 0].abs() + 0.1)",
                    "_onnx_sdpa_tensor_scale(a, c, c, scale=c[0, 0, 0, 0].abs() + 0.1)",
                    "(randn(g, b, 2, 4, 8), randn(g, b, 2, 6, 8))", params="a, c", decomposition_tol=1e-5),
    ),
    Decomposition(
        "pad_tensor_value", ("torch.nn.functional.pad",), True, (),
        ("https://github.com/lucidrains/x-transformers/commit/4e1a52034ef0b54c281b47a637706e8068df0c1b",),
        "A constant pad whose `value=` is a tensor (x-transformers extending a mask over memory tokens "
        "with `value=torch.any(mem)`): ATen reads the value as a number, which torch.export cannot decide "
        "and the legacy exporter records as a constant. While exporting, the zero-padded input and the "
        "value where a mask padded alike is zero (exact: values are selected). Export time only, keyed on "
        "a number read out of a tensor (dynamo) or on a Pad node first differing from eager (legacy); calls "
        "whose value is a number run the op. Eager keeps the op.",
        static=False, rule="ONX515", repairs_error=_READ_NUMBER, repairs_at=r"torch/nn/functional\.py:pad$", repairs_divergence=r"^Pad ",
        one_pattern=True,
        site_applies=lambda args, kwargs: type(call_argument(args, kwargs, 3, "value")).__name__ == "Tensor",
        proof=Proof("torch.nn.functional.pad(a, (1, 2, 0, 1), value=a.amax())",
                    "_onnx_pad_tensor_value(a, (1, 2, 0, 1), value=a.amax())",
                    "(randn(g, b, 3, 4),)", params="a"),
    ),
    Decomposition(
        "nll_rows", ("torch.nn.functional.nll_loss",), True, (), _LOSS_EVIDENCE,
        "nll_loss of a data-dependent number of rows (the pixels a boolean mask keeps): torch's reference "
        "decomposition first asks whether input and target are empty, which torch.export cannot decide "
        "on an unbacked size (the dynamo exporter fails in its decomposition step). While exporting, "
        "ATen's formula without that question: the target's log-probability gathered, weighted, ignored "
        "targets zeroed, the mean divided by the kept weights (NaN for no rows, as ATen; its sums in "
        "another order: float rounding). Export time only, keyed on a guard raised inside that "
        "reference; every such call the run made is written into the source. Eager keeps the op.",
        static=False, rule="ONX515", repairs_error=_READ_NUMBER, repairs_at=_NLL_REFERENCE,
        site_applies=lambda args, kwargs: True,
        proof=Proof("torch.nn.functional.nll_loss(a[a[:, 0] > 0], t[a[:, 0] > 0], ignore_index=2)",
                    "_onnx_nll_rows(a[a[:, 0] > 0], t[a[:, 0] > 0], ignore_index=2)",
                    "(randn(g, b, 5), ints(g, 0, 5, b))", params="a, t", decomposition_tol=1e-6),
    ),
    Decomposition(
        "cross_entropy_rows", ("torch.nn.functional.cross_entropy",), True, (), _LOSS_EVIDENCE,
        "cross_entropy of a data-dependent number of rows (AdaptSegNet's CrossEntropy2d over the "
        "labelled pixels): its nll_loss half stops torch.export's decomposition as nll_rows says. While "
        "exporting, log_softmax over the classes and _onnx_nll_rows; class-probability targets and "
        "label smoothing run the op. Export time only, keyed as nll_rows. Eager keeps the op.",
        static=False, rule="ONX515", repairs_error=_READ_NUMBER, repairs_at=_NLL_REFERENCE,
        requires=("nll_rows",),
        site_applies=lambda args, kwargs: True,
        proof=Proof("torch.nn.functional.cross_entropy(a[a[:, 0] > 0], t[a[:, 0] > 0], reduction='sum')",
                    "_onnx_cross_entropy_rows(a[a[:, 0] > 0], t[a[:, 0] > 0], reduction='sum')",
                    "(randn(g, b, 5), ints(g, 0, 5, b))", params="a, t", decomposition_tol=1e-6),
    ),
)
