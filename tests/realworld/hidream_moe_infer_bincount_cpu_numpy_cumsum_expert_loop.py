"""HiDream-I1 image transformer (diffusers): the MoE feed-forward's inference path `moe_infer` computes
`tokens_per_expert = flat_expert_indices.bincount().cpu().numpy().cumsum(0)` and loops over the NumPy
offsets to slice each expert's tokens; the transformer does not compile/trace because the routing counts
leave the graph as a NumPy array (Dynamo: "'ndarray' object has no attribute 'dim'").

Source: https://github.com/tenstorrent/tt-forge-models/pull/757
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
BLIND = "domains-53"


class HiDreamImageFeedForwardSwiGLU(nn.Module):
    def __init__(self, dim, hidden_dim, multiple_of=256, ffn_dim_multiplier=None):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        if ffn_dim_multiplier is not None:
            hidden_dim = int(ffn_dim_multiplier * hidden_dim)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)

        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(torch.nn.functional.silu(self.w1(x)) * self.w3(x))


class MoEGate(nn.Module):
    def __init__(self, embed_dim, num_routed_experts=4, num_activated_experts=2):
        super().__init__()
        self.top_k = num_activated_experts
        self.n_routed_experts = num_routed_experts
        self.scoring_func = "softmax"
        self.norm_topk_prob = False
        self.gating_dim = embed_dim
        self.weight = nn.Parameter(torch.randn(self.n_routed_experts, self.gating_dim) / embed_dim**0.5)

    def forward(self, hidden_states):
        bsz, seq_len, h = hidden_states.shape
        hidden_states = hidden_states.view(-1, h)
        logits = F.linear(hidden_states, self.weight, None)
        scores = logits.softmax(dim=-1)
        topk_weight, topk_idx = torch.topk(scores, k=self.top_k, dim=-1, sorted=False)
        return topk_idx, topk_weight, None


class MOEFeedForwardSwiGLU(nn.Module):
    def __init__(self, dim, hidden_dim, num_routed_experts, num_activated_experts):
        super().__init__()
        self.shared_experts = HiDreamImageFeedForwardSwiGLU(dim, hidden_dim // 2)
        self.experts = nn.ModuleList(
            [HiDreamImageFeedForwardSwiGLU(dim, hidden_dim) for i in range(num_routed_experts)]
        )
        self.gate = MoEGate(embed_dim=dim, num_routed_experts=num_routed_experts,
                            num_activated_experts=num_activated_experts)
        self.num_activated_experts = num_activated_experts

    def forward(self, x):
        identity = x
        orig_shape = x.shape
        topk_idx, topk_weight, aux_loss = self.gate(x)
        x = x.view(-1, x.shape[-1])
        flat_topk_idx = topk_idx.view(-1)
        y = self.moe_infer(x, flat_topk_idx, topk_weight.view(-1, 1)).view(*orig_shape)
        y = y + self.shared_experts(identity)
        return y

    @torch.no_grad()
    def moe_infer(self, x, flat_expert_indices, flat_expert_weights):
        expert_cache = torch.zeros_like(x)
        idxs = flat_expert_indices.argsort()
        tokens_per_expert = flat_expert_indices.bincount().cpu().numpy().cumsum(0)
        token_idxs = idxs // self.num_activated_experts
        for i, end_idx in enumerate(tokens_per_expert):
            start_idx = 0 if i == 0 else tokens_per_expert[i - 1]
            if start_idx == end_idx:
                continue
            expert = self.experts[i]
            exp_token_idx = token_idxs[start_idx:end_idx]
            expert_tokens = x[exp_token_idx]
            expert_out = expert(expert_tokens)
            expert_out.mul_(flat_expert_weights[idxs[start_idx:end_idx]])

            expert_cache = expert_cache.to(expert_out.dtype)
            expert_cache.scatter_reduce_(0, exp_token_idx.view(-1, 1).repeat(1, x.shape[-1]), expert_out, reduce="sum")
        return expert_cache


class HiDreamImageSingleBlockFF(nn.Module):
    """norm3_i + ff_i of HiDreamImageSingleTransformerBlock (modulation scale/shift given as inputs)."""

    def __init__(self, dim=32, num_routed_experts=4, num_activated_experts=2):
        super().__init__()
        self.norm3_i = nn.LayerNorm(dim, eps=1e-06, elementwise_affine=False)
        self.ff_i = MOEFeedForwardSwiGLU(dim=dim, hidden_dim=4 * dim, num_routed_experts=num_routed_experts,
                                         num_activated_experts=num_activated_experts)

    def forward(self, x):
        norm_hidden_states = self.norm3_i(x)
        ff_output_i = self.ff_i(norm_hidden_states)
        return ff_output_i + x


def make_model():
    return HiDreamImageSingleBlockFF().eval()


def example_inputs():
    return (torch.randn(2, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 24, 32),), (torch.randn(1, 9, 32),)]


def probe_inputs():
    return other_inputs()
