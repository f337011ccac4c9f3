"""DeePMD-kit DPA3 with `use_dynamic_sel: true` (flat edge/angle graph instead of padded neighbours):
`get_graph_index` counts the real edges with `n_edge = int(xp.sum(xp.astype(nlist_mask, xp.int32)))`, builds
`edge_id = xp.arange(n_edge)` and scatters it through the neighbour mask to index the angle graph. The PR
lists as a known limitation that DPA3 `use_dynamic_sel: true` "cannot compile (symbolic tracer fails on
data-dependent `int()` in `get_graph_index`)" for the pt_expt (torch.export) backend.

Source: https://github.com/deepmodeling/deepmd-kit/pull/5397
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "tensor_data"
DYNAMIC = {"node_ebd": {1: "nloc"}, "edge_ebd": {1: "nloc"}, "nlist": {1: "nloc"}}
BLIND = "domains-55"


def xp_setitem_at(x, mask, values):
    result = torch.clone(x)
    result[mask] = values
    return result


def get_graph_index(nlist, nlist_mask, a_nlist_mask, nall: int, use_loc_mapping: bool = True):
    nf, nloc, nnei = nlist.shape
    _, _, a_nnei = a_nlist_mask.shape

    a_nlist_mask_3d = torch.logical_and(a_nlist_mask[:, :, :, None], a_nlist_mask[:, :, None, :])

    n_edge = int(torch.sum(nlist_mask.to(torch.int32)))

    # 1. atom graph
    nlist_loc_index = torch.arange(nf * nloc, dtype=nlist.dtype, device=nlist.device)
    n2e_index = torch.broadcast_to(torch.reshape(nlist_loc_index, (nf, nloc, 1)), (nf, nloc, nnei))
    n2e_index = n2e_index[nlist_mask.to(torch.bool)]

    frame_shift = torch.arange(nf, dtype=nlist.dtype, device=nlist.device) * (
        nall if not use_loc_mapping else nloc
    )
    shifted_nlist = nlist + frame_shift[:, None, None]
    n_ext2e_index = shifted_nlist[nlist_mask.to(torch.bool)]

    # 2. edge graph
    n2a_index = torch.broadcast_to(
        torch.reshape(nlist_loc_index, (nf, nloc, 1, 1)), (nf, nloc, a_nnei, a_nnei)
    )
    n2a_index = n2a_index[a_nlist_mask_3d]

    edge_id = torch.arange(n_edge, dtype=nlist.dtype, device=nlist.device)
    edge_index = torch.zeros((nf, nloc, nnei), dtype=nlist.dtype, device=nlist.device)
    edge_index = xp_setitem_at(edge_index, nlist_mask.to(torch.bool), edge_id)
    # only cut a_nnei neighbors, to avoid nnei x nnei
    edge_index = edge_index[:, :, :a_nnei]
    edge_index_ij = torch.broadcast_to(edge_index[:, :, :, None], (nf, nloc, a_nnei, a_nnei))
    eij2a_index = edge_index_ij[a_nlist_mask_3d]
    edge_index_ik = torch.broadcast_to(edge_index[:, :, None, :], (nf, nloc, a_nnei, a_nnei))
    eik2a_index = edge_index_ik[a_nlist_mask_3d]

    edge_index_result = torch.stack([n2e_index, n_ext2e_index], dim=0)
    angle_index_result = torch.stack([n2a_index, eij2a_index, eik2a_index], dim=0)
    return edge_index_result, angle_index_result


class RepFlowLayerDynamicSel(nn.Module):
    """One node/edge/angle message step on the flat graph; reductions done back in the padded layout."""

    def __init__(self, n_dim=16, e_dim=8, a_nnei=3):
        super().__init__()
        self.a_nnei = a_nnei
        self.edge_self_linear = nn.Linear(2 * n_dim + e_dim, e_dim)
        self.node_edge_linear = nn.Linear(e_dim, n_dim)
        self.angle_linear = nn.Linear(2 * e_dim, e_dim)

    def forward(self, node_ebd, edge_ebd, nlist):
        nf, nloc, nnei = nlist.shape
        nlist_mask = nlist != -1
        a_nlist_mask = nlist_mask[:, :, : self.a_nnei]
        nlist = torch.where(nlist_mask, nlist, torch.zeros_like(nlist))
        edge_index, angle_index = get_graph_index(nlist, nlist_mask, a_nlist_mask, nloc)
        n2e_index, n_ext2e_index = edge_index[0], edge_index[1]
        eij2a_index, eik2a_index = angle_index[1], angle_index[2]

        node_flat = torch.reshape(node_ebd, (nf * nloc, -1))
        edge_flat = edge_ebd[nlist_mask]  # n_edge x e_dim
        edge_in = torch.cat([torch.index_select(node_flat, 0, n2e_index),
                             torch.index_select(node_flat, 0, n_ext2e_index), edge_flat], dim=-1)
        edge_upd = torch.tanh(self.edge_self_linear(edge_in))  # n_edge x e_dim
        angle_msg = torch.tanh(self.angle_linear(torch.cat(
            [torch.index_select(edge_upd, 0, eij2a_index), torch.index_select(edge_upd, 0, eik2a_index)],
            dim=-1)))  # n_angle x e_dim
        # back to the padded layout for the reductions
        a_mask_3d = torch.logical_and(a_nlist_mask[:, :, :, None], a_nlist_mask[:, :, None, :])
        angle_pad = torch.zeros(nf, nloc, self.a_nnei, self.a_nnei, edge_upd.shape[-1])
        angle_pad[a_mask_3d] = angle_msg
        edge_pad = torch.zeros(nf, nloc, nnei, edge_upd.shape[-1])
        edge_pad[nlist_mask] = edge_upd
        edge_pad = edge_pad + nn.functional.pad(angle_pad.sum(3), (0, 0, 0, nnei - self.a_nnei))
        node_upd = torch.sum(self.node_edge_linear(edge_pad) * nlist_mask[..., None].to(edge_pad.dtype), dim=2)
        return node_ebd + node_upd


def make_model():
    return RepFlowLayerDynamicSel().eval()


def _inputs(nloc, nf=2, nnei=6, n_dim=16, e_dim=8):
    nlist = torch.randint(0, nloc, (nf, nloc, nnei))
    n_real = torch.randint(1, nnei + 1, (nf, nloc, 1))  # dynamic selection: varying neighbour counts
    nlist = torch.where(torch.arange(nnei)[None, None, :] < n_real, nlist, torch.full_like(nlist, -1))
    return torch.randn(nf, nloc, n_dim), torch.randn(nf, nloc, nnei, e_dim), nlist


def example_inputs():
    return _inputs(6)


def other_inputs():
    return [_inputs(9), _inputs(4)]


def probe_inputs():
    return other_inputs()
