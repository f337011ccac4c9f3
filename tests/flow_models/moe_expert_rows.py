"""ONX603: transformers' sparse MoE block as Qwen3-MoE / Mixtral wrote it in 2025
(huggingface/optimum-onnx#25): the loop's row [e] of `expert_hit` indexes directly,
`self.experts[expert_idx]` and `torch.where(expert_mask[expert_idx].squeeze(0))`. The loop runs
over every expert, e an int: the module list gives the same expert and the mask row needs no
squeeze (with top_k = 1, as here, keeping it would squeeze the top-k axis away)."""
import torch
from torch import nn
from torch.nn import functional as F


class Expert(nn.Module):
    def __init__(self, hidden: int, inner: int):
        super().__init__()
        self.up = nn.Linear(hidden, inner, bias=False)
        self.down = nn.Linear(inner, hidden, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.up(x)))


class SparseMoeBlock(nn.Module):
    def __init__(self, num_experts: int = 5, hidden: int = 8, inner: int = 12, top_k: int = 1):
        super().__init__()
        self.num_experts, self.top_k = num_experts, top_k
        self.gate = nn.Linear(hidden, num_experts, bias=False)
        self.experts = nn.ModuleList([Expert(hidden, inner) for _ in range(num_experts)])

    def forward(self, hidden_states: torch.Tensor):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights = routing_weights.to(hidden_states.dtype)
        final_hidden_states = torch.zeros(
            (batch_size * sequence_length, hidden_dim), dtype=hidden_states.dtype, device=hidden_states.device
        )
        expert_mask = torch.nn.functional.one_hot(selected_experts, num_classes=self.num_experts).permute(2, 1, 0)
        expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert_idx in expert_hit:
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx].squeeze(0))
            current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
            current_hidden_states = expert_layer(current_state) * routing_weights[top_x, idx, None]
            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
        return final_hidden_states.reshape(batch_size, sequence_length, hidden_dim), router_logits


def make_model():
    torch.manual_seed(0)
    return SparseMoeBlock().eval()


def example_inputs():
    torch.manual_seed(2)
    return (torch.randn(2, 3, 8),)


def probe_inputs():
    torch.manual_seed(3)
    # one token (one expert hit), then longer sequences routed differently from export time
    return [(torch.randn(1, 1, 8),), (torch.randn(3, 5, 8),), (torch.randn(2, 7, 8) * 3,)]


DYNAMIC = {0: {0: "batch", 1: "seq"}}
