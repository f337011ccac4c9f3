"""DeepSeek-VL2 MoE layer: `moe_infer` turns the per-expert token counts into a NumPy array
(`tokens_per_expert.cpu().numpy()`), then loops over it, skipping empty experts with
`if num_tokens == 0: continue` and slicing `sorted_tokens[start_idx:end_idx]` by the counts;
torch.export hits data-dependent errors on this section (the report asks for a way to rewrite it).

Source: https://github.com/pytorch/pytorch/issues/154559
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}}
BLIND = "domains-28"


class DeepseekV2MLP(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class MoEGate(nn.Module):
    def __init__(self, hidden_size, n_routed_experts, top_k):
        super().__init__()
        self.top_k = top_k
        self.weight = nn.Parameter(torch.randn(n_routed_experts, hidden_size) * 0.1)

    def forward(self, hidden_states):
        h = hidden_states.shape[-1]
        hidden_states = hidden_states.view(-1, h)
        logits = F.linear(hidden_states.type(torch.float32), self.weight.type(torch.float32), None)
        scores = logits.softmax(dim=-1, dtype=torch.float32)
        topk_weight, topk_idx = torch.topk(scores, k=self.top_k, dim=-1, sorted=False)
        return topk_idx, topk_weight, None


class DeepseekV2MoE(nn.Module):
    def __init__(self, hidden_size=16, n_routed_experts=4, num_experts_per_tok=2):
        super().__init__()
        self.num_experts_per_tok = num_experts_per_tok
        self.ep_size = 1
        self.experts_per_rank = n_routed_experts
        self.ep_rank = 0
        self.experts = nn.ModuleList(
            [DeepseekV2MLP(hidden_size, intermediate_size=32) for i in range(n_routed_experts)]
        )
        self.gate = MoEGate(hidden_size, n_routed_experts, num_experts_per_tok)

    def forward(self, hidden_states):
        orig_shape = hidden_states.shape
        topk_idx, topk_weight, aux_loss = self.gate(hidden_states)
        hidden_states = hidden_states.view(-1, hidden_states.shape[-1])
        y = self.moe_infer(hidden_states, topk_idx, topk_weight).view(*orig_shape)
        return y

    @torch.no_grad()
    def moe_infer(self, x, topk_ids, topk_weight):
        cnts = topk_ids.new_zeros((topk_ids.shape[0], len(self.experts)))
        cnts.scatter_(1, topk_ids, 1)
        tokens_per_expert = cnts.sum(dim=0)
        idxs = topk_ids.view(-1).argsort()
        sorted_tokens = x[idxs // topk_ids.shape[1]]
        tokens_per_expert = tokens_per_expert.cpu().numpy()

        outputs = []
        start_idx = 0
        for i, num_tokens in enumerate(tokens_per_expert):
            end_idx = start_idx + num_tokens
            if num_tokens == 0:
                continue
            expert = self.experts[i + self.ep_rank * self.experts_per_rank]
            tokens_for_this_expert = sorted_tokens[start_idx:end_idx]
            expert_out = expert(tokens_for_this_expert)
            outputs.append(expert_out)
            start_idx = end_idx

        outs = torch.cat(outputs, dim=0) if len(outputs) else sorted_tokens.new_empty(0)
        new_x = torch.empty_like(outs)
        new_x[idxs] = outs
        final_out = (
            new_x.view(*topk_ids.shape, -1)
            .type(topk_weight.dtype)
            .mul_(topk_weight.unsqueeze(dim=-1))
            .sum(dim=1)
            .type(new_x.dtype)
        )
        return final_out


def make_model():
    return DeepseekV2MoE()


def example_inputs():
    return (torch.randn(2, 6, 16),)


def other_inputs():
    return [(torch.randn(3, 9, 16),), (torch.randn(1, 5, 16),)]


def probe_inputs():
    return other_inputs()
