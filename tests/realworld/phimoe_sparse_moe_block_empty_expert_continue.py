"""Phi-3.5-MoE (transformers `PhimoeSparseMoeBlock`, v4.50): tokens are routed by `sparsemixer` (top-2 via two masked
max/softmax/gather passes), then the block loops over all experts, takes `idx, top_x = torch.where(expert_mask[i])`
and skips empty experts with `if top_x.shape[0] == 0: continue`. optimum-intel's PhiMoE export support had to
replace the forward for tracing: "removed usage nonfriendly for tracing operation continue" (the empty-expert exit
on a data-dependent size). (Tiny config: 4 experts, hidden 16; gate and experts random.)

Source: https://github.com/huggingface/optimum-intel/pull/1215
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-exit"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}}
BLIND = "domains-49"


def sparsemixer(scores, jitter_eps, training, top_k=2):
    if top_k != 2:
        raise ValueError("top_k must be equal to 2")

    # first expert
    with torch.no_grad():
        mask_logits_threshold, max_ind = scores.max(dim=-1, keepdim=True)
        factor = scores.abs().clamp(min=mask_logits_threshold)
        mask_logits_threshold = ((mask_logits_threshold - scores) / factor) > (2 * jitter_eps)

    masked_gates = scores.masked_fill(mask_logits_threshold, float("-inf"))
    selected_experts = max_ind
    masked_gates = torch.softmax(masked_gates, dim=-1)
    multiplier_o = masked_gates.gather(dim=-1, index=selected_experts)
    multiplier = multiplier_o

    # masked out first expert
    masked_scores = torch.scatter(scores, -1, selected_experts, float("-inf"))
    with torch.no_grad():
        mask_logits_threshold, max_ind = masked_scores.max(dim=-1, keepdim=True)
        factor = scores.abs().clamp(min=mask_logits_threshold)
        mask_logits_threshold = ((mask_logits_threshold - scores) / factor) > (2 * jitter_eps)

    masked_gates_top2 = masked_scores.masked_fill(mask_logits_threshold, float("-inf"))
    selected_experts_top2 = max_ind
    masked_gates_top2 = torch.softmax(masked_gates_top2, dim=-1)
    multiplier_top2_o = masked_gates_top2.gather(dim=-1, index=selected_experts_top2)
    multiplier_top2 = multiplier_top2_o

    multiplier = torch.concat((multiplier, multiplier_top2), dim=-1)
    selected_experts = torch.concat((selected_experts, selected_experts_top2), dim=-1)
    return multiplier, selected_experts


class PhimoeBlockSparseTop2MLP(nn.Module):
    def __init__(self, hidden_dim, ffn_dim):
        super().__init__()
        self.w1 = nn.Linear(hidden_dim, ffn_dim, bias=False)
        self.w2 = nn.Linear(ffn_dim, hidden_dim, bias=False)
        self.w3 = nn.Linear(hidden_dim, ffn_dim, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states):
        current_hidden_states = self.act_fn(self.w1(hidden_states)) * self.w3(hidden_states)
        return self.w2(current_hidden_states)


class PhimoeSparseMoeBlock(nn.Module):
    def __init__(self, hidden_dim=16, ffn_dim=32, num_experts=4, top_k=2, router_jitter_noise=0.01):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.num_experts = num_experts
        self.top_k = top_k
        self.router_jitter_noise = router_jitter_noise
        self.input_jitter_noise = 0.0
        self.gate = nn.Linear(hidden_dim, num_experts, bias=False)
        self.experts = nn.ModuleList([PhimoeBlockSparseTop2MLP(hidden_dim, ffn_dim) for _ in range(num_experts)])

    def forward(self, hidden_states: torch.Tensor):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)

        routing_weights, selected_experts = sparsemixer(
            router_logits,
            jitter_eps=self.router_jitter_noise,
            training=self.training,
        )

        final_hidden_states = torch.zeros(
            (batch_size * sequence_length, hidden_dim), dtype=hidden_states.dtype, device=hidden_states.device
        )

        expert_mask = torch.nn.functional.one_hot(selected_experts, num_classes=self.num_experts).permute(2, 1, 0)

        for expert_idx in range(self.num_experts):
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx])

            if top_x.shape[0] == 0:
                continue

            current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
            current_hidden_states = expert_layer(current_state) * routing_weights[top_x, idx, None]

            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
        final_hidden_states = final_hidden_states.reshape(batch_size, sequence_length, hidden_dim)
        return final_hidden_states, router_logits


def make_model():
    return PhimoeSparseMoeBlock().eval()


def example_inputs():
    return (torch.randn(2, 7, 16),)


def other_inputs():
    return [(torch.randn(3, 11, 16),), (torch.randn(1, 2, 16),)]


def probe_inputs():
    return other_inputs()
