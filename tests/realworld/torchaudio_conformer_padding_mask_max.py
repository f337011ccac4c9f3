"""torchaudio's `Conformer` builds its key padding mask with `_lengths_to_padding_mask`, where
`max_length = int(torch.max(lengths).item())` sizes the `torch.arange`; the report exports the model with
dynamic batch and time axes (lengths given as a float tensor) and finds that only one of the axes really
becomes dynamic in the ONNX model.

Source: https://github.com/pytorch/pytorch/issues/122956
"""
from typing import Optional

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"input": {0: "batch_count", 1: "batch_item_length"}, "lengths": {0: "batch_count"}}
BLIND = "domains-4"


def _lengths_to_padding_mask(lengths: torch.Tensor) -> torch.Tensor:
    batch_size = lengths.shape[0]
    max_length = int(torch.max(lengths).item())
    padding_mask = torch.arange(max_length, device=lengths.device, dtype=lengths.dtype).expand(
        batch_size, max_length
    ) >= lengths.unsqueeze(1)
    return padding_mask


class ConformerLayer(nn.Module):
    def __init__(self, input_dim: int, ffn_dim: int, num_attention_heads: int, dropout: float = 0.0):
        super().__init__()
        self.ffn1 = nn.Sequential(nn.LayerNorm(input_dim), nn.Linear(input_dim, ffn_dim), nn.SiLU(),
                                  nn.Linear(ffn_dim, input_dim))
        self.self_attn_layer_norm = nn.LayerNorm(input_dim)
        self.self_attn = nn.MultiheadAttention(input_dim, num_attention_heads, dropout=dropout)
        self.final_layer_norm = nn.LayerNorm(input_dim)

    def forward(self, input: torch.Tensor, key_padding_mask: Optional[torch.Tensor]) -> torch.Tensor:
        residual = input
        x = self.ffn1(input)
        x = x * 0.5 + residual

        residual = x
        x = self.self_attn_layer_norm(x)
        x, _ = self.self_attn(
            query=x,
            key=x,
            value=x,
            key_padding_mask=key_padding_mask,
            need_weights=False,
        )
        x = x + residual
        return self.final_layer_norm(x)


class Conformer(nn.Module):
    def __init__(self, input_dim=16, num_heads=4, ffn_dim=32, num_layers=2):
        super().__init__()
        self.conformer_layers = nn.ModuleList(
            [ConformerLayer(input_dim, ffn_dim, num_heads) for _ in range(num_layers)]
        )

    def forward(self, input: torch.Tensor, lengths: torch.Tensor):
        encoder_padding_mask = _lengths_to_padding_mask(lengths)

        x = input.transpose(0, 1)
        for layer in self.conformer_layers:
            x = layer(x, encoder_padding_mask)
        return x.transpose(0, 1), lengths


def make_model():
    return Conformer().eval()


def example_inputs():
    return (torch.randn(3, 20, 16), torch.Tensor([10, 20, 12]))


def other_inputs():
    return [(torch.randn(2, 31, 16), torch.Tensor([31, 17])),
            (torch.randn(4, 12, 16), torch.Tensor([12, 5, 9, 12]))]


def probe_inputs():
    return other_inputs()
