"""GLM-4.5 MoE block (HF Glm4MoeMoE, DeepSeek-V3 style) as TensorRT-LLM AutoDeploy exports it: `moe()` loops
over every expert, takes `token_indices, weight_indices = torch.where(mask)` and only runs the expert
`if token_indices.numel() > 0`; AutoDeploy patches the forward because these data-dependent operations
(torch.where/nonzero) do not go through torch.export. Kept with the group-limited sigmoid top-k router and the
shared expert.

Source: https://github.com/NVIDIA/TensorRT-LLM/blob/41af3fe8ec597f37c7eb397b09baae61d6ea8fc6/tensorrt_llm/_torch/auto_deploy/models/patches/glm4_moe.py
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "domains-52"


class Glm4MoeMLP(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class Glm4MoeTopkRouter(nn.Module):
    def __init__(self, hidden_size, n_routed_experts=8, n_group=2, topk_group=1, top_k=2):
        super().__init__()
        self.hidden_size = hidden_size
        self.top_k = top_k
        self.n_routed_experts = n_routed_experts
        self.routed_scaling_factor = 2.5
        self.n_group = n_group
        self.topk_group = topk_group
        self.norm_topk_prob = True
        self.weight = nn.Parameter(torch.randn(n_routed_experts, hidden_size) * 0.2)
        self.register_buffer("e_score_correction_bias", torch.zeros(n_routed_experts))

    @torch.no_grad()
    def get_topk_indices(self, scores):
        scores_for_choice = scores.view(-1, self.n_routed_experts) + self.e_score_correction_bias.unsqueeze(0)
        group_scores = (
            scores_for_choice.view(-1, self.n_group, self.n_routed_experts // self.n_group)
            .topk(2, dim=-1)[0]
            .sum(dim=-1)
        )
        group_idx = torch.topk(group_scores, k=self.topk_group, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores)
        group_mask.scatter_(1, group_idx, 1)
        score_mask = (
            group_mask.unsqueeze(-1)
            .expand(-1, self.n_group, self.n_routed_experts // self.n_group)
            .reshape(-1, self.n_routed_experts)
        )
        scores_for_choice = scores_for_choice.masked_fill(~score_mask.bool(), 0.0)
        topk_indices = torch.topk(scores_for_choice, k=self.top_k, dim=-1, sorted=False)[1]
        return topk_indices

    def forward(self, hidden_states):
        hidden_states = hidden_states.view(-1, self.hidden_size)
        router_logits = F.linear(hidden_states.type(torch.float32), self.weight.type(torch.float32))
        scores = router_logits.sigmoid()
        topk_indices = self.get_topk_indices(scores)
        topk_weights = scores.gather(1, topk_indices)
        if self.norm_topk_prob:
            denominator = topk_weights.sum(dim=-1, keepdim=True) + 1e-20
            topk_weights /= denominator
        topk_weights = topk_weights * self.routed_scaling_factor
        return topk_indices, topk_weights


class Glm4MoeMoE(nn.Module):
    def __init__(self, hidden_size=32, moe_intermediate_size=16, n_routed_experts=8):
        super().__init__()
        self.experts = nn.ModuleList(
            [Glm4MoeMLP(hidden_size, moe_intermediate_size) for _ in range(n_routed_experts)]
        )
        self.gate = Glm4MoeTopkRouter(hidden_size, n_routed_experts)
        self.shared_experts = Glm4MoeMLP(hidden_size, moe_intermediate_size)

    def moe(self, hidden_states, topk_indices, topk_weights):
        final_hidden_states = torch.zeros_like(hidden_states, dtype=topk_weights.dtype)
        expert_mask = torch.nn.functional.one_hot(topk_indices, num_classes=len(self.experts))
        expert_mask = expert_mask.permute(2, 0, 1)

        for expert_idx in range(len(self.experts)):
            expert = self.experts[expert_idx]
            mask = expert_mask[expert_idx]
            token_indices, weight_indices = torch.where(mask)

            if token_indices.numel() > 0:
                expert_weights = topk_weights[token_indices, weight_indices]
                expert_input = hidden_states[token_indices]
                expert_output = expert(expert_input)
                weighted_output = expert_output * expert_weights.unsqueeze(-1)
                final_hidden_states.index_add_(0, token_indices, weighted_output)

        return final_hidden_states.type(hidden_states.dtype)

    def forward(self, hidden_states):
        residuals = hidden_states
        orig_shape = hidden_states.shape
        topk_indices, topk_weights = self.gate(hidden_states)
        hidden_states = hidden_states.view(-1, hidden_states.shape[-1])
        hidden_states = self.moe(hidden_states, topk_indices, topk_weights).view(*orig_shape)
        hidden_states = hidden_states + self.shared_experts(residuals)
        return hidden_states


def make_model():
    return Glm4MoeMoE().eval()


def example_inputs():
    return (torch.randn(2, 5, 32),)


def other_inputs():
    return [(torch.randn(3, 11, 32),), (torch.randn(1, 4, 32),)]


def probe_inputs():
    return other_inputs()
