"""ONX603 on recurrences over the time axis: a state-space scan (Mamba's slow path, the state
stepped with `A[:, :, i] * state + Bu[:, :, i]` and each step's readout stacked) and a GRU cell
stepped by hand, its hidden states concatenated, and a gate written into one slot per step. Unrolled at export: torch.export fails on the
dynamic time axis and the legacy exporter keeps the export-time steps. Fixed (unsafe) by running
each loop as `torch._higher_order_ops.scan` under torch.export, the loop kept for eager and the
legacy exporter (still wrong there). With gradients on, torch.onnx's decompositions fail on a scan
whose operands require grad ('SymInt' object has no attribute 'unsqueeze'): `onnxfix export`
repairs that with gradients_off (tests/test_export_scan.py)."""
import torch
from torch import nn


class SelectiveScan(nn.Module):
    def __init__(self, d=6, n=4):
        super().__init__()
        self.in_proj = nn.Linear(d, 3 * n)
        self.A_log = nn.Parameter(torch.randn(d, n) * 0.1)
        self.cell = nn.GRUCell(d, d)
        self.n = n

    def forward(self, x):
        batch, seq_len, d = x.shape
        delta, B, C = self.in_proj(x).split(self.n, dim=-1)
        dt = torch.nn.functional.softplus(delta.mean(-1))[:, None, :, None]  # [batch, 1, seq_len, 1]
        discrete_A = torch.exp(-torch.exp(self.A_log)[None, :, None, :] * dt)  # [batch, d, seq_len, n]
        deltaB_u = dt * B[:, None, :, :] * x.transpose(1, 2)[..., None]
        ssm_state = torch.zeros(batch, d, self.n)
        scan_outputs = []
        for i in range(seq_len):
            ssm_state = discrete_A[:, :, i, :] * ssm_state + deltaB_u[:, :, i, :]
            scan_output = torch.matmul(ssm_state, C[:, i, :].unsqueeze(-1))
            scan_outputs.append(scan_output[:, :, 0])
        y = torch.stack(scan_outputs, dim=-1).transpose(1, 2)  # [batch, seq_len, d]
        h = y[:, 0]
        hidden = []
        for t in range(y.shape[1]):
            h = self.cell(y[:, t], h)
            hidden.append(h[:, None])
        states = torch.cat(hidden, dim=1)
        gated = torch.zeros(batch, seq_len, d)
        for t in range(seq_len):
            gated[:, t] = torch.sigmoid(y[:, t]) * y[:, t]  # a step of its own: no carried value
        return states, ssm_state, gated


def make_model():
    torch.manual_seed(0)
    return SelectiveScan().eval()


def example_inputs():
    return (torch.randn(2, 4, 6),)


def probe_inputs():
    return [(torch.randn(3, 7, 6),), (torch.randn(1, 2, 6),)]


DYNAMIC = {0: {0: "batch", 1: "time"}}
