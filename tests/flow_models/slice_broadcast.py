"""ONX706: Uni-Mol's virtual-node distance broadcast into the attention bias's first row and column;
positions broadcast into a channel of a buffer whose rank its constructor shows."""
import torch
from torch import nn


class EdgeFeature(nn.Module):
    def __init__(self):
        super().__init__()
        self.virtual = nn.Embedding(1, 8)
        self.dim = 8

    def forward(self, bias: torch.Tensor):
        bias = bias.clone()
        t = self.virtual.weight.view(1, 1, self.dim)
        bias[:, 1:, 0, :] = t
        bias[:, 0, :, :] = t
        pair = torch.zeros([2, bias.shape[1], bias.shape[2]])  # a guidance pair buffer: its rank from its sizes
        pair[:, 1] = torch.arange(bias.shape[2]).float()
        pair[0] = torch.arange(bias.shape[2]).float().view(1, 1, -1)  # (1, 1, n) into (n, n): the leading axis dropped
        return bias, pair


def make_model():
    torch.manual_seed(0)
    return EdgeFeature()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 5, 5, 8),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 9, 9, 8),), (torch.randn(1, 4, 4, 8) * 3,)]


DYNAMIC = {0: {0: "batch", 1: "nodes", 2: "nodes2"}}
