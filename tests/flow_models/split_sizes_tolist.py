"""ONX202 on a mixture of experts' grouped tokens (GraniteMoE, Qwen-VL's `torch.split(t,
lengths.tolist())`): the tokens sorted by expert are split by the counts per expert, `counts.tolist()`.
The legacy exporter records the counts of the export batch as the Split's sizes: onnxruntime refuses
other batches ("Cannot split using values in 'split' attribute"). Fixed safely: `_onnx_tensor_list`
is `.tolist()` but while the legacy exporter traces, where the counts stay graph values."""
import torch
import torch.nn.functional as F
from torch import nn


class GroupedExperts(nn.Module):
    def __init__(self, experts=3, dim=6):
        super().__init__()
        self.router = nn.Linear(dim, experts)
        self.weight = nn.Parameter(torch.randn(experts, dim, dim) * 0.2)
        self.experts = experts

    def forward(self, tokens):
        choice = self.router(tokens).argmax(-1)
        n = tokens.shape[0]
        order = torch.argsort(choice * n + torch.arange(n))  # by expert, then position: unique keys
        counts = F.one_hot(choice, self.experts).sum(0)
        expert_size = counts.tolist()
        groups = tokens[order].split(expert_size, dim=0)
        out = torch.cat([F.linear(g, self.weight[i]) for i, g in enumerate(groups)], 0)
        return torch.zeros_like(out).index_copy(0, order, out)


def make_model():
    torch.manual_seed(0)
    return GroupedExperts()


def example_inputs():
    return (torch.randn(10, 6),)


def probe_inputs():
    return [(torch.randn(17, 6),), (torch.randn(4, 6),)]


DYNAMIC = {0: {0: "tokens"}}
