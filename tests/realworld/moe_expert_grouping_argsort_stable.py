"""Mixture-of-experts block that groups the selected (token, expert) pairs by expert the way
transformers' grouped_mm experts forward did: `perm = torch.argsort(expert_ids, stable=True)` and
`inv_perm = torch.argsort(perm, stable=True)`, runs each pair through its expert's weights in the
grouped order and scatters the results back with the inverse permutation.

The report (onnxscript issue 2920, "Update torchlib") asks torchlib to absorb the workarounds in
transformers' ONNX exporter; one of them is an FX rewrite of `aten.sort.stable` into
`aten.sort.default` "which has ONNX translation", because the stable sort has none.

Source: https://github.com/microsoft/onnxscript/issues/2920
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "tokens"}}
BLIND = "operators-29"


class SparseMoeBlock(nn.Module):
    def __init__(self, hidden_size=32, intermediate_size=48, num_experts=6, top_k=2):
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k
        self.router = nn.Linear(hidden_size, num_experts, bias=False)
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, 2 * intermediate_size, hidden_size) * 0.05)
        self.down_proj = nn.Parameter(torch.randn(num_experts, hidden_size, intermediate_size) * 0.05)

    def forward(self, hidden_states):
        num_tokens, hidden_dim = hidden_states.shape
        router_probs = F.softmax(self.router(hidden_states), dim=-1)
        top_k_weights, top_k_index = torch.topk(router_probs, self.top_k, dim=-1)
        top_k_weights = top_k_weights / top_k_weights.sum(dim=-1, keepdim=True)

        expert_ids = top_k_index.reshape(-1)
        sample_weights = top_k_weights.reshape(-1)
        token_idx = (
            torch.arange(num_tokens, device=hidden_states.device)
            .unsqueeze(1)
            .expand(-1, self.top_k)
            .reshape(-1)
        )

        # group the pairs by expert
        perm = torch.argsort(expert_ids, stable=True)
        inv_perm = torch.argsort(perm, stable=True)
        expert_ids_g = expert_ids[perm]
        hidden_g = hidden_states[token_idx[perm]]

        gate_up = torch.bmm(self.gate_up_proj[expert_ids_g], hidden_g.unsqueeze(-1)).squeeze(-1)
        gate, up = gate_up.chunk(2, dim=-1)
        out_g = torch.bmm(self.down_proj[expert_ids_g], (F.silu(gate) * up).unsqueeze(-1)).squeeze(-1)

        # back to (token, k) order, weight and sum over the k experts
        out = out_g[inv_perm] * sample_weights.unsqueeze(-1)
        return out.view(num_tokens, self.top_k, hidden_dim).sum(dim=1)


def make_model():
    return SparseMoeBlock()


def example_inputs():
    return (torch.randn(10, 32),)


def other_inputs():
    return [(torch.randn(23, 32),), (torch.randn(3, 32),)]


def probe_inputs():
    return other_inputs()
