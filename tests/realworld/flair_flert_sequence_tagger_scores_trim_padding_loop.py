"""Flair SequenceTagger (FLERT setup: transformer embeddings, no RNN, no CRF) exported "after embedding" with
`torch.onnx.export(model, model._prepare_tensors(sentences), ...)`: `forward(sentence_tensor, lengths)` ends in
`_get_scores_from_features`, which loops `for feat, length in zip(features, lengths)` and cuts each sentence
with `feat[:length]` before `torch.cat`, so the number of rows comes from the values of `lengths` (the user
exported this part separately from the embeddings and asked how to get the whole tagger into ONNX).

Source: https://github.com/flairNLP/flair/issues/3316
"""
import torch

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"sentence_tensor": {0: "batch", 1: "length"}, "lengths": {0: "batch"}}
BLIND = "domains-47"


class SequenceTagger(torch.nn.Module):
    def __init__(self, embedding_length=768, tagset_size=20, dropout=0.0,
                 use_rnn=False, use_crf=False, reproject_embeddings=False):
        super().__init__()
        self.use_rnn = use_rnn
        self.use_crf = use_crf
        self.reproject_embeddings = reproject_embeddings
        self.use_dropout: float = dropout
        if dropout > 0.0:
            self.dropout = torch.nn.Dropout(dropout)
        self.linear = torch.nn.Linear(embedding_length, tagset_size)

    def forward(self, sentence_tensor: torch.Tensor, lengths: torch.LongTensor):
        if self.use_dropout:
            sentence_tensor = self.dropout(sentence_tensor)

        # linear map to tag space
        features = self.linear(sentence_tensor)

        # -- A tensor of shape (aggregated sequence length for all sentences in batch, tagset size) for linear layer
        if self.use_crf:
            raise NotImplementedError
        else:
            scores = self._get_scores_from_features(features, lengths)

        return scores

    @staticmethod
    def _get_scores_from_features(features: torch.Tensor, lengths: torch.Tensor):
        """Remove paddings to get a smaller tensor."""
        features_formatted = []
        for feat, length in zip(features, lengths):
            features_formatted.append(feat[:length])
        scores = torch.cat(features_formatted)

        return scores


def make_model():
    return SequenceTagger().eval()


def example_inputs():
    # sentences sorted by length, longest first, as in the report
    return (torch.randn(2, 17, 768), torch.LongTensor([17, 5]))


def other_inputs():
    return [
        (torch.randn(3, 11, 768), torch.LongTensor([11, 9, 4])),
        (torch.randn(1, 6, 768), torch.LongTensor([6])),
    ]


def probe_inputs():
    return other_inputs()
