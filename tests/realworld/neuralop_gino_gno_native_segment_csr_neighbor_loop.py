"""GINO-style graph neural operator block from the neuraloperator library: a native radius neighbor search (cdist,
`nonzero`, cumulative neighborhood sizes) feeds an IntegralTransform whose neighborhood reduction is `segment_csr`.
The issue reports that GINO models cannot be compiled because of `segment_csr`; without torch_scatter the library
falls back to its naive PyTorch `segment_csr`, a Python loop over every query point that slices `src` between
`indptr[i]` and `indptr[i + 1]` and branches on `n_nbrs > 0` (sizes and bounds read from tensor values).

Source: https://github.com/neuraloperator/neuraloperator/issues/733
"""
import torch
from torch import nn, einsum

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"y": {0: "n_in"}, "x": {0: "n_out"}, "f_y": {0: "n_in"}}
BLIND = "domains-86"


# --- neuralop/layers/neighbor_search.py ---
def native_neighbor_search(data, queries, radius, return_norm=False):
    nbr_dict = {}
    all_dists = torch.cdist(queries, data).to(queries.device)
    eps = 1e-7
    all_dists = torch.where(all_dists == 0., eps, all_dists)
    dists = torch.where(all_dists <= radius, all_dists, 0.)
    nbr_indices = dists.nonzero()[:, 1:].reshape(-1,)
    in_nbr = torch.where(dists > 0, 1., 0.,)
    nbrhd_sizes = torch.cumsum(torch.sum(in_nbr, dim=1), dim=0)
    splits = torch.cat((torch.tensor([0.]).to(queries.device), nbrhd_sizes))
    nbr_dict["neighbors_index"] = nbr_indices.long().to(queries.device)
    nbr_dict["neighbors_row_splits"] = splits.long()
    return nbr_dict


# --- neuralop/layers/segment_csr.py (naive PyTorch fallback, unbatched) ---
def segment_csr(src, indptr, reduction, use_scatter=False):
    output_shape = list(src.shape)
    n_out = indptr.shape[0] - 1
    output_shape[0] = n_out
    out = torch.zeros(output_shape, device=src.device)
    for i in range(n_out):
        from_idx = slice(indptr[i], indptr[i + 1])
        ein_str = "io->o"
        start = indptr[i]
        n_nbrs = indptr[i + 1] - start
        to_idx = i
        src_from = src[from_idx]
        if n_nbrs > 0:
            to_reduce = einsum(ein_str, src_from)
            if reduction == "mean":
                to_reduce /= n_nbrs
            out[to_idx] += to_reduce
    return out


class IntegralTransform(nn.Module):
    """transform_type="linear": k(x, y) f(y) averaged over the neighborhood of x."""

    def __init__(self, coord_dim=2, channels=8, hidden=32, reduction="mean"):
        super().__init__()
        self.channel_mlp = nn.Sequential(nn.Linear(2 * coord_dim, hidden), nn.GELU(), nn.Linear(hidden, channels))
        self.reduction = reduction
        self.use_torch_scatter = False

    def forward(self, y, neighbors, x=None, f_y=None):
        if x is None:
            x = y
        rep_features = y[neighbors["neighbors_index"]]
        in_features = f_y[neighbors["neighbors_index"]]
        num_reps = neighbors["neighbors_row_splits"][1:] - neighbors["neighbors_row_splits"][:-1]
        self_features = torch.repeat_interleave(x, num_reps, dim=0)
        agg_features = torch.cat([rep_features, self_features], dim=-1)
        rep_features = self.channel_mlp(agg_features)
        rep_features.mul_(in_features)
        splits = neighbors["neighbors_row_splits"]
        return segment_csr(rep_features, splits, reduction=self.reduction, use_scatter=self.use_torch_scatter)


class GNOBlock(nn.Module):
    def __init__(self, channels=8, radius=0.3):
        super().__init__()
        self.radius = radius
        self.neighbor_search = native_neighbor_search
        self.integral_transform = IntegralTransform(channels=channels)

    def forward(self, y, x, f_y):
        neighbors = self.neighbor_search(data=y, queries=x, radius=self.radius)
        return self.integral_transform(y=y, neighbors=neighbors, x=x, f_y=f_y)


def make_model():
    return GNOBlock().eval()


def _inputs(n_in, n_out):
    return (torch.rand(n_in, 2), torch.rand(n_out, 2), torch.randn(n_in, 8))


def example_inputs():
    return _inputs(40, 12)


def other_inputs():
    return [_inputs(57, 20), _inputs(25, 7)]


def probe_inputs():
    return other_inputs()
