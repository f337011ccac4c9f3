"""SuPar's Biaffine dependency parser (biaffine-dep-en): the BiLSTM is fed with
`pack_padded_sequence(embed, mask.sum(1), True, False)` and SuPar's own LSTM reads the PackedSequence by hand
(`sequence.batch_sizes.tolist()`, `torch.split(x, batch_sizes)`, a Python loop over the time steps), then
`pad_packed_sequence(..., total_length=seq_len)`; converting the trained parser to ONNX fails ("onnx does not
support exporting PackedSequence object").
(feat='tag' embedding instead of CharLSTM; dropouts omitted as they are identity in eval.)

Source: https://github.com/yzhangcs/parser/issues/84
"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"words": {0: "batch", 1: "seq_len"}, "feats": {0: "batch", 1: "seq_len"}}
BLIND = "domains-29"


class LSTM(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=1, bidirectional=False, dropout=0):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bidirectional = bidirectional
        self.dropout = dropout
        self.num_directions = 1 + self.bidirectional
        self.f_cells = nn.ModuleList()
        if bidirectional:
            self.b_cells = nn.ModuleList()
        for _ in range(self.num_layers):
            self.f_cells.append(nn.LSTMCell(input_size=input_size, hidden_size=hidden_size))
            if bidirectional:
                self.b_cells.append(nn.LSTMCell(input_size=input_size, hidden_size=hidden_size))
            input_size = hidden_size * self.num_directions

    def layer_forward(self, x, hx, cell, batch_sizes, reverse=False):
        hx_0 = hx_i = hx
        hx_n, output = [], []
        steps = reversed(range(len(x))) if reverse else range(len(x))
        for t in steps:
            last_batch_size, batch_size = len(hx_i[0]), batch_sizes[t]
            if last_batch_size < batch_size:
                hx_i = [torch.cat((h, ih[last_batch_size:batch_size])) for h, ih in zip(hx_i, hx_0)]
            else:
                hx_n.append([h[batch_size:] for h in hx_i])
                hx_i = [h[:batch_size] for h in hx_i]
            hx_i = [h for h in cell(x[t], hx_i)]
            output.append(hx_i[0])
        if reverse:
            hx_n = hx_i
            output.reverse()
        else:
            hx_n.append(hx_i)
            hx_n = [torch.cat(h) for h in zip(*reversed(hx_n))]
        output = torch.cat(output)
        return output, hx_n

    def forward(self, sequence, hx=None):
        x, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
        batch_size = batch_sizes[0]
        h_n, c_n = [], []
        ih = x.new_zeros(self.num_layers * self.num_directions, batch_size, self.hidden_size)
        h, c = ih, ih
        h = h.view(self.num_layers, self.num_directions, batch_size, self.hidden_size)
        c = c.view(self.num_layers, self.num_directions, batch_size, self.hidden_size)
        for i in range(self.num_layers):
            x = torch.split(x, batch_sizes)
            x_i, (h_i, c_i) = self.layer_forward(x=x, hx=(h[i, 0], c[i, 0]), cell=self.f_cells[i],
                                                 batch_sizes=batch_sizes)
            if self.bidirectional:
                x_b, (h_b, c_b) = self.layer_forward(x=x, hx=(h[i, 1], c[i, 1]), cell=self.b_cells[i],
                                                     batch_sizes=batch_sizes, reverse=True)
                x_i = torch.cat((x_i, x_b), -1)
                h_i = torch.stack((h_i, h_b))
                c_i = torch.stack((c_i, c_b))
            x = x_i
            h_n.append(h_i)
            c_n.append(h_i)
        x = PackedSequence(x, sequence.batch_sizes, sequence.sorted_indices, sequence.unsorted_indices)
        hx = torch.cat(h_n, 0), torch.cat(c_n, 0)
        return x, hx


class MLP(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)
        self.activation = nn.LeakyReLU(negative_slope=0.1)

    def forward(self, x):
        return self.activation(self.linear(x))


class Biaffine(nn.Module):
    def __init__(self, n_in, n_out=1, bias_x=True, bias_y=True):
        super().__init__()
        self.n_out = n_out
        self.bias_x = bias_x
        self.bias_y = bias_y
        self.weight = nn.Parameter(torch.randn(n_out, n_in + bias_x, n_in + bias_y) * 0.1)

    def forward(self, x, y):
        if self.bias_x:
            x = torch.cat((x, torch.ones_like(x[..., :1])), -1)
        if self.bias_y:
            y = torch.cat((y, torch.ones_like(y[..., :1])), -1)
        s = torch.einsum('bxi,oij,byj->boxy', x, self.weight, y)
        s = s.squeeze(1)
        return s


class BiaffineDependencyModel(nn.Module):
    def __init__(self, n_words=100, n_feats=20, n_rels=8, n_embed=32, n_feat_embed=16,
                 n_lstm_hidden=24, n_lstm_layers=2, n_mlp_arc=40, n_mlp_rel=12, pad_index=0, unk_index=1):
        super().__init__()
        self.word_embed = nn.Embedding(num_embeddings=n_words, embedding_dim=n_embed)
        self.feat_embed = nn.Embedding(num_embeddings=n_feats, embedding_dim=n_feat_embed)
        self.lstm = LSTM(input_size=n_embed + n_feat_embed, hidden_size=n_lstm_hidden,
                         num_layers=n_lstm_layers, bidirectional=True)
        self.mlp_arc_d = MLP(n_in=n_lstm_hidden * 2, n_out=n_mlp_arc)
        self.mlp_arc_h = MLP(n_in=n_lstm_hidden * 2, n_out=n_mlp_arc)
        self.mlp_rel_d = MLP(n_in=n_lstm_hidden * 2, n_out=n_mlp_rel)
        self.mlp_rel_h = MLP(n_in=n_lstm_hidden * 2, n_out=n_mlp_rel)
        self.arc_attn = Biaffine(n_in=n_mlp_arc, bias_x=True, bias_y=False)
        self.rel_attn = Biaffine(n_in=n_mlp_rel, n_out=n_rels, bias_x=True, bias_y=True)
        self.pad_index = pad_index
        self.unk_index = unk_index

    def forward(self, words, feats):
        batch_size, seq_len = words.shape
        # get the mask and lengths of given batch
        mask = words.ne(self.pad_index)
        ext_words = words
        word_embed = self.word_embed(ext_words)
        feat_embed = self.feat_embed(feats)
        embed = torch.cat((word_embed, feat_embed), -1)

        x = pack_padded_sequence(embed, mask.sum(1), True, False)
        x, _ = self.lstm(x)
        x, _ = pad_packed_sequence(x, True, total_length=seq_len)

        arc_d = self.mlp_arc_d(x)
        arc_h = self.mlp_arc_h(x)
        rel_d = self.mlp_rel_d(x)
        rel_h = self.mlp_rel_h(x)

        s_arc = self.arc_attn(arc_d, arc_h)
        s_rel = self.rel_attn(rel_d, rel_h).permute(0, 2, 3, 1)
        s_arc.masked_fill_(~mask.unsqueeze(1), float('-inf'))
        return s_arc, s_rel


def _batch(lengths, seq_len):
    words = torch.randint(2, 100, (len(lengths), seq_len))
    feats = torch.randint(1, 20, (len(lengths), seq_len))
    for b, n in enumerate(lengths):
        words[b, n:] = 0
        feats[b, n:] = 0
    return words, feats


def make_model():
    return BiaffineDependencyModel().eval()


def example_inputs():
    return _batch([7, 10, 4], 10)


def other_inputs():
    return [_batch([13, 5], 13), _batch([3, 6, 2, 6], 6)]


def probe_inputs():
    return other_inputs()
