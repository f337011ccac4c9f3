"""DPVO (visual odometry) update operator: SoftAgg pools edge features per patch / per frame pair
with `torch.unique(ix, return_inverse=True)`, `torch_scatter.scatter_softmax` and
`torch_scatter.scatter_sum`. Exporting the update block to ONNX fails on the torch_scatter
scatter_max inside scatter_softmax, which the fork's export script works around by registering a
custom `dpvo::scatter_max` symbolic "so export can emit a custom-domain node instead of failing".
torch_scatter's python composites are copied; its compiled scatter_max is ported to native torch the
way PyG replaced it (scatter_reduce 'amax', include_self=False, plus the argmax).

Source: https://github.com/FrankLin-123712/DPVO/blob/3520933178e7e4e11b0029e386d9363e9091a9ce/export_models.py
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"net": {1: "edges"}, "inp": {1: "edges"}, "corr": {1: "edges"},
           "ii": {0: "edges"}, "jj": {0: "edges"}, "kk": {0: "edges"}}
BLIND = "operators-58"

DIM = 32


def broadcast(src, other, dim):
    if dim < 0:
        dim = other.dim() + dim
    if src.dim() == 1:
        for _ in range(0, dim):
            src = src.unsqueeze(0)
    for _ in range(src.dim(), other.dim()):
        src = src.unsqueeze(-1)
    src = src.expand(other.size())
    return src


def scatter_sum(src, index, dim=-1, out=None, dim_size=None):
    index = broadcast(index, src, dim)
    if out is None:
        size = list(src.size())
        if dim_size is not None:
            size[dim] = dim_size
        elif index.numel() == 0:
            size[dim] = 0
        else:
            size[dim] = int(index.max()) + 1
        out = torch.zeros(size, dtype=src.dtype, device=src.device)
        return out.scatter_add_(dim, index, src)
    else:
        return out.scatter_add_(dim, index, src)


def scatter_max(src, index, dim=-1, out=None, dim_size=None):
    # torch_scatter.scatter_max (compiled op) -> (out, argmax), native-torch port
    if dim < 0:
        dim = src.dim() + dim
    index = broadcast(index, src, dim)
    size = list(src.size())
    size[dim] = dim_size if dim_size is not None else int(index.max()) + 1
    out = src.new_zeros(size).scatter_reduce_(dim, index, src, reduce='amax', include_self=False)
    shape = [1] * src.dim()
    shape[dim] = -1
    pos = torch.arange(src.size(dim), device=src.device).view(shape).expand_as(src)
    pos = torch.where(src == out.gather(dim, index), pos, torch.full_like(pos, src.size(dim)))
    argmax = torch.full(size, src.size(dim), dtype=torch.long, device=src.device)
    argmax = argmax.scatter_reduce_(dim, index, pos, reduce='amin', include_self=True)
    return out, argmax


def scatter_softmax(src, index, dim=-1, dim_size=None):
    if not torch.is_floating_point(src):
        raise ValueError('`scatter_softmax` can only be computed over tensors '
                         'with floating point data types.')
    index = broadcast(index, src, dim)
    max_value_per_index = scatter_max(src, index, dim=dim, dim_size=dim_size)[0]
    max_per_src_element = max_value_per_index.gather(dim, index)
    recentered_scores = src - max_per_src_element
    recentered_scores_exp = recentered_scores.exp_()
    sum_per_index = scatter_sum(recentered_scores_exp, index, dim, dim_size=dim_size)
    normalizing_constants = sum_per_index.gather(dim, index)
    return recentered_scores_exp.div(normalizing_constants)


class GatedResidual(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Sequential(nn.Linear(dim, dim), nn.Sigmoid())
        self.res = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(inplace=True), nn.Linear(dim, dim))

    def forward(self, x):
        return x + self.gate(x) * self.res(x)


class SoftAgg(nn.Module):
    def __init__(self, dim=512, expand=True):
        super(SoftAgg, self).__init__()
        self.dim = dim
        self.expand = expand
        self.f = nn.Linear(self.dim, self.dim)
        self.g = nn.Linear(self.dim, self.dim)
        self.h = nn.Linear(self.dim, self.dim)

    def forward(self, x, ix):
        _, jx = torch.unique(ix, return_inverse=True)
        w = scatter_softmax(self.g(x), jx, dim=1)
        y = scatter_sum(self.f(x) * w, jx, dim=1)

        if self.expand:
            return self.h(y)[:, jx]

        return self.h(y)


class Update(nn.Module):
    def __init__(self, p=1):
        super(Update, self).__init__()
        self.norm = nn.LayerNorm(DIM, eps=1e-3)
        self.agg_kk = SoftAgg(DIM)
        self.agg_ij = SoftAgg(DIM)
        self.gru = nn.Sequential(nn.LayerNorm(DIM, eps=1e-3), GatedResidual(DIM),
                                 nn.LayerNorm(DIM, eps=1e-3), GatedResidual(DIM))
        self.corr = nn.Sequential(nn.Linear(2 * 49 * p * p, DIM), nn.ReLU(inplace=True),
                                  nn.Linear(DIM, DIM), nn.LayerNorm(DIM, eps=1e-3),
                                  nn.ReLU(inplace=True), nn.Linear(DIM, DIM))
        self.d = nn.Sequential(nn.ReLU(inplace=False), nn.Linear(DIM, 2))
        self.w = nn.Sequential(nn.ReLU(inplace=False), nn.Linear(DIM, 2), nn.Sigmoid())

    def forward(self, net, inp, corr, ii, jj, kk):
        """ update operator (neighbor mixing via the fastba CUDA op left out) """
        net = net + inp + self.corr(corr)
        net = self.norm(net)

        net = net + self.agg_kk(net, kk)
        net = net + self.agg_ij(net, ii * 12345 + jj)

        net = self.gru(net)

        return net, self.d(net), self.w(net)


def make_model():
    return Update(p=1).eval()


def _edges(e):
    kk = torch.randint(0, e // 3 + 1, (e,))
    ii = torch.randint(0, 6, (e,))
    jj = torch.randint(0, 6, (e,))
    return (torch.randn(1, e, DIM), torch.randn(1, e, DIM), torch.randn(1, e, 98), ii, jj, kk)


def example_inputs():
    return _edges(48)


def other_inputs():
    return [_edges(75), _edges(20)]


def probe_inputs():
    return other_inputs()
