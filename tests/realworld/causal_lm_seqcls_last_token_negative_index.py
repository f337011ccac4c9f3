"""Decoder-only LM with a sequence-classification head (LlamaForSequenceClassification and friends):
the pooled token is `sequence_lengths = torch.eq(input_ids, pad_token_id).int().argmax(-1) - 1`, which
is -1 for rows without padding, then `logits[torch.arange(batch_size), sequence_lengths]`; the PR
says ONNX implements this reverse (-1) indexing with its own operators and it can give incorrect
results ("the batch dimension can get shuffled").

Source: https://github.com/huggingface/transformers/pull/28144
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-6"


class TinyCausalLM(nn.Module):
    """Stand-in for LlamaModel: token embedding + causal running mean + MLP."""

    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))

    def forward(self, input_ids):
        h = self.embed_tokens(input_ids)
        steps = torch.arange(1, h.shape[1] + 1, device=h.device, dtype=h.dtype).view(1, -1, 1)
        h = h.cumsum(1) / steps
        return (h + self.mlp(h),)


class LlamaForSequenceClassification(nn.Module):
    def __init__(self, num_labels=3, pad_token_id=0):
        super().__init__()
        self.num_labels = num_labels
        self.pad_token_id = pad_token_id
        self.model = TinyCausalLM()
        self.score = nn.Linear(16, self.num_labels, bias=False)

    def forward(self, input_ids=None, inputs_embeds=None):
        transformer_outputs = self.model(input_ids)
        hidden_states = transformer_outputs[0]
        logits = self.score(hidden_states)

        if input_ids is not None:
            batch_size = input_ids.shape[0]
        else:
            batch_size = inputs_embeds.shape[0]

        if self.pad_token_id is None and batch_size != 1:
            raise ValueError("Cannot handle batch sizes > 1 if no padding token is defined.")
        if self.pad_token_id is None:
            sequence_lengths = -1
        else:
            if input_ids is not None:
                sequence_lengths = (torch.eq(input_ids, self.pad_token_id).int().argmax(-1) - 1).to(
                    logits.device
                )
            else:
                sequence_lengths = -1

        pooled_logits = logits[torch.arange(batch_size, device=logits.device), sequence_lengths]
        return pooled_logits


def make_model():
    return LlamaForSequenceClassification().eval()


def _batch(lengths, max_len):
    ids = torch.randint(1, 50, (len(lengths), max_len))
    for i, n in enumerate(lengths):
        ids[i, n:] = 0  # right padding with pad_token_id
    return (ids,)


def example_inputs():
    return _batch([8, 8], 8)          # export dummy: no padding (as exporters' dummy inputs)


def other_inputs():
    return [_batch([11, 6, 11], 11), _batch([5, 3], 5)]


def probe_inputs():
    return other_inputs()
