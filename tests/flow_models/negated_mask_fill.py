"""ONX601 on ChatGLM's attention: `if not (attention_mask == 0).all(): scores.masked_fill_(attention_mask,
-10000.0)`, the fill skipped when nothing is masked (auto-regressive steps). The test is true exactly
when some element of the (bool) mask is set, the elements the fill writes: the `if` is dropped (unsafe: a
parameter is not known to be bool, and an all-zero integer mask skipped the fill, which raises on it)."""
import torch
from torch import nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qk = nn.Linear(8, 16)

    def forward(self, hidden: torch.Tensor, attention_mask: torch.Tensor):
        q, k = self.qk(hidden).chunk(2, dim=-1)
        scores = torch.bmm(q, k.transpose(1, 2))
        if not (attention_mask == 0).all():
            # if auto-regressive, skip
            scores.masked_fill_(attention_mask, -10000.0)
        return F.softmax(scores, dim=-1)


def make_model():
    torch.manual_seed(0)
    return Attention().eval()


def _causal(batch: int, length: int) -> torch.Tensor:
    return torch.ones(length, length).triu(1).bool().expand(batch, length, length)


def example_inputs():
    return (torch.randn(2, 5, 8), _causal(2, 5))


def probe_inputs():
    return [(torch.randn(3, 7, 8), _causal(3, 7)), (torch.randn(1, 4, 8), torch.zeros(1, 4, 4, dtype=torch.bool))]


DYNAMIC = {0: {0: "batch", 1: "length"}, 1: {0: "batch", 1: "length", 2: "length"}}
