"""ONX202 on DBRX's experts (transformers 4.40): the tokens routed to an expert are found with
`torch.where`, listed with `.tolist()` and the list is used only as an index (`x[None, token_list]`,
`top_weights[token_list, topk_list, None]`). The legacy exporter records the lists as constants (onnxruntime
fails for another routing); torch.export fails on the unbacked ints it makes of them. Fixed by indexing with
the tensors themselves (the same elements in the same layout)."""
import torch
from torch import nn


class Experts(nn.Module):
    def __init__(self, dim=8, num_experts=4):
        super().__init__()
        self.num_experts = num_experts
        self.router = nn.Linear(dim, num_experts)
        self.w = nn.Parameter(torch.randn(num_experts, dim, dim) / dim ** 0.5)

    def forward(self, x):
        logits = self.router(x)
        top_weights, top_experts = logits.softmax(-1).topk(2, dim=-1)
        expert_mask = nn.functional.one_hot(top_experts, num_classes=self.num_experts).permute(2, 1, 0)
        out = torch.zeros_like(x)
        for expert_idx in range(self.num_experts):
            topk_idx, token_idx = torch.where(expert_mask[expert_idx])
            token_list = token_idx.tolist()
            topk_list = topk_idx.tolist()
            expert_tokens = x[None, token_list].reshape(-1, x.shape[-1])
            expert_out = (expert_tokens @ self.w[expert_idx]) * top_weights[token_list, topk_list, None]
            out = out.scatter_add(0, token_idx[:, None].expand(-1, x.shape[-1]), expert_out)
        return out


def make_model():
    torch.manual_seed(0)
    return Experts()


def example_inputs():
    return (torch.randn(12, 8, generator=torch.Generator().manual_seed(0)),)  # the routing: not what ran before


def probe_inputs():
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(20, 8, generator=generator),), (torch.randn(5, 8, generator=generator),)]


DYNAMIC = {0: {0: "tokens"}}
