"""OpenNMT-py im2text (image-to-text OCR, here a licence-plate reader): the ImageEncoder runs a row LSTM in a
Python loop over the feature-map rows (`for row in range(input.size(2))`, `torch.Tensor(batch_size)...fill_(row)`
positions), and NMTModel.forward returns `decoder_outputs, attns, dec_state` where `attns` is a dict and `dec_state`
an `onmt.Models.RNNDecoderState` object; torch.onnx.export fails with "Auto nesting doesn't know how to process an
input object of type onmt.Models.RNNDecoderState".
(Channel sizes reduced; StdRNNDecoder; src_lengths is None for image sources as in the trainer.)

Source: https://github.com/OpenNMT/OpenNMT-py/issues/638
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

CLASS = "outputs"
FAMILY = "control_flow"
DYNAMIC = {"src": {0: "batch", 2: "height", 3: "width"}, "tgt": {0: "tgt_len", 1: "batch"}}
BLIND = "domains-29"


def aeq(*args):
    arguments = (arg for arg in args)
    first = next(arguments)
    assert all(arg == first for arg in arguments), "Not all arguments have the same value: " + str(args)


class ImageEncoder(nn.Module):
    def __init__(self, num_layers, bidirectional, rnn_size, dropout):
        super(ImageEncoder, self).__init__()
        self.num_layers = num_layers
        self.num_directions = 2 if bidirectional else 1
        self.hidden_size = rnn_size
        self.layer1 = nn.Conv2d(3, 16, kernel_size=(3, 3), padding=(1, 1), stride=(1, 1))
        self.layer2 = nn.Conv2d(16, 32, kernel_size=(3, 3), padding=(1, 1), stride=(1, 1))
        self.layer3 = nn.Conv2d(32, 32, kernel_size=(3, 3), padding=(1, 1), stride=(1, 1))
        self.layer4 = nn.Conv2d(32, 48, kernel_size=(3, 3), padding=(1, 1), stride=(1, 1))
        self.batch_norm1 = nn.BatchNorm2d(32)
        self.batch_norm2 = nn.BatchNorm2d(48)
        input_size = 48
        self.rnn = nn.LSTM(input_size, rnn_size, num_layers=num_layers, dropout=dropout,
                           bidirectional=bidirectional)
        self.pos_lut = nn.Embedding(1000, input_size)

    def forward(self, input, lengths=None):
        batch_size = input.size(0)
        input = F.relu(self.layer1(input[:, :, :, :] - 0.5), True)
        input = F.max_pool2d(input, kernel_size=(2, 2), stride=(2, 2))
        input = F.relu(self.layer2(input), True)
        input = F.max_pool2d(input, kernel_size=(2, 2), stride=(2, 2))
        input = F.relu(self.batch_norm1(self.layer3(input)), True)
        input = F.max_pool2d(input, kernel_size=(1, 2), stride=(1, 2))
        input = F.relu(self.batch_norm2(self.layer4(input)), True)
        all_outputs = []
        for row in range(input.size(2)):
            inp = input[:, :, row, :].transpose(0, 2).transpose(1, 2)
            row_vec = torch.Tensor(batch_size).type_as(inp.data).long().fill_(row)
            pos_emb = self.pos_lut(Variable(row_vec))
            with_pos = torch.cat((pos_emb.view(1, pos_emb.size(0), pos_emb.size(1)), inp), 0)
            outputs, hidden_t = self.rnn(with_pos)
            all_outputs.append(outputs)
        out = torch.cat(all_outputs, 0)
        return hidden_t, out


class GlobalAttention(nn.Module):
    def __init__(self, dim):
        super(GlobalAttention, self).__init__()
        self.dim = dim
        self.linear_in = nn.Linear(dim, dim, bias=False)
        self.linear_out = nn.Linear(dim * 2, dim, bias=False)
        self.sm = nn.Softmax(dim=-1)
        self.tanh = nn.Tanh()

    def forward(self, input, memory_bank, memory_lengths=None):
        batch, sourceL, dim = memory_bank.size()
        batch_, targetL, dim_ = input.size()
        h_t = self.linear_in(input.view(batch_ * targetL, dim_)).view(batch_, targetL, dim_)
        align = torch.bmm(h_t, memory_bank.transpose(1, 2))
        align_vectors = self.sm(align.view(batch * targetL, sourceL))
        align_vectors = align_vectors.view(batch, targetL, sourceL)
        c = torch.bmm(align_vectors, memory_bank)
        concat_c = torch.cat([c, input], 2).view(batch * targetL, dim * 2)
        attn_h = self.tanh(self.linear_out(concat_c).view(batch, targetL, dim))
        attn_h = attn_h.transpose(0, 1).contiguous()
        align_vectors = align_vectors.transpose(0, 1).contiguous()
        return attn_h, align_vectors


class RNNDecoderState(object):
    def __init__(self, hidden_size, rnnstate):
        if not isinstance(rnnstate, tuple):
            self.hidden = (rnnstate,)
        else:
            self.hidden = rnnstate
        self.coverage = None
        batch_size = self.hidden[0].size(1)
        h_size = (batch_size, hidden_size)
        self.input_feed = Variable(self.hidden[0].data.new(*h_size).zero_(), requires_grad=False).unsqueeze(0)

    def update_state(self, rnnstate, input_feed, coverage):
        if not isinstance(rnnstate, tuple):
            self.hidden = (rnnstate,)
        else:
            self.hidden = rnnstate
        self.input_feed = input_feed
        self.coverage = coverage


class Embeddings(nn.Module):
    def __init__(self, vocab_size, dim):
        super(Embeddings, self).__init__()
        self.word_lut = nn.Embedding(vocab_size, dim, padding_idx=1)

    def forward(self, source):
        return self.word_lut(source.squeeze(2))


class StdRNNDecoder(nn.Module):
    def __init__(self, bidirectional_encoder, num_layers, hidden_size, embeddings):
        super(StdRNNDecoder, self).__init__()
        self.bidirectional_encoder = bidirectional_encoder
        self.hidden_size = hidden_size
        self.embeddings = embeddings
        self.dropout = nn.Dropout(0.0)
        self.rnn = nn.LSTM(embeddings.word_lut.embedding_dim, hidden_size, num_layers=num_layers)
        self.attn = GlobalAttention(hidden_size)

    def forward(self, tgt, memory_bank, state, memory_lengths=None):
        assert isinstance(state, RNNDecoderState)
        tgt_len, tgt_batch, _ = tgt.size()
        _, memory_batch, _ = memory_bank.size()
        aeq(tgt_batch, memory_batch)
        attns = {}
        emb = self.embeddings(tgt)
        rnn_output, decoder_final = self.rnn(emb, state.hidden)
        decoder_outputs, p_attn = self.attn(rnn_output.transpose(0, 1).contiguous(),
                                            memory_bank.transpose(0, 1), memory_lengths=memory_lengths)
        attns["std"] = p_attn
        decoder_outputs = self.dropout(decoder_outputs)
        final_output = decoder_outputs[-1]
        state.update_state(decoder_final, final_output.unsqueeze(0), None)
        return decoder_outputs, state, attns

    def init_decoder_state(self, src, memory_bank, encoder_final):
        def _fix_enc_hidden(h):
            if self.bidirectional_encoder:
                h = torch.cat([h[0:h.size(0):2], h[1:h.size(0):2]], 2)
            return h
        return RNNDecoderState(self.hidden_size, tuple([_fix_enc_hidden(enc_hid) for enc_hid in encoder_final]))


class NMTModel(nn.Module):
    def __init__(self, encoder, decoder, multigpu=False):
        self.multigpu = multigpu
        super(NMTModel, self).__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, tgt, lengths=None, dec_state=None):
        tgt = tgt[:-1]  # exclude last target from inputs
        enc_final, memory_bank = self.encoder(src, lengths)
        enc_state = self.decoder.init_decoder_state(src, memory_bank, enc_final)
        decoder_outputs, dec_state, attns = self.decoder(tgt, memory_bank,
                                                         enc_state if dec_state is None else dec_state,
                                                         memory_lengths=lengths)
        if self.multigpu:
            dec_state = None
            attns = None
        return decoder_outputs, attns, dec_state


def make_model():
    encoder = ImageEncoder(num_layers=1, bidirectional=True, rnn_size=16, dropout=0.0)
    decoder = StdRNNDecoder(bidirectional_encoder=True, num_layers=1, hidden_size=32,
                            embeddings=Embeddings(40, 24))
    return NMTModel(encoder, decoder).eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 64), torch.randint(2, 40, (6, 2, 1)))


def other_inputs():
    return [(torch.rand(3, 3, 48, 80), torch.randint(2, 40, (9, 3, 1))),
            (torch.rand(1, 3, 24, 40), torch.randint(2, 40, (4, 1, 1)))]


def probe_inputs():
    return other_inputs()
