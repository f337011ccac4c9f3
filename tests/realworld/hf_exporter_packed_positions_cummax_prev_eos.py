"""Packed-sequence position ids: the last EOS position seen so far is a running max,
`torch.cummax(eos_positions, dim=1).values`, and each token's position restarts after it.
transformers' own ONNX exporter has to monkey-patch `torch.cummax` / `torch.cummin` (decomposing
them with a triangular mask) because `aten::cummax` has no ONNX lowering in either exporter.

Source: https://github.com/huggingface/transformers/blob/00857c92aac2144288ad9b870c2db76e3a6c098c/src/transformers/exporters/exporter_onnx.py
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "operators-29"


class PackedPositionEmbedding(nn.Module):
    def __init__(self, vocab_size=64, hidden_size=32, max_positions=512, eos_token_id=2):
        super().__init__()
        self.eos_token_id = eos_token_id
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.embed_positions = nn.Embedding(max_positions, hidden_size)

    def forward(self, input_ids):
        batch_size, seq_len = input_ids.shape
        positions = torch.arange(seq_len, device=input_ids.device, dtype=torch.int64)
        eos_positions = torch.where(input_ids == self.eos_token_id, positions, -1)
        previous_eos_inclusive = torch.cummax(eos_positions, dim=1).values
        previous_eos = torch.cat(
            [eos_positions.new_full((batch_size, 1), -1), previous_eos_inclusive[:, :-1]],
            dim=1,
        )
        position_ids = positions.unsqueeze(0) - previous_eos - 1
        return self.embed_tokens(input_ids) + self.embed_positions(position_ids)


def make_model():
    return PackedPositionEmbedding()


def _ids(b, t):
    ids = torch.randint(3, 64, (b, t))
    ids[:, t // 3] = 2
    ids[:, (2 * t) // 3] = 2
    return ids


def example_inputs():
    return (_ids(2, 24),)


def other_inputs():
    return [(_ids(3, 40),), (_ids(1, 9),)]


def probe_inputs():
    return other_inputs()
