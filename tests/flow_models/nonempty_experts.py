"""ONX610 on GLM-4 MoE's expert loop: each expert's tokens found by `torch.where(mask)` and the
expert run only `if token_indices.numel() > 0:`. torch.export cannot decide the size of a
selection by the data (GuardOnDataDependentSymNode). Fixed by running the block under export
whatever the size (an expert on no tokens adds nothing); eager keeps the test."""
import torch
from torch import nn


class Experts(nn.Module):
    def __init__(self, n=3, d=8):
        super().__init__()
        self.gate = nn.Linear(d, n)
        self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(n))

    def forward(self, x):
        top = self.gate(x).topk(2, dim=-1).indices
        expert_mask = torch.nn.functional.one_hot(top, num_classes=len(self.experts)).permute(2, 0, 1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            rows, slots = torch.where(expert_mask[e])
            if rows.numel() > 0:
                out = out.index_add(0, rows, expert(x[rows]))
        return out


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return Experts()


def example_inputs():
    return (torch.randn(6, 8),)


def probe_inputs():
    return [(torch.randn(9, 8),), (torch.randn(3, 8),)]


DYNAMIC = {0: {0: "tokens"}}
