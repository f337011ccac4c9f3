"""A ranking head that ships its tabular feature preprocessing inside the model.

Each row of raw features is centred on its median and scaled by its median absolute deviation,
bucketized against fixed edges, embedded and scored; the items are ranked by bucket, ties kept
in input order. `median`, `searchsorted` and a stable `argsort` have no ONNX translation
in either exporter ("No ONNX function found for aten.median.dim", "aten::searchsorted",
"aten.sort.stable"); onnxfix rewrites each call to a helper built from exportable ops.
"""

import torch
from torch import nn


# <onnxfix helper _onnx_sort_rank: onnxfix/decompositions/sort_rank.py>


# <onnxfix helper _onnx_median: onnxfix/decompositions/median.py>


# <onnxfix helper _onnx_searchsorted: onnxfix/decompositions/searchsorted.py>


# <onnxfix helper _onnx_argsort: onnxfix/decompositions/argsort.py>


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
