"""GraniteMoE's routing: the router returns `expert_size.tolist()` and the experts split their grouped
tokens with it in another module. The legacy trace records the counts of the export batch as the Split's
sizes (TracerWarning "Converting a tensor to a Python list"), and onnxruntime refuses other batches; the
static rules cannot see the list become split sizes across the two modules, the run's warning can."""
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"tokens": {0: "tokens"}}


class Router(nn.Module):
    def __init__(self, dim=6, experts=3):
        super().__init__()
        self.layer = nn.Linear(dim, experts)
        self.experts = experts

    def forward(self, tokens):
        choice = self.layer(tokens).argmax(-1)
        n = tokens.shape[0]
        order = torch.argsort(choice * n + torch.arange(n))
        expert_size = F.one_hot(choice, self.experts).sum(0).tolist()
        return order, expert_size


class Experts(nn.Module):
    def __init__(self, dim=6, experts=3):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(experts, dim, dim) * 0.2)

    def forward(self, grouped, expert_size):
        groups = grouped.split(expert_size, dim=0)
        return torch.cat([F.linear(g, self.weight[i]) for i, g in enumerate(groups)], 0)


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.router, self.experts = Router(), Experts()

    def forward(self, tokens):
        order, expert_size = self.router(tokens)
        out = self.experts(tokens[order], expert_size)
        return torch.zeros_like(out).index_copy(0, order, out)


def make_model():
    torch.manual_seed(0)
    return MoE().eval()


def example_inputs():
    return (torch.randn(10, 6),)


def probe_inputs():
    return [(torch.randn(17, 6),), (torch.randn(5, 6),)]
