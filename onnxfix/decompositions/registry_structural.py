"""Exact structural rewrites (statistics, index reductions, losses) and the dynamo exporter's silent bugs."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition  # noqa: F401 - used by entries

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    # ---- ONX516: the dynamo exporter exports these silently wrong ----
    Decomposition(
        "scatter_reduce", ("torch.scatter_reduce", "Tensor.scatter_reduce"), True,
        ("scatter_reduce mean", "scatter_reduce mean include_self=False"),
        (PYTORCH + "147617", PYTORCH + "101535", PYTORCH + "86684", "https://github.com/onnx/onnx/issues/5100"),
        "reduce=\"mean\" only (other reductions run unchanged): a sum scatter divided by a count "
        "scatter, as ATen (count starts at 1 with include_self, 0 -> 1, floor division for "
        "integer dtypes). Bit-identical in eager for float and integer dtypes.",
    ),
    Decomposition(
        "scatter_reduce_", ("Tensor.scatter_reduce_",), True, ("Tensor.scatter_reduce_ mean",), (),
        "The in-place form: _onnx_scatter_reduce's result copied into `input` (returned, as torch).",
        requires=("scatter_reduce",),
    ),
    Decomposition(
        "cross_entropy", ("torch.nn.functional.cross_entropy",), True,
        ("cross_entropy label_smoothing", "cross_entropy label_smoothing weight",
         "cross_entropy label_smoothing probabilities"), (),
        "label_smoothing > 0: ATen's formula, (1 - ls) * nll_loss + ls / C * the smoothing term, "
        "with weight=, ignore_index=, every reduction, and class-probability targets. With "
        "weight= and reduction=\"mean\" the weight total is summed with the ignored targets "
        "zeroed instead of dropped (1 ulp differences); otherwise bit-identical.",
        when_present=("label_smoothing", 7),
    ),
    # ---- ONX515: structural ops that fail to export ----
    Decomposition(
        "cov", ("torch.cov", "Tensor.cov"), True, ("cov",), (PYTORCH + "107016", PYTORCH + "107015"),
        "ATen's formula (weighted mean, correction, fweights/aweights, <= 0 degrees of freedom "
        "give inf/NaN) without the value checks that make torch.export fail; invalid weights "
        "(negative, zero total) are not diagnosed. Same matmul as eager.",
    ),
    Decomposition(
        "corrcoef", ("torch.corrcoef", "Tensor.corrcoef"), True, ("corrcoef",), (),
        "Covariance normalised by the standard deviations and clipped to [-1, 1], as ATen.",
        requires=("cov",),
    ),
    Decomposition(
        "index_reduce", ("Tensor.index_reduce",), True, ("index_reduce amax", "index_reduce mean"), (),
        "scatter_reduce over the 1-D index expanded to source's shape; mean as _onnx_scatter_reduce; "
        "include_self=False starts the indexed positions from the reduction's identity.",
        requires=("scatter_reduce",),
    ),
    Decomposition(
        "index_reduce_", ("Tensor.index_reduce_",), True, ("Tensor.index_reduce_ amin",), (),
        "The in-place form: _onnx_index_reduce's result copied into `input` (returned, as torch).",
        requires=("index_reduce",),
    ),
    Decomposition(
        "vander", ("torch.vander",), True, ("vander",), (),
        "The same sequential products as ATen's cumprod, unrolled over the static column count N "
        "(the graph grows with N); integer and bool inputs give int64, as torch.",
    ),
    Decomposition(
        "combinations", ("torch.combinations",), True, ("combinations",), (),
        "Index tuples built in Python from the static input length n (a constant of C(n, r) rows "
        "in the graph); the input length must be static at export time.",
    ),
    Decomposition(
        "pdist", ("torch.nn.functional.pdist", "torch.pdist"), True, ("pdist",), (),
        "Row pairs i < j from triu_indices of the static row count, then ATen's p-norm formulas "
        "(p = 0, 1, 2, inf, general); O(n^2 * m) memory. Agrees with eager to float rounding "
        "(the reduction order over columns may differ).",
    ),
    Decomposition(
        "narrow", ("torch.narrow", "Tensor.narrow"), True, ("narrow tensor start",), (),
        "A tensor `start` becomes index_select(start + arange(length)); an int start runs "
        "torch.narrow unchanged. An out-of-range start is not diagnosed (torch raises).",
    ),
    Decomposition(
        "masked_select", ("torch.masked_select", "Tensor.masked_select"), True, ("masked_select",),
        (PYTORCH + "26034", PYTORCH + "27959"),
        "Boolean indexing of the broadcast pair (`input[mask]`): the same elements in the same "
        "order, a data-dependent output size that both exporters express (NonZero). Bit-identical.",
    ),
    Decomposition(
        "unique_consecutive", ("torch.unique_consecutive", "Tensor.unique_consecutive"), True,
        ("unique_consecutive", "unique_consecutive dim"), (PYTORCH + "112718", "https://github.com/microsoft/onnxscript/pull/1547"),
        "A slice is kept where it differs (`!=`) from its predecessor along `dim` (the flattened "
        "input without `dim`), selected by boolean indexing; return_inverse is the running count "
        "of kept slices, return_counts the distance between kept positions. NaN starts a new group, "
        "as torch. Bit-identical.",
    ),
    Decomposition(
        "rfftfreq", ("torch.fft.rfftfreq",), True, ("fft.rfftfreq",), (),
        "ATen's formula, arange(n // 2 + 1) * (1 / (n * d)) with the reciprocal in double: "
        "bit-identical. `n` may be a size read from the input (it stays symbolic under dynamo).",
    ),
    Decomposition(
        "ctc_loss", ("torch.nn.functional.ctc_loss",), True, ("ctc_loss",), (),
        "ATen's alpha recursion in log space over all T steps and 2S+1 extended labels for every "
        "sample (T and the padded target length S static; batch dynamic); the per-sample "
        "lengths select the result by gathers. Same log-sum-exp steps as ATen; torch's "
        "vectorised exp/log may round differently from the kernel's scalar ones. The graph "
        "grows with T.",
    ),
)
