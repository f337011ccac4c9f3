"""torchaudio Conformer (ASR encoder) exported with `(input, lengths)`: `_lengths_to_padding_mask` builds the key
padding mask from `max_length = int(torch.max(lengths).item())`, so `torch.export` fails with "Could not guard on
data-dependent expression Eq(u0, 345)" inside the self-attention shape check.

Source: https://github.com/pytorch/pytorch/issues/141551
"""
from typing import Optional, Tuple

import torch

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input": {0: "batch", 1: "num_frames"}, "lengths": {0: "batch"}}
BLIND = "domains-12"


def _lengths_to_padding_mask(lengths: torch.Tensor) -> torch.Tensor:
    batch_size = lengths.shape[0]
    max_length = int(torch.max(lengths).item())
    padding_mask = torch.arange(max_length, device=lengths.device, dtype=lengths.dtype).expand(
        batch_size, max_length
    ) >= lengths.unsqueeze(1)
    return padding_mask


class _FeedForwardModule(torch.nn.Module):
    def __init__(self, input_dim: int, hidden_dim: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.sequential = torch.nn.Sequential(
            torch.nn.LayerNorm(input_dim),
            torch.nn.Linear(input_dim, hidden_dim, bias=True),
            torch.nn.SiLU(),
            torch.nn.Dropout(dropout),
            torch.nn.Linear(hidden_dim, input_dim, bias=True),
            torch.nn.Dropout(dropout),
        )

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return self.sequential(input)


class ConformerLayer(torch.nn.Module):
    def __init__(self, input_dim: int, ffn_dim: int, num_attention_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.ffn1 = _FeedForwardModule(input_dim, ffn_dim, dropout=dropout)
        self.self_attn_layer_norm = torch.nn.LayerNorm(input_dim)
        self.self_attn = torch.nn.MultiheadAttention(input_dim, num_attention_heads, dropout=dropout)
        self.self_attn_dropout = torch.nn.Dropout(dropout)
        self.ffn2 = _FeedForwardModule(input_dim, ffn_dim, dropout=dropout)
        self.final_layer_norm = torch.nn.LayerNorm(input_dim)

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
        x = self.self_attn_dropout(x)
        x = x + residual

        residual = x
        x = self.ffn2(x)
        x = x * 0.5 + residual

        x = self.final_layer_norm(x)
        return x


class Conformer(torch.nn.Module):
    def __init__(self, input_dim: int, num_heads: int, ffn_dim: int, num_layers: int, dropout: float = 0.0):
        super().__init__()
        self.conformer_layers = torch.nn.ModuleList(
            [ConformerLayer(input_dim, ffn_dim, num_heads, dropout=dropout) for _ in range(num_layers)]
        )

    def forward(self, input: torch.Tensor, lengths: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        encoder_padding_mask = _lengths_to_padding_mask(lengths)

        x = input.transpose(0, 1)
        for layer in self.conformer_layers:
            x = layer(x, encoder_padding_mask)
        return x.transpose(0, 1), lengths


def make_model():
    return Conformer(input_dim=80, num_heads=4, ffn_dim=128, num_layers=2).eval()


def example_inputs():
    lengths = torch.tensor([20, 13, 17])
    return (torch.rand(3, int(lengths.max()), 80), lengths)


def other_inputs():
    return [
        (torch.rand(4, 27, 80), torch.tensor([27, 5, 19, 26])),
        (torch.rand(2, 11, 80), torch.tensor([9, 11])),
    ]


def probe_inputs():
    return other_inputs()
