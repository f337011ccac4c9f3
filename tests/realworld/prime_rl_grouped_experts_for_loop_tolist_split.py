"""prime-rl's MoE layer (imported from torchtitan) with `use_grouped_mm=False`: GroupedExperts runs
`_run_experts_for_loop`, which does `num_tokens_per_expert = num_tokens_per_expert.tolist()`, slices
`x[: sum(num_tokens_per_expert)]`, `torch.split`s it by those counts and loops over the experts. Under
torch.compile the report breaks the graph at that `.tolist()` (`item: "Sym(u0)" = getitem.item()`); the
per-expert token counts are data, so the split sizes and padding are data-dependent.

Source: https://github.com/PrimeIntellect-ai/prime-rl/issues/996
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "tokens"}}
BLIND = "domains-75"


def _run_experts_for_loop(
    w1: torch.Tensor,
    w2: torch.Tensor,
    w3: torch.Tensor,
    x: torch.Tensor,
    num_tokens_per_expert: torch.Tensor,
) -> torch.Tensor:
    # NOTE: this would incur a synchronization between device and host
    num_tokens_per_expert = num_tokens_per_expert.tolist()

    # side-effect code due to the usage of generate_permute_indices
    num_padding = x.shape[0] - sum(num_tokens_per_expert)

    # a tuple of tensors indexed by experts
    # each with shape (tokens_per_expert(varying), dim)
    x = torch.split(
        x[: sum(num_tokens_per_expert)],
        split_size_or_sections=num_tokens_per_expert,
        dim=0,
    )
    out_experts_splits = []
    for expert_idx, x_expert in enumerate(x):
        h = F.silu(torch.matmul(x_expert, w1[expert_idx].transpose(-2, -1)))
        h = h * torch.matmul(x_expert, w3[expert_idx].transpose(-2, -1))
        h = torch.matmul(h, w2[expert_idx].transpose(-2, -1))
        # h shape (tokens_per_expert(varying), dim)
        out_experts_splits.append(h)
    out = torch.cat(out_experts_splits, dim=0)

    # side-effect code due to the usage of generate_permute_indices
    out = torch.vstack((out, out.new_zeros((num_padding, out.shape[-1]))))

    return out


class GroupedExperts(nn.Module):
    def __init__(self, dim: int = 32, hidden_dim: int = 64, num_experts: int = 4, use_grouped_mm: bool = False):
        super().__init__()
        self.num_experts = num_experts
        self.w1 = nn.Parameter(torch.randn(num_experts, hidden_dim, dim) * 0.02)
        self.w2 = nn.Parameter(torch.randn(num_experts, dim, hidden_dim) * 0.02)
        self.w3 = nn.Parameter(torch.randn(num_experts, hidden_dim, dim) * 0.02)
        self.use_grouped_mm = use_grouped_mm

    def forward(self, x: torch.Tensor, num_tokens_per_expert: torch.Tensor) -> torch.Tensor:
        return _run_experts_for_loop(self.w1, self.w2, self.w3, x, num_tokens_per_expert)


def make_model():
    return GroupedExperts().eval()


def _inputs(counts, padding):
    counts = torch.tensor(counts, dtype=torch.int32)
    x = torch.randn(int(counts.sum()) + padding, 32)
    return (x, counts)


def example_inputs():
    return _inputs([5, 3, 0, 4], 0)


def other_inputs():
    return [_inputs([2, 7, 6, 1], 2), _inputs([1, 0, 3, 2], 1)]


def probe_inputs():
    return other_inputs()
