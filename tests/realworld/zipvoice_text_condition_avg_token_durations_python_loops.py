"""ZipVoice (k2-fsa flow-matching TTS) text conditioning: `forward_text_condition` takes
`num_frames = int(features_lens.max())`, builds per-utterance token durations in Python
(`prepare_avg_tokens_durations`: a loop over the batch making `[avg_token_duration] * tokens_lens[i]` lists)
and fills the frame->token index with nested Python loops (`get_tokens_index`), then gathers the text
embeddings. None of that is traceable with dynamic lengths, so the ONNX export added in #33 does not export
this path: its `OnnxTextModel` wrapper re-derives the condition with a single `token_dur` and `expand`.

Source: https://github.com/k2-fsa/ZipVoice/pull/33
"""
from typing import List

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"tokens_padded": {0: "batch", 1: "num_tokens"}, "tokens_lens": {0: "batch"},
           "features_lens": {0: "batch"}}
BLIND = "domains-40"


def make_pad_mask(lengths: torch.Tensor, max_len: int = 0) -> torch.Tensor:
    assert lengths.ndim == 1, lengths.ndim
    max_len = max(max_len, lengths.max())
    n = lengths.size(0)
    seq_range = torch.arange(0, max_len, device=lengths.device)
    expaned_lengths = seq_range.unsqueeze(0).expand(n, max_len)
    return expaned_lengths >= lengths.unsqueeze(-1)


def prepare_avg_tokens_durations(features_lens, tokens_lens):
    tokens_durations = []
    for i in range(len(features_lens)):
        utt_duration = features_lens[i]
        avg_token_duration = utt_duration // tokens_lens[i]
        tokens_durations.append([avg_token_duration] * tokens_lens[i])
    return tokens_durations


def get_tokens_index(durations: List[List[int]], num_frames: int) -> torch.Tensor:
    durations = [x + [num_frames - sum(x)] for x in durations]
    batch_size = len(durations)
    ans = torch.zeros(batch_size, num_frames, dtype=torch.int64)
    for b in range(batch_size):
        this_dur = durations[b]
        cur_frame = 0
        for i, d in enumerate(this_dur):
            ans[b, cur_frame : cur_frame + d] = i
            cur_frame += d
        assert cur_frame == num_frames, (cur_frame, num_frames)
    return ans


class TextEncoder(nn.Module):
    """Stand-in for the TTSZipformer text encoder (same call signature)."""

    def __init__(self, dim):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, x, t=None, padding_mask=None):
        x = x + self.ff(x)
        if padding_mask is not None:
            x = x.masked_fill(padding_mask.unsqueeze(-1), 0.0)
        return x


class ZipVoiceTextCondition(nn.Module):
    def __init__(self, vocab_size=40, text_embed_dim=32, pad_id=0):
        super().__init__()
        self.pad_id = pad_id
        self.embed = nn.Embedding(vocab_size, text_embed_dim)
        self.text_encoder = TextEncoder(text_embed_dim)

    def forward_text_condition(self, embed: torch.Tensor, tokens_lens: torch.Tensor, features_lens: torch.Tensor):
        num_frames = int(features_lens.max())

        padding_mask = make_pad_mask(features_lens, max_len=num_frames)  # (B, T)

        tokens_durations = prepare_avg_tokens_durations(features_lens, tokens_lens)

        tokens_index = get_tokens_index(tokens_durations, num_frames).to(embed.device)  # (B, T)

        text_condition = torch.gather(
            embed,
            dim=1,
            index=tokens_index.unsqueeze(-1).expand(embed.size(0), num_frames, embed.size(-1)),
        )  # (B, T, F)
        return text_condition, padding_mask

    def forward(self, tokens_padded, tokens_lens, features_lens):
        # forward_text_embed after pad_labels (token ids + one pad, padded to the longest)
        embed = self.embed(tokens_padded)  # (B, S, C)
        tokens_padding_mask = make_pad_mask(tokens_lens, embed.shape[1])  # (B, S)
        embed = self.text_encoder(x=embed, t=None, padding_mask=tokens_padding_mask)  # (B, S, C)
        return self.forward_text_condition(embed, tokens_lens, features_lens)


def make_model():
    return ZipVoiceTextCondition().eval()


def _batch(lens, feats):
    s = max(lens) + 1
    tokens = torch.zeros(len(lens), s, dtype=torch.int64)
    for b, n in enumerate(lens):
        tokens[b, :n] = torch.randint(1, 40, (n,))
    return (tokens, torch.tensor(lens, dtype=torch.int64), torch.tensor(feats, dtype=torch.int64))


def example_inputs():
    return _batch([7, 4], [30, 21])


def other_inputs():
    return [_batch([5, 9, 3], [26, 47, 12]), _batch([11], [60])]


def probe_inputs():
    return other_inputs()
