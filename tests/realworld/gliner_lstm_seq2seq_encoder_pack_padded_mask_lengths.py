"""GLiNER (span NER on a BERT-like encoder): the word-level `LstmSeq2SeqEncoder` packs the word embeddings with
`lengths = mask.sum(dim=1).cpu()` and `pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)`,
runs a bidirectional LSTM and unpacks with `pad_packed_sequence`. The reporter's ONNX conversion warns about the
batch size with a variable-length LSTM and the missing shape inference of prim::PadPacked, and the converted model
does not work when they load and run it on new text.

Source: https://github.com/urchade/GLiNER/issues/120
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pad_packed_sequence, pack_padded_sequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"words_embedding": {0: "batch", 1: "num_words"}, "mask": {0: "batch", 1: "num_words"}}
BLIND = "domains-13"


class GLiNERConfig:
    hidden_size = 32
    dropout = 0.0


class LstmSeq2SeqEncoder(nn.Module):
    def __init__(self, config, num_layers=1, dropout=0., bidirectional=True):
        super(LstmSeq2SeqEncoder, self).__init__()
        self.lstm = nn.LSTM(input_size=config.hidden_size,
                            hidden_size=config.hidden_size//2,
                            num_layers=num_layers,
                            dropout=dropout,
                            bidirectional=bidirectional,
                            batch_first=True)

    def forward(self, x, mask, hidden=None):
        # Packing the input sequence
        lengths = mask.sum(dim=1).cpu()
        packed_x = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)

        # Passing packed sequence through LSTM
        packed_output, hidden = self.lstm(packed_x, hidden)

        # Unpacking the output sequence
        output, _ = pad_packed_sequence(packed_output, batch_first=True)

        return output


class WordsEncoder(nn.Module):
    """The words branch of GLiNER's BaseModel: projection of the first-subtoken embeddings, then the LSTM."""

    def __init__(self, config=GLiNERConfig()):
        super().__init__()
        self.projection = nn.Linear(config.hidden_size, config.hidden_size)
        self.rnn = LstmSeq2SeqEncoder(config)

    def forward(self, words_embedding, mask):
        words_embedding = self.projection(words_embedding)
        words_embedding = self.rnn(words_embedding, mask)
        return words_embedding


def make_model():
    return WordsEncoder().eval()


def _batch(lengths, num_words):
    mask = torch.zeros(len(lengths), num_words, dtype=torch.long)
    for row, n in enumerate(lengths):
        mask[row, :n] = 1
    return torch.randn(len(lengths), num_words, 32), mask


def example_inputs():
    return _batch([12, 7], 12)


def other_inputs():
    return [_batch([5, 20, 9], 20), _batch([6], 6)]


def probe_inputs():
    return other_inputs()
