"""Uni-Mol style graph transformer EdgeFeature: writes the virtual-node distance into the attention bias with
slice assignments (`graph_attn_bias[:, 1:, 0, :] = t`, `graph_attn_bias[:, 0, :, :] = t`); with dynamic_axes the
exported graph gets Expand nodes with the example's static shape, so other graph sizes break.

Source: https://github.com/pytorch/pytorch/issues/107841
"""
import torch
import torch.nn as nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {
    "shortest_path": {0: "batch_size", 1: "seq_len", 2: "seq_len"},
    "edge_feat": {0: "batch_size", 1: "seq_len", 2: "seq_len"},
    "graph_attn_bias": {0: "batch_size", 1: "seq_len_1", 2: "seq_len_1"},
}
BLIND = "domains-11"


class Embedding(nn.Embedding):
    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int = None,
    ):
        super(Embedding, self).__init__(
            num_embeddings, embedding_dim, padding_idx=padding_idx
        )
        self._normal_init()

        if padding_idx is not None:
            self.weight.data[self.padding_idx].zero_()

    def _normal_init(self, std=0.02):
        nn.init.normal_(self.weight, mean=0.0, std=std)


class EdgeFeature(nn.Module):
    """
    Compute attention bias for each head.
    """

    def __init__(
        self,
        pair_dim,
        num_edge,
        num_spatial,
    ):
        super(EdgeFeature, self).__init__()
        self.pair_dim = pair_dim

        self.edge_encoder = Embedding(num_edge, pair_dim, padding_idx=0)
        self.shorest_path_encoder = Embedding(num_spatial, pair_dim, padding_idx=0)
        self.vnode_virtual_distance = Embedding(1, pair_dim)

    def forward(self, shortest_path, edge_feat, graph_attn_bias):
        shortest_path = shortest_path
        edge_input = edge_feat

        graph_attn_bias[:, 1:, 1:, :] = self.shorest_path_encoder(shortest_path)

        # reset spatial pos here
        t = self.vnode_virtual_distance.weight.view(1, 1, self.pair_dim)
        graph_attn_bias[:, 1:, 0, :] = t
        graph_attn_bias[:, 0, :, :] = t

        edge_input = self.edge_encoder(edge_input).mean(-2)
        graph_attn_bias[:, 1:, 1:, :] = graph_attn_bias[:, 1:, 1:, :] + edge_input
        return graph_attn_bias


def make_model():
    return EdgeFeature(pair_dim=32, num_edge=64, num_spatial=512).float()


def _inputs(b, n):
    shortest_path = torch.randint(0, 512, (b, n, n), dtype=torch.int64)
    edge_feat = torch.randint(0, 64, (b, n, n, 3), dtype=torch.int64)
    attn_bias = torch.rand((b, n + 1, n + 1, 32), dtype=torch.float32)
    return (shortest_path, edge_feat, attn_bias)


def example_inputs():
    return _inputs(4, 19)


def other_inputs():
    return [_inputs(3, 11), _inputs(6, 25)]


def probe_inputs():
    return other_inputs()
