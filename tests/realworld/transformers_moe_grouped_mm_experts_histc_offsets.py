"""Qwen2-MoE-style sparse MoE block whose experts run through transformers' `grouped_mm` experts
implementation: tokens are sorted by expert with `torch.argsort(..., stable=True)`, counted with
`torch.histc`, and both projections go through `torch._grouped_mm(..., offs=offsets)`. The PR that adds it
calls the `torch.bmm` variant "the exportable one" (made while looking for a traceable MoE for ONNX/OpenVINO);
the `_grouped_mm` path does not export.

Source: https://github.com/huggingface/transformers/pull/42697
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "operators-56"


class Experts(nn.Module):
    def __init__(self, num_experts=4, hidden_dim=32, intermediate_dim=48):
        super().__init__()
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, 2 * intermediate_dim, hidden_dim) * 0.1)
        self.down_proj = nn.Parameter(torch.randn(num_experts, hidden_dim, intermediate_dim) * 0.1)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states, top_k_index, top_k_weights):
        device = hidden_states.device
        num_top_k = top_k_index.size(-1)
        num_tokens = hidden_states.size(0)
        num_experts = self.gate_up_proj.size(0)
        final_hidden_states = torch.zeros_like(hidden_states)

        expert_ids = top_k_index.reshape(-1)
        token_idx = torch.arange(num_tokens, device=device).unsqueeze(1).expand(-1, num_top_k).reshape(-1)

        perm = torch.argsort(expert_ids, stable=True)
        inv_perm = torch.argsort(perm, stable=True)
        sample_weights = top_k_weights.reshape(-1)
        current_hidden_states = hidden_states[token_idx]

        sample_weights_g = sample_weights[perm]
        current_states_g = current_hidden_states[perm]
        expert_ids_g = expert_ids[perm]

        # using histc instead of bincount to avoid cuda graph issues
        num_tokens_per_expert = torch.histc(expert_ids_g.float(), bins=num_experts, min=0, max=num_experts - 1)
        offsets = torch.cumsum(num_tokens_per_expert, dim=0, dtype=torch.int32)

        gate_up_out = torch._grouped_mm(current_states_g, self.gate_up_proj.transpose(-2, -1), offs=offsets)
        gate, up = gate_up_out.chunk(2, dim=-1)
        hidden_after_activation = self.act_fn(gate) * up
        out_per_sample_g = torch._grouped_mm(hidden_after_activation, self.down_proj.transpose(-2, -1), offs=offsets)

        out_per_sample_g = out_per_sample_g * sample_weights_g.unsqueeze(-1)
        out_per_sample = out_per_sample_g[inv_perm]
        final_hidden_states.index_add_(0, token_idx, out_per_sample.to(final_hidden_states.dtype))
        return final_hidden_states


class SparseMoeBlock(nn.Module):
    def __init__(self, hidden_dim=32, num_experts=4, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(hidden_dim, num_experts, bias=False)
        self.experts = Experts(num_experts, hidden_dim)

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(hidden_states.dtype)
        final_hidden_states = self.experts(hidden_states, selected_experts, routing_weights)
        return final_hidden_states.reshape(batch_size, sequence_length, hidden_dim)


def make_model():
    return SparseMoeBlock().eval()


def example_inputs():
    return (torch.randn(2, 8, 32),)


def other_inputs():
    return [(torch.randn(3, 5, 32),), (torch.randn(1, 13, 32),)]


def probe_inputs():
    return other_inputs()
