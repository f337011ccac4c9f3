"""DBRX MoE experts (transformers v4.40 `DbrxExperts.forward`): for every expert it takes
`torch.where(expert_mask[expert_idx])`, skips the expert with `if token_idx.shape[0] == 0: continue`
and gathers the routed tokens with `token_idx.tolist()`. optimum-intel's DBRX export patch copies this
forward and removes the `continue` because "loop interruption depends on input data and may affect
torchscript tracing" (it also indexes with the tensors instead of the lists).

Source: https://github.com/huggingface/optimum-intel/pull/720
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "sequence"}}
BLIND = "domains-54"


class DbrxRouter(nn.Module):
    def __init__(self, hidden_size, moe_num_experts, moe_top_k, moe_normalize_expert_weights=1):
        super().__init__()
        self.hidden_size = hidden_size
        self.moe_num_experts = moe_num_experts
        self.moe_top_k = moe_top_k
        self.moe_normalize_expert_weights = moe_normalize_expert_weights
        self.layer = nn.Linear(self.hidden_size, self.moe_num_experts, bias=False)

    def forward(self, hidden_states):
        hidden_states = hidden_states.view(-1, hidden_states.shape[-1])
        weights = self.layer(hidden_states).softmax(dim=-1, dtype=torch.float32)
        top_weights, top_experts = torch.topk(weights, self.moe_top_k, dim=-1)
        top_weights_scale = (
            torch.norm(top_weights, p=self.moe_normalize_expert_weights, dim=-1, keepdim=True)
            if self.moe_normalize_expert_weights is not None
            else 1.0
        )
        top_weights = top_weights / top_weights_scale
        weights = weights.to(hidden_states.dtype)
        top_weights = top_weights.to(hidden_states.dtype)
        return weights, top_weights, top_experts


class DbrxExpertGLU(nn.Module):
    def __init__(self, hidden_size, ffn_hidden_size, moe_num_experts):
        super().__init__()
        self.hidden_size = hidden_size
        self.ffn_hidden_size = ffn_hidden_size
        self.moe_num_experts = moe_num_experts
        self.w1 = nn.Parameter(torch.randn(moe_num_experts * ffn_hidden_size, hidden_size) * 0.1)
        self.v1 = nn.Parameter(torch.randn(moe_num_experts * ffn_hidden_size, hidden_size) * 0.1)
        self.w2 = nn.Parameter(torch.randn(moe_num_experts * ffn_hidden_size, hidden_size) * 0.1)
        self.activation_fn = F.silu

    def forward(self, x, expert_w1, expert_v1, expert_w2):
        gate_proj = x.matmul(expert_w1.t())
        up_proj = x.matmul(expert_v1.t())
        gate_proj = self.activation_fn(gate_proj)
        intermediate_states = gate_proj * up_proj
        down_proj = intermediate_states.matmul(expert_w2)
        return down_proj


class DbrxExperts(nn.Module):
    def __init__(self, hidden_size, ffn_hidden_size, moe_num_experts):
        super().__init__()
        self.moe_num_experts = moe_num_experts
        self.mlp = DbrxExpertGLU(hidden_size, ffn_hidden_size, moe_num_experts)

    def forward(self, x, weights, top_weights, top_experts):
        bsz, q_len, hidden_size = x.shape
        x = x.view(-1, hidden_size)
        out = torch.zeros_like(x)

        expert_mask = nn.functional.one_hot(top_experts, num_classes=self.moe_num_experts).permute(2, 1, 0)
        # Chunk experts at once to avoid storing full parameter multiple times in autograd
        w1_chunked = self.mlp.w1.view(self.mlp.moe_num_experts, self.mlp.ffn_hidden_size, self.mlp.hidden_size).chunk(
            self.moe_num_experts, dim=0
        )
        v1_chunked = self.mlp.v1.view(self.mlp.moe_num_experts, self.mlp.ffn_hidden_size, self.mlp.hidden_size).chunk(
            self.moe_num_experts, dim=0
        )
        w2_chunked = self.mlp.w2.view(self.mlp.moe_num_experts, self.mlp.ffn_hidden_size, self.mlp.hidden_size).chunk(
            self.moe_num_experts, dim=0
        )
        w1_chunked = [w1.squeeze(dim=0) for w1 in w1_chunked]
        v1_chunked = [v1.squeeze(dim=0) for v1 in v1_chunked]
        w2_chunked = [w2.squeeze(dim=0) for w2 in w2_chunked]
        for expert_idx in range(0, self.moe_num_experts):
            topk_idx, token_idx = torch.where(expert_mask[expert_idx])
            if token_idx.shape[0] == 0:
                continue

            token_list = token_idx.tolist()
            topk_list = topk_idx.tolist()

            expert_tokens = x[None, token_list].reshape(-1, hidden_size)
            expert_out = (
                self.mlp(expert_tokens, w1_chunked[expert_idx], v1_chunked[expert_idx], w2_chunked[expert_idx])
                * top_weights[token_list, topk_list, None]
            )

            out.index_add_(0, token_idx, expert_out)

        out = out.reshape(bsz, q_len, hidden_size)
        return out


class DbrxFFN(nn.Module):
    def __init__(self, hidden_size=32, ffn_hidden_size=64, moe_num_experts=8, moe_top_k=2):
        super().__init__()
        self.router = DbrxRouter(hidden_size, moe_num_experts, moe_top_k)
        self.experts = DbrxExperts(hidden_size, ffn_hidden_size, moe_num_experts)

    def forward(self, x):
        weights, top_weights, top_experts = self.router(x)
        out = self.experts(x, weights, top_weights, top_experts)
        return out, weights


def make_model():
    return DbrxFFN().eval()


def example_inputs():
    return (torch.randn(2, 7, 32),)


def other_inputs():
    # one token routes to only 2 of the 8 experts: most experts get no token
    return [(torch.randn(3, 12, 32),), (torch.randn(1, 1, 32),)]


def probe_inputs():
    return other_inputs()
