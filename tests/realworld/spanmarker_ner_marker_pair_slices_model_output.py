"""SpanMarker NER (span classification with start/end marker tokens): after the encoder, forward
loops `for i in range(batch_size)` and slices each sample's marker embeddings with tensor bounds
(`last_hidden_state[i, start_marker_indices[i] : end_marker_indices[i]]`), pads each to
`sequence_length // 2 - embedding.shape[0]` rows, stacks them, classifies, and returns a
SpanMarkerOutput (a transformers ModelOutput) that also passes `num_marker_pairs`, `num_words`,
`document_ids`, `sentence_ids` through. The ONNX-export PR reports that the pass-through outputs get
mangled names, after the maintainer had earlier got "incomprehensible errors" exporting SpanMarker.
(The transformers ModelOutput base and its pytree registration are reduced to the few lines used.)

Source: https://github.com/tomaarsen/SpanMarkerNER/pull/43
"""
from collections import OrderedDict
from dataclasses import dataclass, fields
from typing import Optional

import torch
import torch.nn.functional as F
import torch.utils._pytree as _torch_pytree
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "indexing"
DYNAMIC = {
    "input_ids": {0: "batch", 1: "seq_len"},
    "attention_mask": {0: "batch", 1: "seq_len", 2: "seq_len"},
    "position_ids": {0: "batch", 1: "seq_len"},
    "start_marker_indices": {0: "batch"},
    "num_marker_pairs": {0: "batch"},
    "num_words": {0: "batch"},
    "document_ids": {0: "batch"},
    "sentence_ids": {0: "batch"},
}
BLIND = "domains-15"


class ModelOutput(OrderedDict):
    def __init_subclass__(cls) -> None:
        _torch_pytree.register_pytree_node(
            cls,
            lambda output: (list(output.values()), list(output.keys())),
            lambda values, context: cls(**dict(zip(context, values))),
            serialized_type_name=f"{cls.__module__}.{cls.__name__}",
        )

    def __post_init__(self):
        for field in fields(self):
            v = getattr(self, field.name)
            if v is not None:
                self[field.name] = v

    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return self.to_tuple()[k]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclass
class TokenClassifierOutput(ModelOutput):
    loss: Optional[torch.FloatTensor] = None
    logits: Optional[torch.FloatTensor] = None
    hidden_states: Optional[tuple] = None
    attentions: Optional[tuple] = None


@dataclass
class SpanMarkerOutput(TokenClassifierOutput):
    num_marker_pairs: Optional[torch.Tensor] = None
    num_words: Optional[torch.Tensor] = None
    document_ids: Optional[torch.Tensor] = None
    sentence_ids: Optional[torch.Tensor] = None


class TinyEncoder(nn.Module):
    """Stands in for the BERT/RoBERTa encoder (takes the 3D marker attention matrix)."""

    def __init__(self, vocab=120, hidden=32, heads=4, max_pos=128):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.position_embeddings = nn.Embedding(max_pos, hidden)
        self.heads = heads
        self.qkv = nn.Linear(hidden, hidden * 3)
        self.out = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, position_ids=None):
        x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        x = x + self.position_embeddings(position_ids)
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        mask = (1.0 - attention_mask[:, None].to(x.dtype)) * torch.finfo(x.dtype).min
        h = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        h = self.norm(x + self.out(h.transpose(1, 2).reshape(b, n, d)))
        return (h,)


class SpanMarkerModel(nn.Module):
    def __init__(self, hidden=32, num_labels=5):
        super().__init__()
        self.encoder = TinyEncoder(hidden=hidden)
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(hidden * 2, num_labels)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        position_ids: torch.Tensor,
        start_marker_indices: torch.Tensor,
        num_marker_pairs: torch.Tensor,
        num_words: Optional[torch.Tensor] = None,
        document_ids: Optional[torch.Tensor] = None,
        sentence_ids: Optional[torch.Tensor] = None,
    ) -> SpanMarkerOutput:
        token_type_ids = torch.zeros_like(input_ids)
        outputs = self.encoder(
            input_ids,
            attention_mask=attention_mask,
            token_type_ids=token_type_ids,
            position_ids=position_ids,
        )
        last_hidden_state = outputs[0]
        last_hidden_state = self.dropout(last_hidden_state)

        batch_size = last_hidden_state.size(0)
        sequence_length = last_hidden_state.size(1)

        # Get the indices where the end markers start
        end_marker_indices = start_marker_indices + num_marker_pairs

        # The start marker embeddings concatenated with the end marker embeddings.
        embeddings = []
        for i in range(batch_size):
            embeddings.append(
                torch.cat(
                    (
                        last_hidden_state[i, start_marker_indices[i] : end_marker_indices[i]],
                        last_hidden_state[i, end_marker_indices[i] : end_marker_indices[i] + num_marker_pairs[i]],
                    ),
                    dim=-1,
                )
            )
        padded_embeddings = [
            F.pad(embedding, (0, 0, 0, sequence_length // 2 - embedding.shape[0])) for embedding in embeddings
        ]
        feature_vector = torch.stack(padded_embeddings)

        feature_vector = self.dropout(feature_vector)
        logits = self.classifier(feature_vector)

        return SpanMarkerOutput(
            logits=logits,
            *outputs[2:],
            num_marker_pairs=num_marker_pairs,
            num_words=num_words,
            document_ids=document_ids,
            sentence_ids=sentence_ids,
        )


def make_model():
    return SpanMarkerModel().eval()


def _inputs(text_lens, pairs):
    """Layout per sample: text tokens, then `p` start markers, then `p` end markers, then padding."""
    b = len(text_lens)
    seq = max(t + 2 * p for t, p in zip(text_lens, pairs))
    input_ids = torch.zeros(b, seq, dtype=torch.long)
    attention_mask = torch.zeros(b, seq, seq, dtype=torch.long)
    position_ids = torch.zeros(b, seq, dtype=torch.long)
    for i, (t, p) in enumerate(zip(text_lens, pairs)):
        n = t + 2 * p
        input_ids[i, :t] = torch.randint(3, 120, (t,))
        input_ids[i, t : t + p] = 1
        input_ids[i, t + p : n] = 2
        attention_mask[i, :n, :t] = 1
        attention_mask[i, t:n, t:n] = torch.eye(2 * p, dtype=torch.long)
        position_ids[i, :t] = torch.arange(t)
        position_ids[i, t : t + p] = torch.arange(p)
        position_ids[i, t + p : n] = torch.arange(p) + 1
    return (
        input_ids,
        attention_mask,
        position_ids,
        torch.tensor(text_lens),
        torch.tensor(pairs),
        torch.tensor(text_lens),
        torch.arange(b),
        torch.zeros(b, dtype=torch.long),
    )


def example_inputs():
    return _inputs([6, 5], [5, 4])


def other_inputs():
    return [_inputs([9, 4, 7], [8, 3, 6]), _inputs([3], [2])]


def probe_inputs():
    return other_inputs()
