"""NeMo RAD-TTS attribute predictor (ConvLSTMLinear, used for duration / f0 / energy prediction) before
NVIDIA/NeMo#4947 "RADTTS model changes to accommodate export with batch size > 1": `forward` branches on
`context.shape[0] > 1` to run a per-sample conv loop cut to `lens[b_ind]`, and `run_unsorted_inputs`
builds the inverse sort permutation as a Python list (`unsort_ids = [0] * lens.size(0)`,
`unsort_ids[ids_sorted[i]] = i`) before indexing `context[unsort_ids]`. The PR rewrote the module
(tensor unsort, no batch-size branch) so RAD-TTS exports with batch > 1. (LSTM spectral norm left out.)

Source: https://github.com/NVIDIA/NeMo/pull/4947
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"context": {0: "batch", 2: "text_len"}, "lens": {0: "batch"}}
BLIND = "domains-52"


class ConvNorm(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=1, stride=1, padding=None, dilation=1, bias=True,
                 w_init_gain='linear'):
        super(ConvNorm, self).__init__()
        if padding is None:
            assert kernel_size % 2 == 1
            padding = int(dilation * (kernel_size - 1) / 2)
        self.conv = torch.nn.Conv1d(in_channels, out_channels, kernel_size=kernel_size, stride=stride,
                                    padding=padding, dilation=dilation, bias=bias)
        torch.nn.init.xavier_uniform_(self.conv.weight, gain=torch.nn.init.calculate_gain(w_init_gain))

    def forward(self, signal, mask=None):
        return self.conv(signal)


class ConvLSTMLinear(nn.Module):
    def __init__(self, in_dim, out_dim, n_layers=2, n_channels=256, kernel_size=3, p_dropout=0.1):
        super(ConvLSTMLinear, self).__init__()
        self.out_dim = out_dim
        self.dropout = nn.Dropout(p=p_dropout)

        convolutions = []
        for i in range(n_layers):
            conv_layer = ConvNorm(in_dim if i == 0 else n_channels, n_channels, kernel_size=kernel_size, stride=1,
                                  padding=int((kernel_size - 1) / 2), dilation=1, w_init_gain='relu')
            conv_layer = torch.nn.utils.weight_norm(conv_layer.conv, name='weight')
            convolutions.append(conv_layer)

        self.convolutions = nn.ModuleList(convolutions)

        self.bilstm = nn.LSTM(n_channels, int(n_channels // 2), 1, batch_first=True, bidirectional=True)
        self.dense = nn.Linear(n_channels, out_dim)

    def run_padded_sequence(self, context, lens):
        context_embedded = []
        for b_ind in range(context.size()[0]):  # TODO: speed up
            curr_context = context[b_ind : b_ind + 1, :, : lens[b_ind]].clone()
            for conv in self.convolutions:
                curr_context = self.dropout(F.relu(conv(curr_context)))
            context_embedded.append(curr_context[0].transpose(0, 1))
        context = torch.nn.utils.rnn.pad_sequence(context_embedded, batch_first=True)
        return context

    def run_unsorted_inputs(self, fn, context, lens):
        lens_sorted, ids_sorted = torch.sort(lens, descending=True)
        unsort_ids = [0] * lens.size(0)
        for i in range(ids_sorted.shape[0]):
            unsort_ids[ids_sorted[i]] = i
        lens_sorted = lens_sorted.long().cpu()

        context = context[ids_sorted]
        context = nn.utils.rnn.pack_padded_sequence(context, lens_sorted, batch_first=True)
        context = fn(context)[0]
        context = nn.utils.rnn.pad_packed_sequence(context, batch_first=True)[0]

        # map back to original indices
        context = context[unsort_ids]
        return context

    def forward(self, context, lens):
        if context.shape[0] > 1:
            context = self.run_padded_sequence(context, lens)
        else:
            for conv in self.convolutions:
                context = self.dropout(F.relu(conv(context)))
            context = context.transpose(1, 2)

        self.bilstm.flatten_parameters()
        if lens is not None:
            context = self.run_unsorted_inputs(self.bilstm, context, lens)
        else:
            context = self.bilstm(context)[0]

        x_hat = self.dense(context).permute(0, 2, 1)

        return x_hat


def make_model():
    return ConvLSTMLinear(in_dim=48, out_dim=1, n_channels=32).eval()


def _inputs(b, t, lens):
    return (torch.randn(b, 48, t), torch.tensor(lens, dtype=torch.int64))


def example_inputs():
    return _inputs(2, 15, [11, 15])


def other_inputs():
    return [_inputs(3, 22, [22, 9, 17]), _inputs(1, 8, [8])]


def probe_inputs():
    return other_inputs()
