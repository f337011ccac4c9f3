"""TiRex's multi-head layer norm: `F.group_norm(x, num_groups=NH)` with `NH` unpacked from the input's
shape. While the legacy exporter traces, `NH` is a graph value, and the group_norm symbolic takes
num_groups only as a constant ("Expected node type 'onnx::Constant' for argument 'num_groups'"). The
heads are a static dim; the sequence and batch are dynamic."""
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "sequence"}}


class MultiHeadLayerNorm(nn.Module):
    def __init__(self, ndim=8):
        super().__init__()
        self.weight = nn.Parameter(torch.linspace(-0.5, 0.5, ndim))

    def forward(self, x):
        B, NH, S, DH = x.shape
        flat = x.transpose(1, 2).reshape(B * S, NH * DH)
        out = F.group_norm(flat, num_groups=NH, weight=1.0 + self.weight)
        return out.view(B, S, NH, DH).transpose(1, 2)


def make_model():
    torch.manual_seed(0)
    return MultiHeadLayerNorm().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 2, 5, 4),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 2, 7, 4),), (torch.randn(1, 2, 2, 4),)]
