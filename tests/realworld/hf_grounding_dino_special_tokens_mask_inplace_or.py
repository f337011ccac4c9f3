"""Grounding DINO (transformers) builds the text special-token mask with an in-place bitwise OR,
`special_tokens_mask |= input_ids == special_token`, looping over the [CLS]/[SEP]/"."/"?" ids; the PR
replacing it with `torch.logical_or` says the `|=` (`aten::__ior_`) is not supported by ONNX/TensorRT export.

Source: https://github.com/huggingface/transformers/pull/40625
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence_length"}}
BLIND = "operators-56"

SPECIAL_TOKENS = [101, 102, 1012, 1029]


def generate_special_tokens_mask(input_ids: torch.LongTensor) -> torch.Tensor:
    batch_size, num_token = input_ids.shape
    # special_tokens_mask: batch_size, num_token. 1 for special tokens. 0 for normal tokens
    special_tokens_mask = torch.zeros((batch_size, num_token), device=input_ids.device).bool()
    for special_token in SPECIAL_TOKENS:
        special_tokens_mask |= input_ids == special_token
    return special_tokens_mask


class GroundingDinoTextSpecialTokens(nn.Module):
    def __init__(self, vocab_size=2000, d_model=32):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, d_model)
        self.text_projection = nn.Linear(d_model, d_model)

    def forward(self, input_ids):
        special_tokens_mask = generate_special_tokens_mask(input_ids)
        text_features = self.text_projection(self.word_embeddings(input_ids))
        # keep only normal tokens as phrase features
        text_features = text_features * (~special_tokens_mask).unsqueeze(-1).to(text_features.dtype)
        return text_features, special_tokens_mask


def make_model():
    return GroundingDinoTextSpecialTokens().eval()


def _prompt(batch, length):
    ids = torch.randint(1100, 2000, (batch, length))
    ids[:, 0] = 101
    ids[:, -1] = 102
    ids[:, length // 2] = 1012
    if length > 6:
        ids[:, length // 3] = 1029
    return ids


def example_inputs():
    return (_prompt(2, 12),)


def other_inputs():
    return [(_prompt(3, 17),), (_prompt(1, 7),)]


def probe_inputs():
    return other_inputs()
