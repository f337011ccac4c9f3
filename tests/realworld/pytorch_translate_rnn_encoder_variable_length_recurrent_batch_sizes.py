"""pytorch/translate RNNEncoder (the non-cuDNN encoder of its RNN translation model): it packs the
embedded source with `packed_input, batch_sizes, _, _ = pack_padded_sequence(x, src_lengths)` and runs
each LSTMCell layer through `VariableLengthRecurrent`, a Python loop `for i in range(len(batch_sizes))`
that slices the packed data by `batch_sizes[i]` and grows/shrinks the hidden state, then unpacks with
`pad_packed_sequence(PackedSequence(packed_input, batch_sizes))`; the report says exporting the trained
model fails ("Cannot export individual pack_padded_sequence or pad_packed_sequence; these operations must
occur in pairs").

Source: https://github.com/pytorch/translate/issues/61
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, PackedSequence, pad_packed_sequence

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"src_tokens": {0: "batch", 1: "src_len"}, "src_lengths": {0: "batch"}}
BLIND = "domains-23"


def LSTMCell(input_dim, hidden_dim, **kwargs):
    m = nn.LSTMCell(input_dim, hidden_dim, **kwargs)
    for name, param in m.named_parameters():
        if "weight" in name or "bias" in name:
            param.data.uniform_(-0.1, 0.1)
    return m


class VariableLengthRecurrent(nn.Module):
    def __init__(self, rnn_cell, reverse=False):
        super().__init__()
        self.rnn_cell = rnn_cell
        self.reverse = reverse

    def forward(self, x, hidden, batch_size_per_step):
        self.batch_size_per_step = batch_size_per_step
        self.starting_batch_size = (
            batch_size_per_step[-1] if self.reverse else batch_size_per_step[0]
        )

        output = []
        input_offset = x.size(0) if self.reverse else 0

        hiddens = []
        flat_hidden = not isinstance(hidden, tuple)
        if flat_hidden:
            hidden = (hidden,)
        initial_hidden = hidden

        if self.reverse:
            hidden = tuple(h[: self.batch_size_per_step[-1]] for h in hidden)

        last_batch_size = self.starting_batch_size

        # Iterate over time steps with varying batch_size
        for i in range(len(self.batch_size_per_step)):
            if self.reverse:
                step_batch_size = self.batch_size_per_step[-1 - i]
                step_input = x[(input_offset - step_batch_size) : input_offset]
                input_offset -= step_batch_size
            else:
                step_batch_size = self.batch_size_per_step[i]
                step_input = x[input_offset : (input_offset + step_batch_size)]
                input_offset += step_batch_size

            new_pads = last_batch_size - step_batch_size
            if new_pads > 0:
                # First slice out the pieces for pads
                hiddens.insert(0, tuple(h[-new_pads:] for h in hidden))
                # Only pass the non-pad part of hidden states
                hidden = tuple(h[:-new_pads] for h in hidden)
            if new_pads < 0:
                hidden = tuple(
                    torch.cat((h, ih[last_batch_size:step_batch_size]), 0)
                    for h, ih in zip(hidden, initial_hidden)
                )

            last_batch_size = step_batch_size
            if flat_hidden:
                hidden = (self.rnn_cell(step_input, hidden[0]),)
            else:
                hidden = self.rnn_cell(step_input, hidden)
            output.append(hidden[0])

        if not self.reverse:
            hiddens.insert(0, hidden)
            hidden = tuple(torch.cat(h, 0) for h in zip(*hiddens))

        assert output[0].size(0) == self.starting_batch_size

        if flat_hidden:
            hidden = hidden[0]
        if self.reverse:
            output.reverse()

        output = torch.cat(output, 0)
        return hidden, output


class RNNLayer(nn.Module):
    def __init__(self, input_size, hidden_size, cell_type="lstm", is_bidirectional=False):
        super().__init__()
        self.is_bidirectional = is_bidirectional
        self.fwd_cell = LSTMCell(input_size, hidden_size)
        self.fwd_func = VariableLengthRecurrent(rnn_cell=self.fwd_cell, reverse=False)

    def forward(self, x, hidden, batch_size_per_step):
        fwd_hidden, fwd_output = self.fwd_func.forward(x, hidden, batch_size_per_step)
        return fwd_hidden, fwd_output


class RNNEncoder(nn.Module):
    def __init__(self, vocab_size=100, embed_dim=32, hidden_dim=32, num_layers=2, dropout_in=0.1,
                 dropout_out=0.1, residual_level=None):
        super().__init__()
        self.dropout_in = dropout_in
        self.dropout_out = dropout_out
        self.residual_level = residual_level
        self.hidden_dim = hidden_dim
        self.embed_tokens = nn.Embedding(vocab_size, embed_dim, padding_idx=1)
        self.word_dim = embed_dim
        self.cell_type = "lstm"
        self.layers = nn.ModuleList([])
        for layer in range(num_layers):
            self.layers.append(
                RNNLayer(self.word_dim if layer == 0 else hidden_dim, hidden_dim, self.cell_type, False)
            )
        self.num_layers = len(self.layers)

    def forward(self, src_tokens, src_lengths):
        bsz, seqlen = src_tokens.size()

        # embed tokens
        x = self.embed_tokens(src_tokens)
        x = F.dropout(x, p=self.dropout_in, training=self.training)

        # B x T x C -> T x B x C
        x = x.transpose(0, 1)

        # Generate packed seq to deal with varying source seq length
        packed_input, batch_sizes, _, _ = pack_padded_sequence(x, src_lengths)
        final_hiddens, final_cells = [], []
        next_hiddens = []
        for i, rnn_layer in enumerate(self.layers):
            current_hidden_size = self.hidden_dim

            if self.cell_type in ["lstm", "milstm", "layer_norm_lstm"]:
                prev_hidden = (
                    x.new(bsz, current_hidden_size).zero_(),
                    x.new(bsz, current_hidden_size).zero_(),
                )
            else:
                raise Exception(f"{self.cell_type} not implemented")

            hidden, current_output = rnn_layer.forward(packed_input, prev_hidden, batch_sizes)
            next_hiddens.append(hidden)
            prev_hidden = next_hiddens[-1]

            if self.dropout_out != 0:
                current_output = F.dropout(current_output, p=self.dropout_out, training=self.training)

            if self.residual_level is not None and i >= self.residual_level:
                packed_input = packed_input.clone() + current_output
            else:
                packed_input = current_output

        final_hiddens, final_cells = zip(*next_hiddens)
        # Reshape to [num_layer, batch_size, hidden_dim]
        final_hiddens = torch.cat(final_hiddens, dim=0).view(self.num_layers, *final_hiddens[0].size())
        final_cells = torch.cat(final_cells, dim=0).view(self.num_layers, *final_cells[0].size())

        #  [max_seqlen, batch_size, hidden_dim]
        unpacked_output, _ = pad_packed_sequence(PackedSequence(packed_input, batch_sizes))

        return unpacked_output, final_hiddens, final_cells


def make_model():
    return RNNEncoder().eval()


def _inputs(b, t):
    src_lengths, _ = torch.sort(torch.randint(1, t + 1, (b,)), descending=True)
    src_lengths[0] = t
    src_tokens = torch.randint(2, 100, (b, t))
    for j in range(b):
        src_tokens[j, src_lengths[j]:] = 1  # padding_idx
    return src_tokens, src_lengths


def example_inputs():
    return _inputs(3, 7)


def other_inputs():
    return [_inputs(5, 11), _inputs(2, 4)]


def probe_inputs():
    return other_inputs()
