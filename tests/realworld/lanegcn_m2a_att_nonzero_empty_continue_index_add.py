"""LaneGCN map-to-actor attention (Att), from a LaneGCN ONNX-export fork: actor/lane-node pairs
within dist_th come from torch.nonzero(mask), a scene with no pair is skipped with
`if len(idcs) == 0: continue`, and the gathered context is summed back per actor with index_add_
(wrapped in my_index_add; the fork's commits and commented-out alternatives chase the ONNX model's wrong
sums for duplicate actor indices and the "Iterating over a tensor might cause the trace to be incorrect"
warnings hit while exporting).

Source: https://github.com/johnnyleeRH/lanegcnexport/blob/d10f01347e114d63f6a51eac8d70e3a0cf51c9d2/lanegcn.py
"""
from math import gcd
from typing import List

import torch
from torch import Tensor, nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"actors": {0: "actors"}, "actor_ctrs": {0: "actors"},
           "nodes": {0: "nodes"}, "node_ctrs": {0: "nodes"}}
BLIND = "domains-76"

config = {"map2actor_dist": 6.0}


class Linear(nn.Module):
    def __init__(self, n_in, n_out, norm='GN', ng=32, act=True):
        super(Linear, self).__init__()
        self.linear = nn.Linear(n_in, n_out, bias=False)
        self.norm = nn.GroupNorm(gcd(ng, n_out), n_out)
        self.relu = nn.ReLU(inplace=True)
        self.act = act

    def forward(self, x):
        out = self.linear(x)
        out = self.norm(out)
        if self.act:
            out = self.relu(out)
        return out


def my_index_add(index, A, B):
    A.index_add_(0, index, B)
    return A


class Att(nn.Module):
    def __init__(self, n_agt: int, n_ctx: int) -> None:
        super(Att, self).__init__()
        norm = "GN"
        ng = 1
        self.dist = nn.Sequential(
            nn.Linear(2, n_ctx),
            nn.ReLU(inplace=True),
            Linear(n_ctx, n_ctx, norm=norm, ng=ng),
        )
        self.query = Linear(n_agt, n_ctx, norm=norm, ng=ng)
        self.ctx = nn.Sequential(
            Linear(3 * n_ctx, n_agt, norm=norm, ng=ng),
            nn.Linear(n_agt, n_agt, bias=False),
        )
        self.agt = nn.Linear(n_agt, n_agt, bias=False)
        self.norm = nn.GroupNorm(gcd(ng, n_agt), n_agt)
        self.linear = Linear(n_agt, n_agt, norm=norm, ng=ng, act=False)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, agts: Tensor, agt_idcs: List[Tensor], agt_ctrs: List[Tensor], ctx: Tensor, ctx_idcs: List[Tensor], ctx_ctrs: List[Tensor], dist_th: float) -> Tensor:
        res = agts
        if len(ctx) == 0:
            agts = self.agt(agts)
            agts = self.relu(agts)
            agts = self.linear(agts)
            agts += res
            agts = self.relu(agts)
            return agts

        batch_size = len(agt_idcs)
        hi, wi = [], []
        hi_count, wi_count = 0, 0

        for i in range(batch_size):
            dist = agt_ctrs[i].view(-1, 1, 2) - ctx_ctrs[i].view(1, -1, 2)
            dist = torch.sqrt((dist ** 2).sum(2))
            mask = dist <= dist_th

            idcs = torch.nonzero(mask)
            if len(idcs) == 0:
                continue

            hi.append(idcs[:, 0] + hi_count)
            wi.append(idcs[:, 1] + wi_count)
            hi_count += len(agt_idcs[i])
            wi_count += len(ctx_idcs[i])

        hi = torch.cat(hi, 0)
        wi = torch.cat(wi, 0)

        agt_ctrs = torch.cat(agt_ctrs, 0)
        ctx_ctrs = torch.cat(ctx_ctrs, 0)
        dist = agt_ctrs[hi] - ctx_ctrs[wi]
        dist = self.dist(dist)

        query = self.query(agts[hi])

        ctx = ctx[wi]
        ctx = torch.cat((dist, query, ctx), 1)
        ctx = self.ctx(ctx)

        agts = self.agt(agts)
        agts = my_index_add(hi, agts, ctx)
        agts = self.norm(agts)
        agts = self.relu(agts)

        agts = self.linear(agts)
        agts += res
        agts = self.relu(agts)
        return agts


class M2A(nn.Module):
    """Map-to-actor fusion of LaneGCN (single scene: one entry per index list)."""
    def __init__(self, n_actor=32, n_map=32):
        super(M2A, self).__init__()
        self.config = config
        self.att = nn.ModuleList([Att(n_actor, n_map) for _ in range(2)])

    def forward(self, actors, actor_ctrs, nodes, node_ctrs):
        actor_idcs = [torch.arange(actors.shape[0], device=actors.device)]
        node_idcs = [torch.arange(nodes.shape[0], device=nodes.device)]
        for i in range(len(self.att)):
            actors = self.att[i](
                actors,
                actor_idcs,
                [actor_ctrs],
                nodes,
                node_idcs,
                [node_ctrs],
                self.config["map2actor_dist"],
            )
        return actors


def make_model():
    return M2A()


def _scene(n_actors, n_nodes):
    return (torch.randn(n_actors, 32), torch.randn(n_actors, 2) * 8.0,
            torch.randn(n_nodes, 32), torch.randn(n_nodes, 2) * 8.0)


def example_inputs():
    return _scene(6, 40)


def other_inputs():
    return [_scene(11, 75), _scene(3, 22)]


def probe_inputs():
    return other_inputs()
