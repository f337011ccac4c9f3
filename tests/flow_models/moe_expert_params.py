"""ONX603: transformers' MoE experts stored as 3-D parameters (LFM2-MoE, huggingface/optimum-intel#1609):
`for expert_idx in expert_hit:` then `expert_idx = int(expert_idx.item())`, the expert's weights
`self.gate_up_proj[expert_idx]`. The loop runs over every expert, `range(self.num_experts)`: an expert
no token is routed to works on an empty selection, and the hit experts add in the same order."""
import torch
from torch import nn
from torch.nn import functional as F


class Experts(nn.Module):
    def __init__(self, num_experts: int = 4, hidden: int = 8, inner: int = 6):
        super().__init__()
        self.num_experts = num_experts
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, 2 * inner, hidden) * 0.3)
        self.down_proj = nn.Parameter(torch.randn(num_experts, hidden, inner) * 0.3)

    def forward(self, hidden_states, top_k_index, top_k_weights):
        final_hidden_states = torch.zeros_like(hidden_states)
        with torch.no_grad():
            expert_mask = torch.nn.functional.one_hot(top_k_index, num_classes=self.num_experts)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert_idx in expert_hit:
            expert_idx = int(expert_idx.item())
            top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[token_idx]
            gate, up = F.linear(current_state, self.gate_up_proj[expert_idx]).chunk(2, dim=-1)
            current = F.linear(F.silu(gate) * up, self.down_proj[expert_idx])
            current = current * top_k_weights[token_idx, top_k_pos, None]
            final_hidden_states.index_add_(0, token_idx, current)
        return final_hidden_states


class SparseMoeBlock(nn.Module):
    def __init__(self, num_experts: int = 4, hidden: int = 8, top_k: int = 2):
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(hidden, num_experts, bias=False)
        self.experts = Experts(num_experts, hidden)

    def forward(self, hidden_states):
        batch, length, hidden = hidden_states.shape
        flat = hidden_states.view(-1, hidden)
        weights, selected = torch.topk(F.softmax(self.gate(flat), dim=-1), self.top_k, dim=-1)
        return self.experts(flat, selected, weights).view(batch, length, hidden)


def make_model():
    torch.manual_seed(0)
    return SparseMoeBlock().eval()


def example_inputs():
    torch.manual_seed(2)
    return (torch.randn(2, 3, 8),)


def probe_inputs():
    torch.manual_seed(3)
    return [(torch.randn(1, 5, 8),), (torch.randn(3, 1, 8),)]


DYNAMIC = {0: {0: "batch", 1: "length"}}
