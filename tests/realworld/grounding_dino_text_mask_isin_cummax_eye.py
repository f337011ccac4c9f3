"""Grounding DINO text branch: the block-diagonal phrase self-attention mask and position ids are
built from input_ids with `torch.isin` (delimiter tokens), `torch.cummax` / `torch.cummin` and a
boolean `torch.eye` (transformers >= 5 vectorised helper). The export notes report that this does
not export: the legacy exporter rejects `aten::isin`, ONNX has no CumMax/CumMin, and EyeLike on
bool has no onnxruntime kernel; the author had to monkeypatch all three away.

Source: https://github.com/mtbui2010/vision_serve/blob/bee65c3a1e41beb16a848c695e517745e6369440/models/grounding-dino/README.md
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence_length"}}
BLIND = "operators-34"


def generate_masks_with_special_tokens_and_transfer_map(input_ids, special_tokens):
    batch_size, seq_len = input_ids.shape
    device = input_ids.device

    # Identify special token positions
    special_mask = torch.isin(input_ids, special_tokens)

    # For each position, find the previous and next special token indices
    indices = torch.arange(seq_len, device=device).unsqueeze(0).expand(batch_size, -1)

    # Previous special token: cummax of special token indices
    prev_special = torch.where(special_mask, indices, torch.full((), -1, device=device))
    prev_special = torch.cummax(prev_special, dim=1)[0]
    prev_special = torch.cat([prev_special.new_full((batch_size, 1), -1), prev_special[:, :-1]], dim=1)

    # Next special token: flip, cummin, flip back
    next_special = torch.where(special_mask, indices, torch.tensor(seq_len, device=device))
    next_special = torch.flip(torch.cummin(torch.flip(next_special, dims=[1]), dim=1)[0], dims=[1])

    valid_block = (next_special != 0) & (next_special != seq_len - 1) & (next_special != seq_len)

    next_i = next_special.unsqueeze(2)  # (B, N, 1)
    next_j = next_special.unsqueeze(1)  # (B, 1, N)
    attention_mask = (next_i == next_j) & valid_block.unsqueeze(1)

    # Always allow self-attention
    identity = torch.eye(seq_len, device=device, dtype=torch.bool).unsqueeze(0).expand(batch_size, -1, -1)
    attention_mask = identity | attention_mask

    position_ids = indices - prev_special - 1
    position_ids = torch.where(valid_block, position_ids, torch.zeros_like(position_ids))
    position_ids = torch.clamp(position_ids, min=0).to(torch.long)

    return attention_mask, position_ids


class GroundingDinoTextMask(nn.Module):
    def __init__(self, vocab_size=2000, d_model=32, max_position=256):
        super().__init__()
        # [CLS], [SEP], ".", "?"
        self.register_buffer("special_tokens", torch.tensor([101, 102, 1012, 1029]))
        self.word_embeddings = nn.Embedding(vocab_size, d_model)
        self.position_embeddings = nn.Embedding(max_position, d_model)

    def forward(self, input_ids):
        text_self_attention_masks, position_ids = generate_masks_with_special_tokens_and_transfer_map(
            input_ids, self.special_tokens
        )
        hidden = self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
        scores = hidden @ hidden.transpose(1, 2)
        scores = scores.masked_fill(~text_self_attention_masks, float("-inf"))
        return scores.softmax(-1) @ hidden, position_ids


def make_model():
    return GroundingDinoTextMask()


def _prompt(batch, phrases):
    rows = []
    for b in range(batch):
        ids = [101]
        for p in range(phrases):
            ids += torch.randint(1100, 2000, (1 + (b + p) % 3,)).tolist() + [1012]
        ids += [102]
        rows.append(ids)
    n = max(len(r) for r in rows)
    return torch.tensor([r + [0] * (n - len(r)) for r in rows])


def example_inputs():
    return (_prompt(2, 2),)


def other_inputs():
    return [(_prompt(3, 4),), (_prompt(1, 1),)]


def probe_inputs():
    return other_inputs()
