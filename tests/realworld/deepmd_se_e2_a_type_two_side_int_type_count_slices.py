"""DeePMD-kit `se_e2_a` descriptor with `type_one_side=False` (one embedding net per (center type,
neighbour type) pair, `NetworkCollection(ndim=2)`), exported through the pt_expt backend: atoms are sorted
by center type and each type's block is sliced with boundaries from
`offset += int(xp.sum(xp.astype(atype_loc == ti, xp.int32)))` (and `if s == e: continue`). The PR skips
these .pte/.pt2 exports because the data-dependent indexing "triggers `GuardOnDataDependentSymNode` in
`make_fx`".

Source: https://github.com/deepmodeling/deepmd-kit/pull/5384
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"coord_ext": {1: "nloc"}, "atype_ext": {1: "nloc"}, "nlist": {1: "nloc"}}
BLIND = "domains-55"


def compute_smooth_weight(distance, rmin, rmax):
    distance = torch.clamp(distance, min=rmin, max=rmax)
    uu = (distance - rmin) / (rmax - rmin)
    return uu * uu * uu * (-6 * uu * uu + 15 * uu - 10) + 1


def make_env_mat(nlist, coord, rcut, rcut_smth):
    nf, nloc, nnei = nlist.shape
    coord = torch.reshape(coord, (nf, -1, 3))
    mask = nlist >= 0
    nlist = nlist * mask.to(nlist.dtype)
    index = torch.tile(torch.reshape(nlist, (nf, -1, 1)), (1, 1, 3))
    coord_r = torch.reshape(torch.gather(coord, 1, index), (nf, nloc, nnei, 3))
    coord_l = torch.reshape(coord[:, :nloc], (nf, -1, 1, 3))
    diff = coord_r - coord_l
    length = torch.linalg.vector_norm(diff, dim=-1, keepdim=True)
    length = length + (~mask.unsqueeze(-1)).to(length.dtype)
    t0 = 1 / length
    t1 = diff / length**2
    weight = compute_smooth_weight(length, rcut_smth, rcut) * mask.unsqueeze(-1).to(length.dtype)
    return torch.concat([t0, t1], dim=-1) * weight


class DescrptSeA(nn.Module):
    def __init__(self, rcut=6.0, rcut_smth=0.5, sel=(3, 2), neuron=(8, 16), axis_neuron=4):
        super().__init__()
        self.rcut, self.rcut_smth, self.ntypes = rcut, rcut_smth, len(sel)
        self.sel_cumsum = [0, *torch.tensor(sel).cumsum(0).tolist()]
        self.nnei, self.neuron, self.axis_neuron = sum(sel), neuron, axis_neuron
        self.type_one_side = False
        # NetworkCollection(ndim=2): one embedding net per (center type, neighbour type)
        self.embeddings = nn.ModuleList(
            nn.Sequential(nn.Linear(1, neuron[0]), nn.Tanh(), nn.Linear(neuron[0], neuron[1]), nn.Tanh())
            for _ in range(self.ntypes * self.ntypes))
        self.register_buffer("davg", torch.zeros(self.ntypes, self.nnei, 4))
        self.register_buffer("dstd", torch.ones(self.ntypes, self.nnei, 4))

    def cal_g(self, ss, embedding_idx):
        nf_times_nloc, nnei = ss.shape[0:2]
        ss = torch.reshape(ss, (nf_times_nloc, nnei, 1))
        ti, tt = embedding_idx
        return self.embeddings[ti * self.ntypes + tt](ss)

    def forward(self, coord_ext, atype_ext, nlist):
        input_dtype = coord_ext.dtype
        rr = make_env_mat(nlist, coord_ext, self.rcut, self.rcut_smth)
        nf, nloc, nnei, _ = rr.shape
        atype_c = atype_ext[:, :nloc]
        rr = (rr - self.davg[atype_c]) / self.dstd[atype_c]
        sec = self.sel_cumsum
        ng = self.neuron[-1]
        exclude_mask = torch.reshape(nlist >= 0, (nf * nloc, nnei))
        rr = torch.reshape(rr, (nf * nloc, nnei, 4))
        # Sort atoms by center type so each type forms a contiguous block.
        atype_loc = torch.reshape(atype_ext[:, :nloc], (nf * nloc,))
        sort_idx = torch.argsort(atype_loc)
        unsort_idx = torch.argsort(sort_idx)
        rr_s = torch.index_select(rr, 0, sort_idx)
        mask_s = torch.index_select(exclude_mask, 0, sort_idx)
        gr_s = torch.zeros([nf * nloc, ng, 4], dtype=input_dtype, device=coord_ext.device)
        # Per-type boundaries in sorted order
        type_ends = []
        offset = 0
        for ti in range(self.ntypes):
            offset += int(torch.sum((atype_loc == ti).to(torch.int32)))
            type_ends.append(offset)
        type_starts = [0, *type_ends[:-1]]
        for ti in range(self.ntypes):
            s, e = type_starts[ti], type_ends[ti]
            if s == e:
                continue
            for tt in range(self.ntypes):
                mm = mask_s[s:e, sec[tt] : sec[tt + 1]]
                tr = rr_s[s:e, sec[tt] : sec[tt + 1], :]
                tr = tr * mm[:, :, None].to(tr.dtype)
                ss = tr[..., 0:1]
                gg = self.cal_g(ss, (ti, tt))
                gr_s[s:e] = gr_s[s:e] + torch.sum(gg[:, :, :, None] * tr[:, :, None, :], dim=1)
        gr = torch.index_select(gr_s, 0, unsort_idx)
        gr = torch.reshape(gr, (nf, nloc, ng, 4))
        gr /= self.nnei
        gr1 = gr[:, :, : self.axis_neuron, :]
        grrg = torch.sum(gr[:, :, :, None, :] * gr1[:, :, None, :, :], dim=4)
        return torch.reshape(grrg, (nf, nloc, ng * self.axis_neuron))


def make_model():
    return DescrptSeA().eval()


def _inputs(types, nf=2):
    """NoPBC frames (nall == nloc); neighbour list sectioned by neighbour type, -1 padded."""
    atype = torch.tensor(types).repeat(nf, 1)
    nloc = len(types)
    coord = torch.rand(nf, nloc, 3) * 4.0
    nlist = torch.full((nf, nloc, 5), -1, dtype=torch.long)
    for f in range(nf):
        for i in range(nloc):
            for tt, (lo, hi) in enumerate(((0, 3), (3, 5))):
                cand = [j for j in range(nloc) if j != i and types[j] == tt][: hi - lo]
                nlist[f, i, lo : lo + len(cand)] = torch.tensor(cand, dtype=torch.long)
    return coord, atype, nlist


def example_inputs():
    return _inputs([0, 1, 0, 0, 1, 0])


def other_inputs():
    return [_inputs([1, 1, 0, 1, 0, 1, 1, 0, 1]), _inputs([0, 1, 1, 1]), _inputs([0, 0, 0, 0, 0])]


def probe_inputs():
    return other_inputs()
