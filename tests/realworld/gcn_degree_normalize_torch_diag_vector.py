"""Dense graph-convolution layer that builds the symmetric normalisation D^-1/2 (A + I) D^-1/2 with
`torch.diag` on the degree vector. The reporter uses `diag` in their project and export fails with
"Exporting the operator 'aten::diag' to ONNX opset version 17 is not supported" (opset 12 and 17).

Source: https://github.com/onnx/onnx/issues/5142
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_nodes"}, "adj": {0: "num_nodes", 1: "num_nodes"}}
BLIND = "operators-7"


class GraphConvolution(nn.Module):
    def __init__(self, in_features=16, out_features=8):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features) * 0.1)
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, x, adj):
        a_hat = adj + torch.eye(adj.size(0))
        deg = a_hat.sum(1)
        d_inv_sqrt = torch.diag(deg.pow(-0.5))
        norm_adj = d_inv_sqrt @ a_hat @ d_inv_sqrt
        support = torch.mm(x, self.weight)
        return torch.relu(torch.mm(norm_adj, support) + self.bias)


def make_model():
    return GraphConvolution()


def _graph(n):
    a = (torch.rand(n, n) > 0.6).float()
    return ((a + a.t()) > 0).float()


def example_inputs():
    return (torch.randn(6, 16), _graph(6))


def other_inputs():
    return [(torch.randn(11, 16), _graph(11)), (torch.randn(3, 16), _graph(3))]


def probe_inputs():
    return other_inputs()
