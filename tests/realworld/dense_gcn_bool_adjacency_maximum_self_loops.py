"""Dense GCN layer (the report comes from the torchbench `basic_gnn_gcn` GCNConv export) that builds a
boolean radius-graph adjacency and adds self loops with `torch.maximum` on two bool masks. ONNX Max/Min
do not take bool inputs, so the exported graph is rejected by onnxruntime ("Max ... has unsupported type:
tensor(bool)"); the report asks for bool in Min/Max (torchlib later mapped bool maximum to Or; the
TorchScript exporter still emits Max on bool).

Source: https://github.com/onnx/onnx/issues/5547
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "nodes"}, "pos": {0: "batch", 1: "nodes"}}
BLIND = "operators-43"


class DenseGCNConv(nn.Module):
    def __init__(self, in_channels=16, out_channels=32, radius=1.0):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))
        self.radius = radius

    def forward(self, x, pos):
        n = x.shape[1]
        dist = (pos.unsqueeze(2) - pos.unsqueeze(1)).norm(dim=-1)
        adj = dist < self.radius                                        # bool (B, N, N)
        eye = torch.eye(n, dtype=torch.bool, device=x.device).unsqueeze(0)
        adj = torch.maximum(adj, eye)                                   # add self loops (bool)
        a = adj.to(x.dtype)
        deg_inv_sqrt = a.sum(-1).clamp(min=1).pow(-0.5)
        a = deg_inv_sqrt.unsqueeze(-1) * a * deg_inv_sqrt.unsqueeze(-2)
        return torch.matmul(a, self.lin(x)) + self.bias


def make_model():
    return DenseGCNConv().eval()


def example_inputs():
    return (torch.randn(2, 10, 16), torch.randn(2, 10, 3))


def other_inputs():
    return [(torch.randn(3, 17, 16), torch.randn(3, 17, 3)), (torch.randn(1, 6, 16), torch.randn(1, 6, 3))]


def probe_inputs():
    return other_inputs()
