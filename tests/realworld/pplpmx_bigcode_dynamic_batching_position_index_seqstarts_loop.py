"""ppl.pmx (OpenPPL LLM-serving model zoo) dynamic-batching StarCoder/bigcode: the position ids of the packed
token stream come from `position_index`, whose eager path loops `for b, seqlen in enumerate(seqlens)` over
`seqstarts[1:] - seqstarts[:-1]` and writes `torch.arange(position, position + seqlen)` into the slice
`position_idx[seqbeg:seqend]` (all bounds are tensor values). Under `torch.onnx.is_in_onnx_export()` the library
skips all of this (`return torch.zeros_like(sequences)`) and emits a custom `opmx.dynamic_batching::PositionIndex`
node instead, i.e. the eager loop is what cannot be exported.

Source: https://github.com/OpenPPL/ppl.pmx/blob/4b3a14688667bb39377d7678744ea63135f44725/torch_function/dynamic_batching/PositionIndex.py
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"tokens": {0: "num_tokens"}, "seqstarts": {0: "batch_plus_one"}, "start_pos": {0: "batch"}}
BLIND = "domains-58"


def position_index(sequences: torch.Tensor,
                   seqstarts: torch.Tensor, start_pos: torch.Tensor,
                   max_seqlen: torch.Tensor) -> torch.Tensor:
    # eager branch of OPMX.dynamic_batching.PositionIndex.forward (the autograd.Function's
    # `if torch.onnx.is_in_onnx_export(): return torch.zeros_like(sequences)` export branch is not taken)
    position_idx = torch.zeros_like(sequences)
    seqlens = seqstarts[1:] - seqstarts[:-1]
    for b, seqlen in enumerate(seqlens):
        seqbeg = seqstarts[b]
        seqend = seqstarts[b+1]
        position = start_pos[b]

        position_idx[seqbeg:seqend] = torch.arange(
            position, position + seqlen, dtype=torch.int64, device=sequences.device)
    return position_idx


class BigcodeEmbeddingHead(nn.Module):
    def __init__(self, vocab_size=100, max_position_embeddings=256, hidden_dim=32):
        super().__init__()
        self.tok_embeddings = nn.Parameter(torch.randn(vocab_size, hidden_dim) * 0.02)
        self.pos_embeddings = nn.Parameter(torch.randn(max_position_embeddings, hidden_dim) * 0.02)
        self.norm = nn.LayerNorm(hidden_dim)
        self.output = nn.Linear(hidden_dim, vocab_size, bias=False)

    @torch.inference_mode()
    def forward(self, tokens: torch.Tensor, seqstarts: torch.Tensor,
                start_pos: torch.Tensor, max_seqlen: torch.Tensor):
        pos_idx = position_index(
            tokens, seqstarts, start_pos, max_seqlen)
        h = F.embedding(tokens, self.tok_embeddings) + F.embedding(pos_idx, self.pos_embeddings)
        h = self.norm(h)
        gathered_h = torch.index_select(h, 0, seqstarts[1:] - 1)
        output = self.output(gathered_h)  # only compute last logits
        output = output.float()
        return output


def make_model():
    torch.manual_seed(0)
    return BigcodeEmbeddingHead().eval()


def _batch(seqlens, start):
    seqstarts = torch.tensor([0] + list(torch.tensor(seqlens).cumsum(0).tolist()), dtype=torch.int64)
    tokens = torch.randint(0, 100, (int(seqstarts[-1]),), dtype=torch.int64)
    start_pos = torch.tensor(start, dtype=torch.int64)
    return (tokens, seqstarts, start_pos, torch.tensor(max(seqlens)))


def example_inputs():
    # prefill of 3 requests, one of them continuing at position 10
    return _batch([1, 2, 6], [0, 10, 100])


def other_inputs():
    return [_batch([4, 3], [5, 0]), _batch([2, 1, 7, 3], [0, 20, 3, 40])]


def probe_inputs():
    return other_inputs()
