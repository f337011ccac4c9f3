"""t2vec trajectory encoder (boathit/t2vec), as patched by Ascend's ModelZoo before ONNX export for ATC: the
GRU encoder turns the `lengths` input into a Python list with `lengths = lengths.data.view(-1).tolist()` before
`pack_padded_sequence`, which the port's patch ("modify the source so that ONNX exports correctly") replaces with
`lengths.view(-1)`; the export uses a dynamic `seq_len` axis on `src`.

Source: https://github.com/Ascend/ModelZoo-PyTorch/blob/ddd740204f13cc69f40e2430eda910f5268d7b64/ACL_PyTorch/built-in/cv/T2vec_for_Pytorch/t2vec.patch
"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_packed_sequence
from torch.nn.utils.rnn import pack_padded_sequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"src": {0: "seq_len"}}
BLIND = "domains-52"

PAD = 0


class Encoder(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, dropout,
                       bidirectional, embedding):
        super(Encoder, self).__init__()
        self.num_directions = 2 if bidirectional else 1
        assert hidden_size % self.num_directions == 0
        self.hidden_size = hidden_size // self.num_directions
        self.num_layers = num_layers

        self.embedding = embedding
        self.rnn = nn.GRU(input_size, self.hidden_size,
                          num_layers=num_layers,
                          bidirectional=bidirectional,
                          dropout=dropout)

    def forward(self, input, lengths, h0=None):
        # (seq_len, batch) => (seq_len, batch, input_size)
        embed = self.embedding(input)
        lengths = lengths.data.view(-1).tolist()
        if lengths is not None:
            embed = pack_padded_sequence(embed, lengths)
        output, hn = self.rnn(embed, h0)
        if lengths is not None:
            output = pad_packed_sequence(output)[0]
        return hn, output


class EncoderDecoder(nn.Module):
    # trimmed: the decoder is not exported (the port returns decoder_h0)
    def __init__(self, vocab_size, embedding_size,
                       hidden_size, num_layers, dropout, bidirectional):
        super(EncoderDecoder, self).__init__()
        self.vocab_size = vocab_size
        self.embedding_size = embedding_size
        self.embedding = nn.Embedding(vocab_size, embedding_size,
                                      padding_idx=PAD)
        self.encoder = Encoder(embedding_size, hidden_size, num_layers,
                               dropout, bidirectional, self.embedding)
        self.num_layers = num_layers

    def encoder_hn2decoder_h0(self, h):
        if self.encoder.num_directions == 2:
            num_layers, batch, hidden_size = h.size(0)//2, h.size(1), h.size(2)
            return h.view(num_layers, 2, batch, hidden_size)\
                    .transpose(1, 2).contiguous()\
                    .view(num_layers, batch, hidden_size * 2)
        else:
            return h

    def forward(self, src, lengths):
        encoder_hn, H = self.encoder(src, lengths)
        decoder_h0 = self.encoder_hn2decoder_h0(encoder_hn)
        return decoder_h0


def make_model():
    return EncoderDecoder(300, 32, 32, 3, 0.2, True).eval()


def _batch(seq_len, lengths):
    lengths = torch.tensor([lengths], dtype=torch.long)  # (1, batch), sorted descending
    src = torch.randint(1, 300, (seq_len, lengths.shape[1]))
    for b, n in enumerate(lengths[0].tolist()):
        src[n:, b] = PAD
    return src, lengths


def example_inputs():
    return _batch(12, [12, 10, 7, 3])


def other_inputs():
    return [_batch(20, [20, 15, 9, 2]), _batch(6, [6, 6, 4, 1])]


def probe_inputs():
    return other_inputs()
