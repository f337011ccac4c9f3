"""ONX603: a Mixtral-style sparse MoE block, whose experts loop over the experts the batch hits
(`for expert_idx in expert_hit:`, the nonzero of the one-hot routing mask's counts). Expert 5 of 6
gets no token on most inputs (its router row is pushed down), so the rewritten loop over every
expert runs it on empty selections."""
import torch
from torch import nn
from torch.nn import functional as F


class Experts(nn.Module):
    def __init__(self, num_experts: int, hidden: int, inner: int):
        super().__init__()
        self.num_experts = num_experts
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, 2 * inner, hidden) / hidden**0.5)
        self.down_proj = nn.Parameter(torch.randn(num_experts, hidden, inner) / inner**0.5)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states: torch.Tensor, top_k_index: torch.Tensor, top_k_weights: torch.Tensor):
        final_hidden_states = torch.zeros_like(hidden_states)
        with torch.no_grad():
            expert_mask = F.one_hot(top_k_index, num_classes=self.num_experts + 1)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()

        for expert_idx in expert_hit:
            expert_idx = expert_idx[0]
            if expert_idx == self.num_experts:
                continue
            top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[token_idx]
            gate, up = F.linear(current_state, self.gate_up_proj[expert_idx]).chunk(2, dim=-1)
            current_hidden_states = self.act_fn(gate) * up
            current_hidden_states = F.linear(current_hidden_states, self.down_proj[expert_idx])
            current_hidden_states = current_hidden_states * top_k_weights[token_idx, top_k_pos, None]
            final_hidden_states.index_add_(0, token_idx, current_hidden_states.to(final_hidden_states.dtype))

        return final_hidden_states


class SparseMoeBlock(nn.Module):
    def __init__(self, num_experts: int = 6, hidden: int = 8, inner: int = 12, top_k: int = 2):
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(hidden, num_experts, bias=True)
        with torch.no_grad():
            self.gate.bias[-1] = -50.0  # the last expert is (almost) never chosen
        self.experts = Experts(num_experts, hidden, inner)

    def forward(self, hidden_states: torch.Tensor):
        batch, seq, hidden = hidden_states.shape
        hidden_states = hidden_states.reshape(-1, hidden)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=-1, dtype=torch.float)
        routing_weights, selected = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
        out = self.experts(hidden_states, selected, routing_weights.to(hidden_states.dtype))
        return out.reshape(batch, seq, hidden), router_logits


def make_model():
    torch.manual_seed(0)
    return SparseMoeBlock().eval()


def example_inputs():
    torch.manual_seed(2)
    return (torch.randn(2, 3, 8),)


def probe_inputs():
    torch.manual_seed(3)
    # one token (two experts hit), then longer sequences routed differently from export time
    return [(torch.randn(1, 1, 8),), (torch.randn(3, 5, 8),), (torch.randn(2, 7, 8) * 3,)]


DYNAMIC = {0: {0: "batch", 1: "seq"}}
