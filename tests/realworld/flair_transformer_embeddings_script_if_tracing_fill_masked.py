"""Flair NER tagger embeddings (TransformerWordEmbeddings of `ner-large`, first-subtoken pooling): forward
pools sub-token states into word embeddings with `@torch.jit.script_if_tracing` helpers that loop over the
batch (`for i in torch.arange(int(all_token_embeddings.shape[0]))`), select states with a boolean mask and
insert zero rows for words without a sub-token; the tensor is allocated with `int(token_lengths.max())`.
The report exports it through a small wrapper with torch.onnx.export and gets "RuntimeError: r INTERNAL
ASSERT FAILED at jit_type_base.h:545". The XLM-R encoder is replaced by a tiny stand-in that returns the
hidden-states tuple; the helpers and forward are flair's (commit 117e14e5) as written.

Source: https://github.com/pytorch/pytorch/issues/84365
"""
from typing import Optional

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {
    "input_ids": {0: "batch", 1: "sequ_length"},
    "sub_token_lengths": {0: "batch"},
    "token_lengths": {0: "batch"},
    "attention_mask": {0: "batch", 1: "sequ_length"},
    "word_ids": {0: "batch", 1: "sequ_length"},
}
BLIND = "domains-21"


class flair:  # stand-in for the `flair` module attribute the helpers read
    device = torch.device("cpu")


@torch.jit.script_if_tracing
def truncate_hidden_states(hidden_states: torch.Tensor, input_ids: torch.Tensor) -> torch.Tensor:
    return hidden_states[:, :, : input_ids.size()[1]]


@torch.jit.script_if_tracing
def fill_masked_elements(
    all_token_embeddings: torch.Tensor,
    sentence_hidden_states: torch.Tensor,
    mask: torch.Tensor,
    word_ids: torch.Tensor,
    lengths: torch.LongTensor,
):
    for i in torch.arange(int(all_token_embeddings.shape[0])):
        all_token_embeddings[i, : lengths[i], :] = insert_missing_embeddings(  # type: ignore
            sentence_hidden_states[i][mask[i] & (word_ids[i] >= 0)], word_ids[i], lengths[i]
        )
    return all_token_embeddings


@torch.jit.script_if_tracing
def insert_missing_embeddings(
    token_embeddings: torch.Tensor, word_id: torch.Tensor, length: torch.LongTensor
) -> torch.Tensor:
    # in some cases we need to insert zero vectors for tokens without embedding.
    if token_embeddings.shape[0] < length:
        for _id in torch.arange(int(length)):
            if not (word_id == _id).any():
                token_embeddings = torch.cat(
                    (
                        token_embeddings[:_id],
                        torch.zeros_like(token_embeddings[:1]),
                        token_embeddings[_id:],
                    ),
                    dim=0,
                )
    return token_embeddings


class TinyEncoder(nn.Module):
    """Stand-in for the XLM-R model loaded with output_hidden_states=True."""

    def __init__(self, vocab=50, hidden=16, layers=2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(layers)])

    def forward(self, input_ids, attention_mask=None):
        h = self.embeddings(input_ids)
        all_hidden = [h]
        for layer in self.layers:
            h = torch.tanh(layer(h)) * attention_mask.unsqueeze(-1)
            all_hidden.append(h)
        return h, tuple(all_hidden)


class TransformerWordEmbeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = TinyEncoder()
        self.layer_indexes = [-1]
        self.layer_mean = True
        self.subtoken_pooling = "first"
        self.embedding_length_internal = 16

    def forward(
        self,
        input_ids: torch.Tensor,
        sub_token_lengths: torch.LongTensor,
        token_lengths: Optional[torch.LongTensor] = None,
        attention_mask: Optional[torch.Tensor] = None,
        word_ids: Optional[torch.Tensor] = None,
    ):
        model_kwargs = {}
        if attention_mask is not None:
            model_kwargs["attention_mask"] = attention_mask
        hidden_states = self.model(input_ids, **model_kwargs)[-1]
        # make the tuple a tensor; makes working with it easier.
        hidden_states = torch.stack(hidden_states)
        hidden_states = truncate_hidden_states(hidden_states, input_ids)
        # only use layers that will be outputted
        hidden_states = hidden_states[self.layer_indexes, :, :]
        if self.layer_mean:
            hidden_states = hidden_states.mean(dim=0)
        sentence_hidden_states = hidden_states

        result = dict()
        assert word_ids is not None
        assert token_lengths is not None
        all_token_embeddings = torch.zeros(
            word_ids.shape[0], int(token_lengths.max()), self.embedding_length_internal, device=flair.device
        )
        true_tensor = torch.ones_like(word_ids[:, :1], dtype=torch.bool)
        if self.subtoken_pooling == "first":
            gain_mask = word_ids[:, 1:] != word_ids[:, : word_ids.shape[1] - 1]
            first_mask = torch.cat([true_tensor, gain_mask], dim=1)
            all_token_embeddings = fill_masked_elements(
                all_token_embeddings, sentence_hidden_states, first_mask, word_ids, token_lengths
            )
        result["token_embeddings"] = all_token_embeddings
        return result


class TorchWrapper(nn.Module):
    def __init__(self, embedding: TransformerWordEmbeddings):
        super().__init__()
        self.embedding = embedding

    def forward(self, input_ids, sub_token_lengths, token_lengths, attention_mask, word_ids):
        return self.embedding(input_ids, sub_token_lengths, token_lengths, attention_mask, word_ids)[
            "token_embeddings"
        ]


def make_model():
    return TorchWrapper(TransformerWordEmbeddings()).eval()


def _batch(word_id_rows):
    # word_ids per sub-token (-100 for <s>, </s> and padding), as flair's prepare_tensors builds them
    seq = max(len(r) for r in word_id_rows) + 2
    word_ids = torch.full((len(word_id_rows), seq), -100, dtype=torch.long)
    attention_mask = torch.zeros(len(word_id_rows), seq, dtype=torch.long)
    for b, row in enumerate(word_id_rows):
        word_ids[b, 1 : 1 + len(row)] = torch.tensor(row)
        attention_mask[b, : len(row) + 2] = 1
    input_ids = torch.randint(3, 50, (len(word_id_rows), seq)) * attention_mask
    sub_token_lengths = attention_mask.sum(dim=1)
    token_lengths = torch.tensor([max(r) + 1 for r in word_id_rows])
    return (input_ids, sub_token_lengths, token_lengths, attention_mask, word_ids)


def example_inputs():
    return _batch([[0, 0, 1, 2, 2, 3], [0, 1, 1, 2]])


def other_inputs():
    return [_batch([[0, 1, 1, 1, 2, 3, 4, 4], [0, 1], [0, 0, 1, 2, 3]]), _batch([[0, 1, 2]])]


def probe_inputs():
    return other_inputs()
