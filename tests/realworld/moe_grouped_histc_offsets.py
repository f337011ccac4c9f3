"""Mixture-of-experts LLM block (the report: microsoft/OptiMind-SFT, a transformers MoE model) whose
grouped-expert path counts tokens per expert with
`torch.histc(expert_ids_g.float(), bins=num_experts, min=0, max=num_experts - 1)` and turns the
counts into grouped-matmul offsets; the report's dynamo export fails because
aten.histc has no ONNX translation.

Source: https://github.com/microsoft/onnxscript/issues/2794
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}}
BLIND = "operators-3"


class MoeExperts(nn.Module):
    def __init__(self, num_experts=4, hidden=32, intermediate=64):
        super().__init__()
        self.num_experts = num_experts
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, hidden, 2 * intermediate) * 0.05)
        self.down_proj = nn.Parameter(torch.randn(num_experts, intermediate, hidden) * 0.05)

    def _grouped_linear(self, x, weight, offsets):
        # CPU fallback of grouped_mm: row i belongs to the expert whose offset range holds i
        rows = torch.arange(x.shape[0], device=x.device)
        row_expert = (rows[:, None] >= offsets[None, :]).sum(-1)
        return torch.bmm(x.unsqueeze(1), weight[row_expert]).squeeze(1)

    def forward(self, hidden_states, top_k_index, top_k_weights):
        num_experts = self.num_experts
        s, h = hidden_states.shape
        expert_ids = top_k_index.reshape(-1)
        perm = torch.argsort(expert_ids)
        expert_ids_g = expert_ids[perm]
        token_idx = perm // top_k_index.shape[1]
        selected_hidden_states_g = hidden_states[token_idx]

        # Compute offsets for grouped_mm
        # using histc instead of bincount to avoid cuda graph issues
        num_tokens_per_expert = torch.histc(expert_ids_g.float(), bins=num_experts, min=0, max=num_experts - 1)
        offsets = torch.cumsum(num_tokens_per_expert, dim=0, dtype=torch.int32)

        gate_up_out = self._grouped_linear(selected_hidden_states_g, self.gate_up_proj, offsets)
        gate, up = gate_up_out.chunk(2, dim=-1)
        gated_out = nn.functional.silu(gate) * up
        out_g = self._grouped_linear(gated_out, self.down_proj, offsets)
        out_g = out_g * top_k_weights.reshape(-1)[perm].unsqueeze(-1)
        return torch.zeros_like(hidden_states).index_add(0, token_idx, out_g)


class MoeBlock(nn.Module):
    def __init__(self, hidden=32, num_experts=4, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.router = nn.Linear(hidden, num_experts, bias=False)
        self.experts = MoeExperts(num_experts, hidden)

    def forward(self, hidden_states):
        b, t, h = hidden_states.shape
        flat = hidden_states.reshape(-1, h)
        router_logits = self.router(flat)
        top_k_weights, top_k_index = torch.topk(router_logits.softmax(-1), self.top_k, dim=-1)
        top_k_weights = top_k_weights / top_k_weights.sum(-1, keepdim=True)
        out = self.experts(flat, top_k_index, top_k_weights)
        return hidden_states + out.reshape(b, t, h)


def make_model():
    return MoeBlock().eval()


def example_inputs():
    return (torch.randn(2, 10, 32),)


def other_inputs():
    return [(torch.randn(3, 7, 32),), (torch.randn(1, 16, 32),)]


def probe_inputs():
    return other_inputs()
