"""EmbeddingGemma 2 export for a Rust runtime: the token-embedder graph embeds multimodal placeholder
tokens (<|image|>, <|video|>, <|audio|>) as PAD before the soft tokens are spliced in. The export script
spells the membership test as a chain of `input_ids == token_id` ORs, with the comment "Explicit equality
instead of torch.isin, which the ONNX exporter does not support"; this case is the wrapper written with
`torch.isin` (the TorchScript-based exporter has no aten::isin symbolic). The token ids sit in a buffer
and the language model's embed_tokens is a small nn.Embedding.

Source: https://github.com/IgnacioSearles/sems/blob/f18ed2961eb5e8b885db46af2816bbe1a9306135/tools/export/export_onnx.py
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "operators-38"

VOCAB = 300
IMAGE_ID, VIDEO_ID, AUDIO_ID, PAD_ID = 255, 256, 257, 0


class LanguageModel(nn.Module):
    def __init__(self, vocab_size=VOCAB, hidden=16):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden, padding_idx=PAD_ID)


class TokenEmbedder(nn.Module):
    def __init__(self, language_model: nn.Module, multimodal_token_ids: list[int], pad_token_id: int):
        super().__init__()
        self.embed_tokens = language_model.embed_tokens
        self.register_buffer("multimodal_token_ids", torch.tensor(multimodal_token_ids, dtype=torch.long))
        self.pad_token_id = pad_token_id

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        # Placeholder positions are overwritten by soft tokens later; embed them as PAD like upstream.
        is_placeholder = torch.isin(input_ids, self.multimodal_token_ids)
        safe_ids = torch.where(is_placeholder, torch.full_like(input_ids, self.pad_token_id), input_ids)
        return self.embed_tokens(safe_ids)


def make_model():
    return TokenEmbedder(LanguageModel(), [IMAGE_ID, VIDEO_ID, AUDIO_ID], PAD_ID).eval()


def _ids(b, t):
    ids = torch.randint(1, 250, (b, t))
    ids[:, 1:4] = IMAGE_ID
    ids[:, -2] = AUDIO_ID
    return ids


def example_inputs():
    return (_ids(2, 12),)


def other_inputs():
    return [(_ids(3, 20),), (_ids(1, 7),)]


def probe_inputs():
    return other_inputs()
