"""gpt-oss MoE block (mxfp4 checkpoint dequantized to bfloat16 for export): the router does
`torch.topk(router_logits, self.top_k, dim=-1)` on bf16 logits, and the exported graph is invalid for
onnxruntime because TopK only takes bfloat16 inputs from opset 24 on (the fix loads the model in fp32).

Source: https://github.com/huggingface/optimum-onnx/pull/64
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "operators-15"


class GptOssTopKRouter(nn.Module):
    def __init__(self, hidden_size=64, num_local_experts=8, num_experts_per_tok=2):
        super().__init__()
        self.top_k = num_experts_per_tok
        self.num_experts = num_local_experts
        self.hidden_dim = hidden_size
        self.weight = nn.Parameter(torch.randn(self.num_experts, self.hidden_dim) * 0.02)
        self.bias = nn.Parameter(torch.zeros(self.num_experts))

    def forward(self, hidden_states):
        hidden_states = hidden_states.reshape(-1, self.hidden_dim)
        router_logits = F.linear(hidden_states, self.weight, self.bias)  # (seq_len, num_experts)
        router_top_value, router_indices = torch.topk(router_logits, self.top_k, dim=-1)  # (seq_len, top_k)
        router_top_value = torch.nn.functional.softmax(router_top_value, dim=1, dtype=router_top_value.dtype)
        router_scores = torch.zeros_like(router_logits).scatter_(1, router_indices, router_top_value)
        return router_scores, router_indices


class GptOssMLP(nn.Module):
    def __init__(self, hidden_size=64):
        super().__init__()
        self.router = GptOssTopKRouter(hidden_size)
        self.hidden_size = hidden_size

    def forward(self, hidden_states):
        router_scores, router_indices = self.router(hidden_states)  # (seq_len, num_experts)
        return router_scores, router_indices


def make_model():
    # the mxfp4 weights are dequantized to bf16 when the checkpoint is loaded
    return GptOssMLP().to(torch.bfloat16).eval()


def example_inputs():
    return (torch.randn(2, 12, 64, dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.randn(3, 7, 64, dtype=torch.bfloat16),), (torch.randn(1, 20, 64, dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
