"""TorchTitan MoE layer (Llama4/DeepSeek-V3 style token-choice top-k routing): the router and the token
reorderer count tokens per expert with `torch.histc(selected_experts_indices.view(-1), bins=self.num_experts,
min=0, max=self.num_experts)` before sorting tokens by expert; making the TorchTitan models exportable to ONNX
needed this counting rewritten (the PR's workaround: "use one-hot for MoE").

Source: https://github.com/pytorch/torchtitan/pull/2020
"""
from typing import Literal

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq_len"}}
BLIND = "operators-6"


class TokenChoiceTopKRouter(nn.Module):
    def __init__(self, dim: int, num_experts: int, top_k: int, score_func: Literal["softmax", "sigmoid"],
                 route_norm: bool, route_scale: float):
        super().__init__()
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.num_experts = num_experts
        self.top_k = top_k
        self.score_func = score_func
        self.route_norm = route_norm
        self.route_scale = route_scale

    def forward(self, x: torch.Tensor, expert_bias: torch.Tensor | None = None):
        # scores shape (bs*slen, num_experts)
        scores = self.gate(x)
        if self.score_func == "sigmoid":
            scores = torch.sigmoid(scores.to(torch.float32))
        elif self.score_func == "softmax":
            scores = F.softmax(scores.to(torch.float32), dim=1)
        else:
            raise NotImplementedError(f"Unknown score function {self.score_func}")

        if expert_bias is not None:
            _, selected_experts_indices = torch.topk(scores + expert_bias, k=self.top_k, dim=1)
            top_scores = scores.gather(dim=1, index=selected_experts_indices)
        else:
            top_scores, selected_experts_indices = torch.topk(scores, k=self.top_k, dim=1)

        if self.route_norm:
            denominator = top_scores.sum(dim=-1, keepdim=True) + 1e-20
            top_scores = top_scores / denominator
        top_scores = top_scores * self.route_scale

        # group tokens together by expert indices from 0 to num_experts and pass that to experts forward
        num_tokens_per_expert = torch.histc(
            selected_experts_indices.view(-1).float(),  # CPU histc has no int64 kernel (the report runs on CUDA)
            bins=self.num_experts,
            min=0,
            max=self.num_experts,
        )
        return top_scores, selected_experts_indices, num_tokens_per_expert


class TokenReorderer(nn.Module):
    def __init__(self, num_experts: int, top_k: int):
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k

    def forward(self, top_scores: torch.Tensor, selected_experts_indices: torch.Tensor):
        num_tokens_per_expert = torch.histc(
            selected_experts_indices.view(-1).float(),  # CPU histc has no int64 kernel (the report runs on CUDA)
            bins=self.num_experts,
            min=0,
            max=self.num_experts,
        )
        # Reorder the token indices to match the order of the experts
        token_indices_experts_sorted = torch.argsort(selected_experts_indices.view(-1), stable=True)
        top_scores_experts_sorted = top_scores.view(-1)[token_indices_experts_sorted]
        token_indices_experts_sorted = token_indices_experts_sorted // self.top_k
        return top_scores_experts_sorted, token_indices_experts_sorted, num_tokens_per_expert


class MoERouting(nn.Module):
    """The routing half of torchtitan's MoE.forward (experts' grouped_mm left out)."""

    def __init__(self, dim=32, num_experts=8, top_k=2):
        super().__init__()
        self.router = TokenChoiceTopKRouter(dim, num_experts, top_k, "sigmoid", route_norm=True, route_scale=1.0)
        self.reorderer = TokenReorderer(num_experts=num_experts, top_k=top_k)
        self.register_buffer("expert_bias", torch.zeros(num_experts, dtype=torch.float32), persistent=True)

    def forward(self, x: torch.Tensor):
        bs, slen, dim = x.shape
        x = x.view(-1, dim)
        top_scores, selected_experts_indices, num_tokens_per_expert = self.router(x, self.expert_bias)
        (
            top_scores_experts_sorted,
            token_indices_experts_sorted,
            num_tokens_per_expert,
        ) = self.reorderer(top_scores, selected_experts_indices)
        token_indices_experts_sorted = token_indices_experts_sorted.reshape(-1, 1).expand(-1, dim)
        routed_input = torch.gather(x, dim=0, index=token_indices_experts_sorted)
        routed_input = (routed_input.to(torch.float32) * top_scores_experts_sorted.reshape(-1, 1)).to(x.dtype)
        return routed_input, num_tokens_per_expert


def make_model():
    return MoERouting().eval()


def example_inputs():
    return (torch.randn(2, 10, 32),)


def other_inputs():
    return [(torch.randn(3, 7, 32),), (torch.randn(1, 19, 32),)]


def probe_inputs():
    return other_inputs()
