"""mead-baseline tagger with a constrained TaggerGreedyDecoder (no CRF): decoding runs the batched
ViterbiLogSoftmaxNorm, which loops `for i, unary_t in enumerate(unary)` over the time steps and
branches `if i >= min_length` on `min_length = torch.min(lengths)`, then masks the path with
`sequence_mask(lengths)` (an arange up to `torch.max(lens)`). The PR reports these models "error when
exporting" because the batched Viterbi was not swapped for the batch-size-1 scripted one.

Source: https://github.com/mead-ml/mead-baseline/pull/706
"""
from typing import Optional, Tuple

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"tokens": {0: "batch", 1: "seq_len"}, "lengths": {0: "batch"}}
BLIND = "domains-15"

MASK_FALSE = False
GO, EOS = 2, 3


def sequence_mask(lengths: torch.Tensor, max_len: int = -1) -> torch.Tensor:
    lens = lengths.cpu()
    if max_len < 0:
        max_len_v = torch.max(lens)
    else:
        max_len_v = max_len
    # 1 x T
    row = torch.arange(0, max_len_v).type_as(lens).view(1, -1)
    # B x 1
    col = lens.view(-1, 1)
    # Broadcast to B x T, compares increasing number to max
    mask = row < col
    return mask


def tbh2bth(t: torch.Tensor) -> torch.Tensor:
    return t.transpose(0, 1).contiguous()


def bth2tbh(t: torch.Tensor) -> torch.Tensor:
    return t.transpose(0, 1).contiguous()


def ident(x):
    return x


class ViterbiLogSoftmaxNorm(nn.Module):
    def __init__(self, start_idx: int, end_idx: int):
        super().__init__()
        self.start_idx = start_idx
        self.end_idx = end_idx

    def forward(
        self, unary: torch.Tensor, trans: torch.Tensor, lengths: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        seq_len, batch_size, tag_size = unary.size()
        min_length = torch.min(lengths)
        backpointers = []

        # Alphas: [B, 1, N]
        alphas = torch.full((batch_size, 1, tag_size), -1e4, device=unary.device)
        alphas[:, 0, self.start_idx] = 0
        alphas = F.log_softmax(alphas, dim=-1)

        for i, unary_t in enumerate(unary):
            next_tag_var = alphas + trans
            viterbi, best_tag_ids = torch.max(next_tag_var, 2)
            backpointers.append(best_tag_ids)
            new_alphas = viterbi + unary_t
            new_alphas.unsqueeze_(1)
            if i >= min_length:
                mask = (i < lengths).view(-1, 1, 1)
                alphas = alphas.masked_fill(mask, 0) + new_alphas.masked_fill(mask == MASK_FALSE, 0)
            else:
                alphas = new_alphas

        # Add end tag
        terminal_var = alphas.squeeze(1) + trans[:, self.end_idx, :]
        path_score, best_tag_id = torch.max(terminal_var, 1)
        # Flip lengths
        rev_len = seq_len - lengths - 1

        best_path = [best_tag_id]
        for i in range(len(backpointers)):
            t = len(backpointers) - i - 1
            backpointer_t = backpointers[t]
            # Get new best tag candidate
            new_best_tag_id = backpointer_t.gather(1, best_tag_id.unsqueeze(1)).squeeze(1)
            mask = i > rev_len
            best_tag_id = best_tag_id.masked_fill(mask, 0) + new_best_tag_id.masked_fill(mask == MASK_FALSE, 0)
            best_path.append(best_tag_id)
        _ = best_path.pop()
        best_path.reverse()
        best_path = torch.stack(best_path)
        seq_mask = sequence_mask(lengths).to(best_path.device).transpose(0, 1)
        best_path = best_path.masked_fill(seq_mask == MASK_FALSE, 0)
        return best_path, path_score


class TaggerGreedyDecoder(nn.Module):
    def __init__(self, num_tags: int, constraint_mask: Optional[torch.Tensor] = None, batch_first: bool = True):
        super().__init__()
        self.num_tags = num_tags
        if constraint_mask is not None:
            constraint_mask = F.log_softmax(
                torch.zeros(constraint_mask.shape).masked_fill(constraint_mask, -1e4), dim=1
            )
            self.register_buffer("constraint_mask", constraint_mask)
        else:
            self.constraint_mask = None
        self.to_batch_first = ident if batch_first else tbh2bth
        self.to_time_first = bth2tbh if batch_first else ident
        self.batch_first = batch_first
        self.viterbi = ViterbiLogSoftmaxNorm(GO, EOS)

    def forward(self, inputs) -> torch.Tensor:
        unaries, lengths = inputs
        if self.constraint_mask is not None:
            probv = self.to_time_first(unaries)
            probv = F.log_softmax(probv, dim=-1)
            preds, scores = self.viterbi(probv, self.constraint_mask, lengths)
            if self.batch_first:
                return tbh2bth(preds)
            else:
                return preds
        else:
            _, preds = torch.max(unaries, -1)
            mask = sequence_mask(lengths, unaries.shape[1]).to(preds.device)
            mask = mask if self.batch_first else mask.transpose(0, 1)
            preds = preds.masked_fill(mask == MASK_FALSE, 0)
        return preds


class RNNTaggerModel(nn.Module):
    def __init__(self, vocab=100, dsz=32, hsz=32, num_tags=9):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, dsz)
        self.proj = nn.Linear(dsz, hsz)
        self.output = nn.Linear(hsz, num_tags)
        # BIO-style constraints: True marks a disallowed transition
        g = torch.Generator().manual_seed(0)
        constraint = torch.rand(1, num_tags, num_tags, generator=g) > 0.7
        self.decoder = TaggerGreedyDecoder(num_tags, constraint_mask=constraint, batch_first=True)

    def forward(self, tokens, lengths):
        h = torch.tanh(self.proj(self.embeddings(tokens)))
        unaries = self.output(h)
        return self.decoder((unaries, lengths))


def make_model():
    return RNNTaggerModel().eval()


def _inputs(b, t):
    tokens = torch.randint(4, 100, (b, t))
    lengths = torch.randint(max(1, t // 2), t + 1, (b,))
    lengths[0] = t
    return tokens, lengths


def example_inputs():
    return _inputs(2, 12)


def other_inputs():
    return [_inputs(3, 17), _inputs(4, 7)]


def probe_inputs():
    return other_inputs()
