"""GLiNER2's boundary candidate pool ranks the union start logits over queries with
select_top_boundaries, which calls torch.sort(masked, dim=-1, descending=True, stable=True); the
cognee export script for this head has to work around it because "aten.sort.stable has no
translation" under torch.export (it registers a TopK translation) and the legacy exporter rejects
stable=True (it strips the keyword).

Source: https://github.com/topoteretes/cognee/blob/5f75446eae951b5844633e10ebb2476d9be2c809/cognee/tasks/graph/gliner_demo/onnx/export.py
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "boundary_states": {0: "batch", 1: "boundaries"},
    "boundary_mask": {0: "batch", 1: "boundaries"},
    "query_states": {0: "batch", 1: "queries"},
}
BLIND = "operators-25"

MASK_LOGIT = -1.0e4


def select_top_boundaries(
    logits: torch.Tensor,
    valid_mask: torch.Tensor,
    k: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Select the top-k boundaries with a stable index tie-break."""
    length = logits.shape[-1]
    k = min(k, length)
    masked = logits.masked_fill(~valid_mask, MASK_LOGIT)
    scores, idx = torch.sort(masked, dim=-1, descending=True, stable=True)
    scores = scores[..., :k]
    idx = idx[..., :k]
    valid = torch.gather(valid_mask, -1, idx)
    scores = torch.where(valid, scores, torch.zeros_like(scores))
    idx = torch.where(valid, idx, torch.zeros_like(idx))
    return scores, idx, valid


class DocumentCandidatePool(nn.Module):
    def __init__(self, hidden_size=32, pool_boundary_top_k=32):
        super().__init__()
        self.pool_boundary_top_k = pool_boundary_top_k
        self.start_projection = nn.Linear(hidden_size, hidden_size)
        self.end_projection = nn.Linear(hidden_size, hidden_size)

    def forward(self, boundary_states, boundary_mask, query_states):
        b, n, d = boundary_states.shape
        start_logits = torch.einsum("bnd,bqd->bqn", self.start_projection(boundary_states), query_states)
        end_logits = torch.einsum("bnd,bqd->bqn", self.end_projection(boundary_states), query_states)
        start_logits = start_logits / math.sqrt(d)
        end_logits = end_logits / math.sqrt(d)
        floor = torch.full_like(start_logits, MASK_LOGIT)
        q_boundary = boundary_mask.unsqueeze(1).expand_as(start_logits)
        union_start = torch.where(q_boundary, start_logits, floor).amax(1)
        union_end = torch.where(q_boundary, end_logits, floor).amax(1)
        union_valid = boundary_mask

        start_scores, starts, starts_valid = select_top_boundaries(
            union_start.unsqueeze(1), union_valid.unsqueeze(1), self.pool_boundary_top_k,
        )
        end_scores, ends, ends_valid = select_top_boundaries(
            union_end.unsqueeze(1), union_valid.unsqueeze(1), self.pool_boundary_top_k,
        )
        return start_scores[:, 0], starts[:, 0], end_scores[:, 0], ends[:, 0]


def make_model():
    return DocumentCandidatePool().eval()


def _inputs(b, n, q):
    states = torch.randn(b, n, 32)
    mask = torch.ones(b, n, dtype=torch.bool)
    mask[:, n - 5:] = False
    return (states, mask, torch.randn(b, q, 32))


def example_inputs():
    return _inputs(2, 48, 4)


def other_inputs():
    return [_inputs(3, 64, 6), _inputs(1, 40, 2)]


def probe_inputs():
    return other_inputs()
