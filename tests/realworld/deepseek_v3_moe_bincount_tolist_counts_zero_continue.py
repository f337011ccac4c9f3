"""DeepSeek-V3's own inference MoE (inference/model.py, not transformers): the gate picks top-k experts,
then `counts = torch.bincount(indices.flatten(), minlength=self.n_routed_experts).tolist()` and the
per-expert loop skips empty experts with `if counts[i] == 0: continue` before gathering its tokens with
`torch.where(indices == i)`. The report hits `GuardOnDataDependentSymNode` on the `counts[i] == 0` branch
when the MoE module is traced by dynamo.

Source: https://github.com/deepseek-ai/DeepSeek-V3/issues/374
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "seqlen"}}
BLIND = "domains-75"


class Gate(nn.Module):
    def __init__(self, dim, n_routed_experts, topk, route_scale=1.0):
        super().__init__()
        self.topk = topk
        self.route_scale = route_scale
        self.weight = nn.Parameter(torch.randn(n_routed_experts, dim) * 0.1)

    def forward(self, x):
        scores = torch.matmul(x, self.weight.T)
        scores = scores.softmax(dim=-1, dtype=torch.float32)
        indices = scores.topk(self.topk, dim=-1)[1]
        weights = scores.gather(1, indices)
        return (weights * self.route_scale).type_as(x), indices


class Expert(nn.Module):
    def __init__(self, dim, inter_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, inter_dim)
        self.w2 = nn.Linear(inter_dim, dim)
        self.w3 = nn.Linear(dim, inter_dim)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class MoE(nn.Module):
    def __init__(self, dim=32, n_routed_experts=8, n_activated_experts=2, moe_inter_dim=48):
        super().__init__()
        self.dim = dim
        self.n_routed_experts = n_routed_experts
        self.experts_start_idx = 0
        self.experts_end_idx = n_routed_experts
        self.gate = Gate(dim, n_routed_experts, n_activated_experts)
        self.experts = nn.ModuleList([Expert(dim, moe_inter_dim) for _ in range(n_routed_experts)])
        self.shared_experts = Expert(dim, moe_inter_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.size()
        x = x.view(-1, self.dim)
        weights, indices = self.gate(x)
        y = torch.zeros_like(x)
        counts = torch.bincount(indices.flatten(), minlength=self.n_routed_experts).tolist()
        for i in range(self.experts_start_idx, self.experts_end_idx):
            if counts[i] == 0:
                continue
            expert = self.experts[i]
            idx, top = torch.where(indices == i)
            y[idx] += expert(x[idx]) * weights[idx, top, None]
        z = self.shared_experts(x)
        return (y + z).view(shape)


def make_model():
    return MoE().eval()


def example_inputs():
    return (torch.randn(2, 6, 32),)


def other_inputs():
    return [(torch.randn(3, 9, 32),), (torch.randn(1, 3, 32),)]


def probe_inputs():
    return other_inputs()
