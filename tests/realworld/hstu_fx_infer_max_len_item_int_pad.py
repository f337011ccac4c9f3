"""DLRM-HSTU (generative-recommenders) preprocessing: `fx_infer_max_len` reads the longest user history with
`max_len = int(lengths.max().item())` and the jagged sequence embeddings are padded to that Python int; the
commit "Fix AOTI lowering ... unbacked symint issue with fx_infer_max_len()" changes it to `int(lengths.max())`
because the `.item()` breaks lowering of the exported model (a data-dependent size burnt in or left unbacked).

Source: https://github.com/meta-recsys/generative-recommenders/commit/2f50be2bfa848d155637ae3af1e3bb0f143b0d3c
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"values": {0: "total_len"}, "lengths": {0: "batch"}}
BLIND = "domains-56"


@torch.fx.wrap
def fx_infer_max_len(
    lengths: torch.Tensor,
) -> int:
    max_len = int(lengths.max().item())
    if not torch.jit.is_scripting() and torch.compiler.is_compiling():
        # Tell Dynamo this data-dependent value is in the range [0, 10**9)
        torch._check_is_size(max_len)
        torch._check(max_len < 10**9)
        torch._check(max_len > 0)
    return max_len


def jagged_to_padded_dense(values, lengths, max_len):
    # CPU reference of torch.ops.fbgemm.jagged_to_padded_dense(values, [offsets], [max_len], 0.0)
    B = lengths.shape[0]
    mask = torch.arange(max_len, device=values.device).unsqueeze(0) < lengths.unsqueeze(1)
    dense = values.new_zeros(B, max_len, values.shape[-1])
    dense[mask] = values
    return dense, mask


class UIHEncoder(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)

    def forward(self, values, lengths):
        max_uih_len = fx_infer_max_len(lengths)
        dense, mask = jagged_to_padded_dense(self.proj(values), lengths, max_uih_len)
        out, _ = self.attn(dense, dense, dense, key_padding_mask=~mask)
        return (out * mask.unsqueeze(-1)).sum(1) / lengths.unsqueeze(1)


def make_model():
    return UIHEncoder().eval()


def example_inputs():
    lengths = torch.tensor([5, 3])
    return (torch.randn(int(lengths.sum()), 16), lengths)


def other_inputs():
    l1 = torch.tensor([2, 9, 4])
    l2 = torch.tensor([7])
    return [(torch.randn(int(l1.sum()), 16), l1), (torch.randn(int(l2.sum()), 16), l2)]


def probe_inputs():
    return other_inputs()
