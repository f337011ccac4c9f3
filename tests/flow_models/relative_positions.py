"""ONX101 through a name the array and the tensor share: DeBERTa's relative positions are built
in NumPy, `rel_pos_ids = q_ids[:, None] - np.tile(k_ids, (q_ids.shape[0], 1))`, then converted
under the same name, `rel_pos_ids = torch.from_numpy(rel_pos_ids).to(device)`. Both exporters
see NumPy arrays of the export-time length: the legacy exporter bakes them in, torch.export
specializes the length. Fixed safely by torch.arange and torch.tile (the same int64 values); `torch.tensor(a, dtype=...)`
becomes `a.to(dtype=..., copy=True)`."""
import numpy as np
import torch
from torch import nn


def build_relative_position(query_size, key_size, device):
    q_ids = np.arange(0, query_size)
    k_ids = np.arange(0, key_size)
    rel_pos_ids = q_ids[:, None] - np.tile(k_ids, (q_ids.shape[0], 1))
    rel_pos_ids = torch.from_numpy(rel_pos_ids).to(device)
    rel_pos_ids = rel_pos_ids[:query_size, :]
    return rel_pos_ids.unsqueeze(0)


def key_positions(key_size):
    """The transformers spelling of the conversion: torch.tensor with a dtype."""
    k_ids = np.arange(0, key_size)
    k_ids = torch.tensor(k_ids, dtype=torch.float32)
    return k_ids / key_size


class RelativeBias(nn.Module):
    def __init__(self, span=4, heads=2):
        super().__init__()
        self.span = span
        self.bias = nn.Embedding(2 * span + 1, heads)

    def forward(self, hidden):
        n = hidden.size(1)
        rel = build_relative_position(n, n, hidden.device)
        bias = self.bias(rel.clamp(-self.span, self.span) + self.span)  # (1, n, n, heads)
        scores = hidden @ hidden.transpose(-1, -2) + key_positions(n)
        return scores.unsqueeze(-1) + bias


def make_model():
    torch.manual_seed(0)
    return RelativeBias()


def example_inputs():
    return (torch.randn(2, 7, 8),)


def probe_inputs():
    return [(torch.randn(1, 5, 8),), (torch.randn(3, 11, 8),)]


DYNAMIC = {0: {0: "batch", 1: "length"}}
