"""Export cases of the structural decompositions (onnxfix/decompositions/registry_structural.py),
read by tests/decomposition_exports.py (format: tests/decomposition_cases_core.py)."""

import torch

F = "torch.nn.functional."


def randn(g, *shape):
    return torch.randn(*shape, generator=g)


def ints(g, low, high, *shape):
    return torch.randint(low, high, shape, generator=g)


def probabilities(g, *shape):
    return torch.softmax(torch.randn(*shape, generator=g), -1)


# key: (original expression, helper expression, inputs(g, batch) -> tuple, dynamic batch?)
CASES = {
    "scatter_reduce": (
        "torch.scatter_reduce(a, 1, i, c, 'mean', include_self=False) + a.scatter_reduce(1, i, c, 'mean') + torch.scatter_reduce(j, 1, i, k, 'mean')",
        "_onnx_scatter_reduce(a, 1, i, c, 'mean', include_self=False) + _onnx_scatter_reduce(a, 1, i, c, 'mean') + _onnx_scatter_reduce(j, 1, i, k, 'mean')",
        lambda g, b: (randn(g, b, 5), ints(g, 0, 5, b, 4), randn(g, b, 6), ints(g, -20, 20, b, 5), ints(g, -20, 20, b, 4)),
        True,
    ),
    "scatter_reduce_": (
        "torch.zeros_like(a).scatter_reduce_(1, i, c, 'mean', include_self=False) + a.clone().scatter_reduce_(1, i, c, reduce='mean')",
        "_onnx_scatter_reduce_(torch.zeros_like(a), 1, i, c, 'mean', include_self=False) + _onnx_scatter_reduce_(a.clone(), 1, i, c, reduce='mean')",
        lambda g, b: (randn(g, b, 5), ints(g, 0, 5, b, 4), randn(g, b, 6)),
        True,
    ),
    "cross_entropy": (
        F + "cross_entropy(a, t, w, ignore_index=1, label_smoothing=0.1) + " + F + "cross_entropy(a, t, reduction='none', label_smoothing=0.2) + " + F + "cross_entropy(a, p, label_smoothing=0.3)",
        "_onnx_cross_entropy(a, t, w, ignore_index=1, label_smoothing=0.1) + _onnx_cross_entropy(a, t, reduction='none', label_smoothing=0.2) + _onnx_cross_entropy(a, p, label_smoothing=0.3)",
        lambda g, b: (randn(g, b, 5), ints(g, 0, 5, b), torch.rand(5, generator=g), probabilities(g, b, 5)),
        True,
    ),
    "cov": (
        "torch.cov(a) + torch.cov(a, correction=0, aweights=w) + a.cov(fweights=f, aweights=w)",
        "_onnx_cov(a) + _onnx_cov(a, correction=0, aweights=w) + _onnx_cov(a, fweights=f, aweights=w)",
        lambda g, b: (randn(g, b, 6), torch.rand(6, generator=g), ints(g, 1, 4, 6)),
        True,
    ),
    "corrcoef": ("torch.corrcoef(a)", "_onnx_corrcoef(a)", lambda g, b: (randn(g, b, 6),), True),
    "index_reduce": (
        "a.index_reduce(1, i, c, 'amax', include_self=False) + a.index_reduce(1, i, c, 'mean') + a.index_reduce(1, i, c, 'prod', include_self=False)",
        "_onnx_index_reduce(a, 1, i, c, 'amax', include_self=False) + _onnx_index_reduce(a, 1, i, c, 'mean') + _onnx_index_reduce(a, 1, i, c, 'prod', include_self=False)",
        lambda g, b: (randn(g, b, 5), ints(g, 0, 5, 6), randn(g, b, 6)),
        True,
    ),
    "index_reduce_": (
        "a.clone().index_reduce_(1, i, c, 'amin') + torch.zeros_like(a).index_reduce_(1, i, c, 'mean', include_self=False)",
        "_onnx_index_reduce_(a.clone(), 1, i, c, 'amin') + _onnx_index_reduce_(torch.zeros_like(a), 1, i, c, 'mean', include_self=False)",
        lambda g, b: (randn(g, b, 5), ints(g, 0, 5, 6), randn(g, b, 6)),
        True,
    ),
    "vander": (
        "torch.vander(a, 4) + torch.vander(a, N=4, increasing=True)",
        "_onnx_vander(a, 4) + _onnx_vander(a, N=4, increasing=True)",
        lambda g, b: (randn(g, b),),
        True,
    ),
    "combinations": (
        "torch.combinations(a, 3).sum(1) + torch.combinations(a, 3, with_replacement=True)[:10].sum(1)",
        "_onnx_combinations(a, 3).sum(1) + _onnx_combinations(a, 3, with_replacement=True)[:10].sum(1)",
        lambda g, b: (randn(g, 5),),
        False,
    ),
    "pdist": (
        F + "pdist(a) + " + F + "pdist(a, p=1)",
        "_onnx_pdist(a) + _onnx_pdist(a, p=1)",
        lambda g, b: (randn(g, 5, 3),),
        False,
    ),
    "narrow": (
        "torch.narrow(a, 1, s, 2) + a.narrow(1, s + 1, 2)",
        "_onnx_narrow(a, 1, s, 2) + _onnx_narrow(a, 1, s + 1, 2)",
        lambda g, b: (randn(g, b, 6), ints(g, 0, 4, 1)[0]),
        True,
    ),
    "ctc_loss": (
        F + "ctc_loss(a.transpose(0, 1).log_softmax(2), t, il, tl) + " + F + "ctc_loss(a.transpose(0, 1).log_softmax(2), t, il, tl, reduction='none', zero_infinity=True).sum()",
        "_onnx_ctc_loss(a.transpose(0, 1).log_softmax(2), t, il, tl) + _onnx_ctc_loss(a.transpose(0, 1).log_softmax(2), t, il, tl, reduction='none', zero_infinity=True).sum()",
        lambda g, b: (randn(g, b, 10, 5), ints(g, 1, 5, b, 4), ints(g, 5, 11, b), ints(g, 0, 5, b)),
        True,
    ),
    "masked_select": (
        "torch.masked_select(a, a > 0) * 2 + a.masked_select(a > 0)",
        "_onnx_masked_select(a, a > 0) * 2 + _onnx_masked_select(a, a > 0)",
        lambda g, b: (randn(g, b, 5),),
        True,
    ),
    "unique_consecutive": (
        "torch.cat([torch.unique_consecutive(a.round()), torch.unique_consecutive(a.round(), return_counts=True)[1], "
        "a.round().unique_consecutive(return_inverse=True)[1].flatten(), torch.unique_consecutive(a.round(), dim=0).flatten()])",
        "torch.cat([_onnx_unique_consecutive(a.round()), _onnx_unique_consecutive(a.round(), return_counts=True)[1], "
        "_onnx_unique_consecutive(a.round(), return_inverse=True)[1].flatten(), _onnx_unique_consecutive(a.round(), dim=0).flatten()])",
        lambda g, b: (randn(g, b, 2) * 0.6,),
        True,
    ),
    "rfftfreq": (
        "a * torch.fft.rfftfreq(2 * a.shape[-1] - 1, 0.5)",
        "a * _onnx_rfftfreq(2 * a.shape[-1] - 1, 0.5)",
        lambda g, b: (randn(g, b, 5),),
        True,
    ),
}
PARAMS = {
    "scatter_reduce": "a, i, c, j, k",
    "scatter_reduce_": "a, i, c",
    "cross_entropy": "a, t, w, p",
    "cov": "a, w, f",
    "index_reduce": "a, i, c",
    "index_reduce_": "a, i, c",
    "narrow": "a, s",
    "ctc_loss": "a, t, il, tl",
}
STATIC_INPUTS = {"cross_entropy": (2,), "cov": (1, 2), "index_reduce": (1,), "index_reduce_": (1,), "combinations": (0,), "pdist": (0,), "narrow": (1,)}
