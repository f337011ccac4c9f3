"""ONX610 on PhiMoE's sparse block: `if top_x.shape[0] == 0: continue` skips an expert no token chose.
The count comes out of the routing (`torch.where(mask[e])`): torch.export cannot decide `Eq(u0, 0)`
(GuardOnDataDependentSymNode). Fixed (unsafe): the skip is taken in eager only; under export the
expert runs on its rows, none for an expert nobody chose, and its copy writes nothing."""
import torch
import torch.nn.functional as F
from torch import nn


class SparseExperts(nn.Module):
    def __init__(self, experts=4, dim=6):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(experts)])

    def forward(self, hidden):
        choice = self.gate(hidden).argmax(-1)
        mask = F.one_hot(choice, len(self.experts)).permute(1, 0)
        out = torch.zeros_like(hidden)
        for e, expert in enumerate(self.experts):
            top_x = torch.where(mask[e])[0]
            if top_x.shape[0] == 0:
                continue
            out = out.index_copy(0, top_x, expert(hidden[top_x]))
        return out


def make_model():
    torch.manual_seed(0)
    return SparseExperts()


def example_inputs():
    # drawn from their own seeds: the routing (which experts get tokens) decides what the legacy trace
    # records, so it must not depend on what ran before in the process
    return (torch.randn(12, 6, generator=torch.Generator().manual_seed(0)),)


def probe_inputs():
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(3, 6, generator=generator),), (torch.randn(20, 6, generator=generator),)]


DYNAMIC = {0: {0: "tokens"}}
