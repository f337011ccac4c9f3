"""A ranking head that ships its tabular feature preprocessing inside the model.

Each row of raw features is centred on its median and scaled by its median absolute deviation,
bucketized against fixed edges, embedded and scored; the items are ranked by bucket, ties kept
in input order. `median`, `searchsorted` and a stable `argsort` have no ONNX translation
in either exporter ("No ONNX function found for aten.median.dim", "aten::searchsorted",
"aten.sort.stable"); onnxfix rewrites each call to a helper built from exportable ops.
"""

import torch
from torch import nn


def _onnx_sort_rank(x, descending=False):
    # Position of each element of the last axis in a stable sort (NaN sorts as the largest
    # value, as in torch.sort): the number of elements that sort strictly before it, plus the
    # number of equal elements at smaller indices. O(n^2) memory along the axis.
    if x.dtype == torch.bool:
        x = x.to(torch.int64)
    a = x.unsqueeze(-1)  # element i
    b = x.unsqueeze(-2)  # element j
    before = (b > a) if descending else (b < a)
    equal = a == b
    if x.is_floating_point():
        a_nan, b_nan = torch.isnan(a), torch.isnan(b)
        before = before | ((b_nan & ~a_nan) if descending else (a_nan & ~b_nan))
        equal = equal | (a_nan & b_nan)
    steps = torch.arange(x.shape[-1], device=x.device)
    earlier = steps.unsqueeze(0) < steps.unsqueeze(1)  # (i, j): j < i
    return (before | (equal & earlier)).sum(-1)


def _onnx_median(input, dim=None, keepdim=False):
    # torch.median: the lower median; NaN if the reduced values contain NaN (index: the first
    # NaN). Without `dim`, the median of all elements (a 0-d tensor, no index). Requires
    # _onnx_sort_rank. With ties, the index is one of the tied positions, as torch documents.
    if dim is None:
        flat = input.reshape(-1)
        return _onnx_median(flat, 0).values
    if input.dim() == 0:
        return torch.return_types.median((input.clone(), torch.zeros((), dtype=torch.int64, device=input.device)))
    dim = dim % input.dim()
    last = input.dim() - 1
    x = input.movedim(dim, last)
    middle = (x.shape[-1] - 1) // 2
    index = (_onnx_sort_rank(x) == middle).to(torch.int64).argmax(-1, keepdim=True)
    if x.is_floating_point():
        nan = torch.isnan(x)
        first_nan = nan.to(torch.int64).argmax(-1, keepdim=True)
        index = torch.where(nan.any(-1, keepdim=True), first_nan, index)
    values = torch.gather(x, -1, index).movedim(last, dim)
    index = index.movedim(last, dim)
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return torch.return_types.median((values, index))


def _onnx_searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    # Count, for each value, the sorted elements it goes after (torch's binary search moves
    # right while not (element >= value), or not (element > value) for right=True; so a NaN
    # value lands at the end). O(n) memory per value. NaN inside sorted_sequence is undefined
    # in torch (its result depends on the search path) and may differ.
    sequence = sorted_sequence if sorter is None else torch.gather(sorted_sequence, -1, sorter)
    values = input if isinstance(input, torch.Tensor) else torch.tensor(input, dtype=sequence.dtype, device=sequence.device)
    if side is not None:
        right = side == "right"
    if sequence.dim() > 1:
        sequence = sequence.unsqueeze(-2)
    column = values.unsqueeze(-1)
    goes_after = ~(sequence > column) if right else ~(sequence >= column)
    return goes_after.sum(-1).to(torch.int32 if out_int32 else torch.int64)


def _onnx_argsort(input, dim=-1, descending=False, *, stable=True):
    # torch.argsort with stable=True: ties keep their input order (requires _onnx_sort_rank).
    if input.dim() == 0:
        return torch.zeros((), dtype=torch.int64, device=input.device)
    dim = dim % input.dim()
    last = input.dim() - 1
    x = input.movedim(dim, last)
    rank = _onnx_sort_rank(x, descending)
    steps = torch.arange(x.shape[-1], device=x.device).expand(rank.shape)
    return torch.zeros_like(rank).scatter(-1, rank, steps).movedim(last, dim)


class RobustScaler(nn.Module):
    """Median-centred, MAD-scaled features: robust to the outliers raw logs are full of."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        center = _onnx_median(x, dim=-1, keepdim=True).values
        spread = _onnx_median((x - center).abs(), dim=-1, keepdim=True).values
        return (x - center) / (spread + 1e-6)


class Bucketizer(nn.Module):
    def __init__(self, edges: torch.Tensor):
        super().__init__()
        self.register_buffer("edges", edges)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _onnx_searchsorted(self.edges, x.contiguous(), right=True)


class RankingHead(nn.Module):
    def __init__(self, num_buckets: int = 8, dim: int = 16):
        super().__init__()
        self.scale = RobustScaler()
        self.bucket = Bucketizer(torch.linspace(-2.0, 2.0, num_buckets - 1))
        self.embed = nn.Embedding(num_buckets, dim)
        self.score = nn.Linear(dim, 1)

    def forward(self, features: torch.Tensor):
        buckets = self.bucket(self.scale(features))
        scores = self.score(self.embed(buckets)).squeeze(-1)
        # Coarse ranking by bucket; items in the same bucket keep their input order.
        order = _onnx_argsort(buckets, dim=-1, descending=True, stable=True)
        return scores, order


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return RankingHead().eval()


def _features(seed: int, batch: int, items: int) -> tuple:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, items, generator=g) * 3
    x[:, ::5] = 40.0  # outliers, and ties
    return (x,)


def example_inputs():
    return _features(0, 2, 10)


def probe_inputs():
    return [
        _features(1, 2, 10),  # other values
        _features(2, 3, 17),  # other batch and item count
        _features(3, 1, 6),
    ]


DYNAMIC = {0: {0: "batch", 1: "items"}}
