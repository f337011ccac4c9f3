"""minGRU (log-space parallel mode, arXiv 2410.01201 B.3.1) as written in lucidrains/minGRU-pytorch: the
Heinsen associative scan calls `(log_values - a_star).logcumsumexp(dim = 1)`. The onnxscript report/PR says
`aten::logcumsumexp` had only a naive Log(CumSum(Exp(x))) lowering that overflows (Scan / subtract-max needed);
the TorchScript exporter has no symbolic for `aten::logcumsumexp` at all.

Source: https://github.com/microsoft/onnxscript/pull/904
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import Linear, Identity, Module

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "operators-19"


def exists(v):
    return v is not None


def default(v, d):
    return v if exists(v) else d


# appendix B
# https://github.com/glassroom/heinsen_sequence

def heinsen_associative_scan_log(log_coeffs, log_values):
    a_star = log_coeffs.cumsum(dim = 1)
    log_h0_plus_b_star = (log_values - a_star).logcumsumexp(dim = 1)
    log_h = a_star + log_h0_plus_b_star
    return log_h.exp()


def log_g(x):
    return torch.where(x >= 0, (F.relu(x) + 0.5).log(), -F.softplus(-x))


class minGRU(Module):
    def __init__(self, dim, expansion_factor = 1., proj_out = None):
        super().__init__()

        dim_inner = int(dim * expansion_factor)
        proj_out = default(proj_out, expansion_factor != 1.)

        self.to_hidden_and_gate = Linear(dim, dim_inner * 2, bias = False)
        self.to_out = Linear(dim_inner, dim, bias = False) if proj_out else Identity()

    def forward(self, x):
        # parallel (prefill / training) path
        seq_len = x.shape[1]
        hidden, gate = self.to_hidden_and_gate(x).chunk(2, dim = -1)

        log_coeffs = -F.softplus(gate)

        log_z = -F.softplus(-gate)
        log_tilde_h = log_g(hidden)
        log_values = log_z + log_tilde_h

        out = heinsen_associative_scan_log(log_coeffs, log_values)
        out = out[:, -seq_len:]

        return self.to_out(out)


class MinGRUBlock(nn.Module):
    """minLM-style residual block: pre-normed minGRU then a small feedforward."""

    def __init__(self, dim=32):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.rnn = minGRU(dim, expansion_factor = 1.5)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, x):
        x = self.rnn(self.norm(x)) + x
        return self.ff(x) + x


def make_model():
    return MinGRUBlock().eval()


def example_inputs():
    return (torch.randn(2, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 24, 32),), (torch.randn(1, 7, 32),)]


def probe_inputs():
    return other_inputs()
