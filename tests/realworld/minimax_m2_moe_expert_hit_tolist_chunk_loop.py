"""MiniMax-M2 (trust_remote_code modeling_minimax_m2.py) sparse MoE block: sigmoid routing with
`e_score_correction_bias`, then `for expert_idx in expert_hit.tolist():` over the experts that received
tokens and an inner `for i in range(0, top_x_full.size(0), EXPERT_CHUNK_SIZE):` over each expert's token
count, gathering with index_select and scattering back with index_add_. TensorRT-LLM AutoDeploy replaces
`MiniMaxM2SparseMoeBlock.forward` ("rewritten to enable torch.export") because the data-dependent expert
loop does not export.

Source: https://github.com/NVIDIA/TensorRT-LLM/blob/3b6437071bdc96d0bb8e73c490648d118ef0e007/tensorrt_llm/_torch/auto_deploy/models/patches/minimax_m2.py
"""
from typing import Tuple

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}}
BLIND = "domains-52"


class MiniMaxM2MLP(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size

        self.w1 = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.w2 = nn.Linear(self.intermediate_size, self.hidden_size, bias=False)
        self.w3 = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        gate = self.act_fn(self.w1(hidden_states))
        up = self.w3(hidden_states)
        gate.mul_(up)
        del up
        return self.w2(gate)


class MiniMaxM2SparseMoeBlock(nn.Module):
    def __init__(self, hidden_size=32, intermediate_size=48, num_local_experts=8, num_experts_per_tok=2):
        super().__init__()
        self.hidden_dim = hidden_size
        self.experts = nn.ModuleList([MiniMaxM2MLP(hidden_size, intermediate_size) for _ in range(num_local_experts)])
        self.num_experts = num_local_experts
        self.top_k = num_experts_per_tok
        self.jitter_noise = 0.0
        self.scoring_func = "sigmoid"
        self.routed_scaling_factor = 1.0

        self.gate = nn.Linear(self.hidden_dim, self.num_experts, bias=False)
        self.e_score_correction_bias = nn.Parameter(torch.randn(self.num_experts, dtype=torch.float32) * 0.1)

    def forward(self, hidden_states: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        batch_size, seq_len, hidden_dim = hidden_states.shape
        if self.training and self.jitter_noise > 0:
            noise = torch.empty_like(hidden_states).uniform_(
                1.0 - self.jitter_noise,
                1.0 + self.jitter_noise,
            )
            hidden_states.mul_(noise)
            del noise

        hidden_states = hidden_states.view(-1, hidden_dim)
        gate_dtype = self.gate.weight.dtype
        router_logits = self.gate(hidden_states.to(gate_dtype)).to(torch.float32)
        if self.e_score_correction_bias is not None:
            # Bias is applied after scoring (see vLLM/SGLang implementations).
            correction_bias = self.e_score_correction_bias.to(router_logits.device, router_logits.dtype)
        else:
            correction_bias = None

        if self.scoring_func == "sigmoid":
            scores = torch.sigmoid(router_logits)
        elif self.scoring_func == "softmax":
            scores = torch.softmax(router_logits, dim=-1)
        else:
            raise ValueError(f"Unsupported scoring function: {self.scoring_func}")

        if correction_bias is not None:
            original_scores = scores
            scores.add_(correction_bias)
        else:
            original_scores = scores
        topk_scores, selected_experts = torch.topk(scores, self.top_k, dim=-1, sorted=True)

        if correction_bias is not None:
            routing_weights = original_scores.gather(1, selected_experts)
        else:
            routing_weights = topk_scores
        del scores, original_scores, topk_scores

        routing_weights.div_(routing_weights.sum(dim=-1, keepdim=True).clamp(min=1e-12))
        if self.routed_scaling_factor != 1.0:
            routing_weights.mul_(self.routed_scaling_factor)
        routing_weights = routing_weights.to(hidden_states.dtype)
        selected_experts = selected_experts.to(torch.long)

        final_hidden_states = torch.zeros_like(hidden_states)
        expert_mask = torch.nn.functional.one_hot(selected_experts, num_classes=self.num_experts).permute(2, 1, 0)
        del selected_experts
        expert_hit = torch.nonzero(expert_mask.sum(dim=(-1, -2)) > 0, as_tuple=False).flatten()

        # To further reduce memory, process tokens routed to each expert in chunks
        # instead of all at once. A chunk size of 1024 is a reasonable default.
        EXPERT_CHUNK_SIZE = 1024

        for expert_idx in expert_hit.tolist():
            expert_layer = self.experts[expert_idx]
            idx_full, top_x_full = torch.where(expert_mask[expert_idx].squeeze(0))

            for i in range(0, top_x_full.size(0), EXPERT_CHUNK_SIZE):
                top_x = top_x_full[i : i + EXPERT_CHUNK_SIZE]
                idx = idx_full[i : i + EXPERT_CHUNK_SIZE]

                token_states = hidden_states.index_select(0, top_x)
                expert_output = expert_layer(token_states)

                weights = routing_weights[top_x, idx].unsqueeze(-1)
                expert_output.mul_(weights)

                final_hidden_states.index_add_(0, top_x, expert_output.to(final_hidden_states.dtype))
                del expert_output, token_states, idx, top_x, weights

            del idx_full, top_x_full
        del hidden_states, routing_weights, expert_mask, expert_hit
        final_hidden_states = final_hidden_states.view(batch_size, seq_len, hidden_dim)
        return final_hidden_states, router_logits


def make_model():
    return MiniMaxM2SparseMoeBlock().eval()


def example_inputs():
    return (torch.randn(2, 6, 32),)


def other_inputs():
    return [(torch.randn(3, 11, 32),), (torch.randn(1, 2, 32),)]


def probe_inputs():
    return other_inputs()
