"""ONX610 on DeepSeek-V3's mixture of experts: the tokens routed to each expert are counted once,
`counts = torch.bincount(indices.flatten(), minlength=n).tolist()`, and an expert no token chose is
skipped (`if counts[i] == 0: continue`) before `torch.where(indices == i)` selects its tokens. The
count is read out of the data: torch.export cannot make a list of a bincount, whose length is read
from the data, nor decide `Eq(u0, 0)`; the legacy exporter records the counts of the export inputs.
Fixed (unsafe): the skip is taken, and the counts computed, in eager only; under export every
expert runs on its rows, none for an expert nobody chose, and its write adds nothing."""
import torch
from torch import nn


class CountedExperts(nn.Module):
    def __init__(self, experts=4, dim=6, topk=2):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(experts)])
        self.topk = topk

    def forward(self, x):
        weights, indices = self.gate(x).softmax(-1).topk(self.topk, dim=-1)
        y = torch.zeros_like(x)
        counts = torch.bincount(indices.flatten(), minlength=len(self.experts)).tolist()
        for i in range(len(self.experts)):
            if counts[i] == 0:
                continue
            idx, top = torch.where(indices == i)
            y = y.index_add(0, idx, self.experts[i](x[idx]) * weights[idx, top, None])
        return y


def make_model():
    torch.manual_seed(0)
    return CountedExperts()


def example_inputs():
    # drawn from their own seeds: the routing (which experts get tokens) decides what the legacy trace
    # records, so it must not depend on what ran before in the process
    return (torch.randn(12, 6, generator=torch.Generator().manual_seed(0)),)


def probe_inputs():
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(2, 6, generator=generator),), (torch.randn(20, 6, generator=generator),)]


DYNAMIC = {0: {0: "tokens"}}
