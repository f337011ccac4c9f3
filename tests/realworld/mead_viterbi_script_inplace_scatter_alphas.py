"""mead-baseline's batch-size-1 tagger decoder calls a `@torch.jit.script` Viterbi that initialises
`alphas` with `torch.full(..., -1e4)` and then edits it in place (`alphas.scatter_(...)`,
`alphas.unsqueeze_(0)`); in the exported ONNX the in-place changes are stripped, so the start tag is
never zeroed and paths/scores differ from PyTorch (the PR switches to out-of-place ops).

Source: https://github.com/mead-ml/mead-baseline/pull/705
"""
from typing import Tuple

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"unary": {0: "time"}}
BLIND = "domains-12"

NUM_TAGS = 7
GO, EOS = 1, 2


@torch.jit.script
def script_viterbi(
    unary: torch.Tensor, trans: torch.Tensor, start_idx: int, end_idx: int
) -> Tuple[torch.Tensor, torch.Tensor]:

    seq_len: int = unary.size(0)
    num_tags: int = unary.size(1)
    fill_value: float = -1e4
    alphas = torch.full((num_tags,), fill_value, dtype=unary.dtype, device=unary.device)
    broadcast_idx = torch.full((num_tags,), start_idx, dtype=torch.long)
    alphas.scatter_(0, broadcast_idx, torch.zeros((num_tags,)))
    alphas.unsqueeze_(0)
    backpointers: torch.Tensor = torch.zeros(num_tags, dtype=torch.long).unsqueeze(0)
    for i in range(seq_len):
        unary_t = unary[i, :]
        next_tag_var = alphas + trans
        viterbi, best_tag_ids = torch.max(next_tag_var, 1)
        backpointers = torch.cat([backpointers, best_tag_ids.unsqueeze(0)], 0)
        alphas = (viterbi + unary_t).unsqueeze(0)

    terminal_vars = alphas.squeeze(0) + trans[end_idx, :]
    path_score, best_tag_id = torch.max(terminal_vars, 0)
    best_path = best_tag_id.unsqueeze(0)

    for i in range(unary.size(0)):
        t = seq_len - i - 1
        best_tag_id = backpointers[t + 1, best_tag_id]
        best_path = torch.cat([best_path, best_tag_id.unsqueeze(0)], -1)

    new_path_vec = best_path.flip(0)
    return new_path_vec[1:], path_score


class ViterbiBatchSize1(nn.Module):
    def __init__(self, start_idx: int, end_idx: int):
        super().__init__()
        self.start_idx = start_idx
        self.end_idx = end_idx

    def forward(self, unary: torch.Tensor, trans: torch.Tensor, _: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        unary = unary.squeeze(1)
        trans = trans.squeeze(0)
        path, score = script_viterbi(unary, trans, self.start_idx, self.end_idx)
        return path.unsqueeze(1), score


def make_model():
    return ViterbiBatchSize1(GO, EOS)


def _inputs(t):
    unary = torch.randn(t, 1, NUM_TAGS)
    trans = torch.randn(1, NUM_TAGS, NUM_TAGS)
    return (unary, trans, torch.tensor([t]))


def example_inputs():
    return _inputs(6)


def other_inputs():
    return [_inputs(9), _inputs(3)]


def probe_inputs():
    return other_inputs()
