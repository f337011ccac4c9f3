"""ZipVoice (flow-matching TTS) ONNX text-encoder wrapper: the per-token duration is computed from the
prompt_features_len / speed input tensors (`features_len = ceil(...)`, `token_dur = div(...)`) and then
used as a size in `expand(-1, -1, token_dur, -1)` and in the padding `expand(..., features_len - T, ...)`;
the export for sherpa-onnx gave a graph whose Concat got shape inputs of different ranks ([1] vs scalar)
and onnxruntime refused it until the sizes were reshaped to scalars (`reshape(())`).

Source: https://github.com/k2-fsa/ZipVoice/pull/90
"""
import torch
import torch.nn as nn
from torch import Tensor

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"tokens": {1: "num_tokens"}, "prompt_tokens": {1: "num_prompt_tokens"}}
BLIND = "domains-29"


class TTSTextEncoder(nn.Module):
    """Stand-in for the Zipformer text encoder (same call signature)."""

    def __init__(self, dim=32):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)

    def forward(self, x, t=None, padding_mask=None):
        return self.layer(x, src_key_padding_mask=padding_mask)


class ZipVoice(nn.Module):
    def __init__(self, vocab_size=40, dim=32, pad_id=0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.text_encoder = TTSTextEncoder(dim)
        self.pad_id = pad_id


class OnnxTextModel(nn.Module):
    def __init__(self, model: nn.Module):
        """A wrapper for ZipVoice text encoder."""
        super().__init__()
        self.embed = model.embed
        self.text_encoder = model.text_encoder
        self.pad_id = model.pad_id

    def forward(
        self,
        tokens: Tensor,
        prompt_tokens: Tensor,
        prompt_features_len: Tensor,
        speed: Tensor,
    ) -> Tensor:
        cat_tokens = torch.cat([prompt_tokens, tokens], dim=1)
        cat_tokens = nn.functional.pad(cat_tokens, (0, 1), value=self.pad_id)
        tokens_len = cat_tokens.shape[1] - 1
        padding_mask = (torch.arange(tokens_len + 1) == tokens_len).unsqueeze(0)

        embed = self.embed(cat_tokens)
        embed = self.text_encoder(x=embed, t=None, padding_mask=padding_mask)

        features_len = torch.ceil(
            (prompt_features_len / prompt_tokens.shape[1] * tokens_len / speed)
        ).to(dtype=torch.int64)

        token_dur = torch.div(features_len, tokens_len, rounding_mode="floor").to(
            dtype=torch.int64
        )

        text_condition = embed[:, :-1, :].unsqueeze(2).expand(-1, -1, token_dur, -1)
        text_condition = text_condition.reshape(embed.shape[0], -1, embed.shape[2])

        text_condition = torch.cat(
            [
                text_condition,
                embed[:, -1:, :].expand(-1, features_len - text_condition.shape[1], -1),
            ],
            dim=1,
        )

        return text_condition


def make_model():
    return OnnxTextModel(ZipVoice()).eval()


def example_inputs():
    return (torch.randint(1, 40, (1, 12)), torch.randint(1, 40, (1, 8)),
            torch.tensor([100], dtype=torch.int64), torch.tensor([1.0]))


def other_inputs():
    return [
        (torch.randint(1, 40, (1, 20)), torch.randint(1, 40, (1, 5)),
         torch.tensor([70], dtype=torch.int64), torch.tensor([1.2])),
        (torch.randint(1, 40, (1, 7)), torch.randint(1, 40, (1, 10)),
         torch.tensor([160], dtype=torch.int64), torch.tensor([0.9])),
    ]


def probe_inputs():
    return other_inputs()
