"""DeePMD-kit DPA2 graph path: per-neighbor-pair entries are gathered from the padded neighbor list
(`nlist >= 0`), so their count is data dependent; `_slot_occupancy` (capped water-filling of the
smooth-cutoff weights per center atom) starts with `n = slot_weight.shape[0]; if n == 0: return
slot_weight`, which the commit reports fails torch.export with GuardOnDataDependentSymNode (Eq(u1, 0)).

Source: https://github.com/deepmodeling/deepmd-kit/commit/206810e3513c57ae967189645ed92022c8fd6acd
"""
import math

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"nlist": {0: "atoms"}, "sw": {0: "atoms"}}
BLIND = "domains-80"


class _TorchNamespace:
    """The few array-API calls the dpmodel code uses, on torch (array_api_compat stand-in)."""
    inf = math.inf
    argsort = staticmethod(lambda x, descending=False, stable=False: torch.argsort(x, descending=descending, stable=stable))
    take = staticmethod(lambda x, idx, axis=0: torch.index_select(x, axis, idx))
    ones = staticmethod(lambda shape, dtype=None, device=None: torch.ones(shape, dtype=dtype, device=device))
    cumulative_sum = staticmethod(lambda x: torch.cumsum(x, dim=0))
    logical_and = staticmethod(torch.logical_and)
    where = staticmethod(torch.where)
    zeros_like = staticmethod(torch.zeros_like)
    ones_like = staticmethod(torch.ones_like)
    full_like = staticmethod(torch.full_like)
    maximum = staticmethod(torch.maximum)
    astype = staticmethod(lambda x, dtype: x.to(dtype))


xp = _TorchNamespace()


def segment_sum(data, segment_ids, num_segments):
    return torch.zeros(num_segments, dtype=data.dtype, device=data.device).index_add(0, segment_ids, data)


def segment_max(data, segment_ids, num_segments):
    out = torch.full((num_segments,), -math.inf, dtype=data.dtype, device=data.device)
    return out.scatter_reduce(0, segment_ids, data, reduce="amax", include_self=True)


def _slot_occupancy(slot_weight, segment_ids, num_segments, capacity):
    dev = slot_weight.device
    n = slot_weight.shape[0]
    if n == 0:
        return slot_weight
    # sort by (segment asc, weight desc): stable argsort twice
    order_w = xp.argsort(slot_weight, descending=True, stable=True)
    order = xp.take(
        order_w,
        xp.argsort(xp.take(segment_ids, order_w, axis=0), stable=True),
        axis=0,
    )
    sw_s = xp.take(slot_weight, order, axis=0)
    seg_s = xp.take(segment_ids, order, axis=0)
    ones = xp.ones((n,), dtype=slot_weight.dtype, device=dev)
    counts = segment_sum(ones, segment_ids, num_segments)  # (S,)
    total = segment_sum(slot_weight, segment_ids, num_segments)  # (S,)
    offsets = xp.cumulative_sum(counts) - counts  # exclusive prefix
    iota = xp.cumulative_sum(ones) - 1.0  # arange(n) as float
    rank = iota - xp.take(offsets, seg_s, axis=0) + 1.0  # (n,) 1-based
    prefix = xp.cumulative_sum(sw_s)
    seg_prefix_off = xp.take(xp.cumulative_sum(total) - total, seg_s, axis=0)
    t_k = xp.take(total, seg_s, axis=0) - (prefix - seg_prefix_off)  # (n,)
    cap_e = xp.take(capacity, seg_s, axis=0)  # (n,)
    room = cap_e - rank
    valid = xp.logical_and(room > 0.0, sw_s * room >= t_k)
    kstar = segment_max(xp.where(valid, rank, xp.zeros_like(rank)), seg_s, num_segments)
    kstar = xp.maximum(kstar, xp.zeros_like(kstar))  # empty segments: -inf -> 0
    at_star = xp.astype(rank == xp.take(kstar, seg_s, axis=0), t_k.dtype)
    t_star = segment_sum(t_k * at_star, seg_s, num_segments)
    t_star = xp.where(kstar > 0.0, t_star, total)
    den2 = capacity - kstar
    has_room = den2 > 0.0
    lam = xp.where(
        has_room,
        t_star / xp.where(has_room, den2, xp.ones_like(den2)),
        xp.full_like(den2, xp.inf),
    )
    lam_e = xp.take(lam, segment_ids, axis=0)
    den = xp.maximum(slot_weight, lam_e)
    pos = den > 0.0
    den_safe = xp.where(pos, den, xp.ones_like(den))
    return xp.where(pos, slot_weight / den_safe, xp.zeros_like(den))


class PairSlotOccupancy(nn.Module):
    """Neighbor-graph entries of a center atom, weighted by their slot occupancy, summed per atom."""

    def __init__(self, sel=4, dim=16):
        super().__init__()
        self.sel = sel
        self.edge_mlp = nn.Sequential(nn.Linear(1, dim), nn.Tanh(), nn.Linear(dim, dim))

    def forward(self, nlist, sw):
        nloc = nlist.shape[0]
        pair = torch.nonzero(nlist >= 0)  # (n_pairs, 2), data-dependent length
        segment_ids = pair[:, 0]
        sw_e = sw[pair[:, 0], pair[:, 1]]
        cap = torch.full((nloc,), float(self.sel), dtype=sw.dtype)
        theta = _slot_occupancy(sw_e, segment_ids, nloc, cap)
        g = self.edge_mlp(sw_e[:, None]) * theta[:, None]
        return torch.zeros(nloc, g.shape[1], dtype=g.dtype).index_add(0, segment_ids, g)


def make_model():
    return PairSlotOccupancy()


def _inputs(nloc, nnei=8):
    nlist = torch.randint(0, nloc, (nloc, nnei))
    nlist = torch.where(torch.rand(nloc, nnei) < 0.35, torch.full_like(nlist, -1), nlist)
    sw = torch.rand(nloc, nnei)
    return (nlist, sw)


def example_inputs():
    return _inputs(6)


def other_inputs():
    return [_inputs(11), _inputs(3)]


def probe_inputs():
    return other_inputs()
