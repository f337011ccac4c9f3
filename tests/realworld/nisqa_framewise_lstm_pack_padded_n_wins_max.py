"""NISQA speech-quality model (framewise net over Mel-spec segments, LSTM time dependency, masked
average pooling): `Framewise` and `LSTM` pack the segments with `pack_padded_sequence(x, n_wins.cpu(),
enforce_sorted=False)`, run the framewise net on `x_packed.data`, and unpack with
`pad_packed_sequence(..., total_length=n_wins.max())`; the report says `torch.onnx.export(model,
(x, n_wins), ...)` exits without any error, whatever the opset.

Source: https://github.com/gabrielmittag/NISQA/issues/23
"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_packed_sequence
from torch.nn.utils.rnn import pack_padded_sequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "segments"}, "n_wins": {0: "batch"}}
BLIND = "domains-23"


class SkipCNN(nn.Module):
    def __init__(self, cnn_seg_length, ms_n_mels, fc_out_h):
        super().__init__()
        self.name = 'SkipCNN'
        self.cnn_seg_length = cnn_seg_length
        self.ms_n_mels = ms_n_mels
        self.fan_in = cnn_seg_length*ms_n_mels
        self.bn = nn.BatchNorm2d( 1 )
        self.linear = nn.Linear(self.fan_in, fc_out_h)
        self.fan_out = fc_out_h

    def forward(self, x):
        x = self.bn(x)
        x = x.view(-1, self.fan_in)
        x = self.linear(x)
        return x


class Framewise(nn.Module):
    def __init__(self, ms_seg_length=15, ms_n_mels=48, fc_out_h=64):
        super().__init__()
        self.model = SkipCNN(ms_seg_length, ms_n_mels, fc_out_h)

    def forward(self, x, n_wins):
        (bs, length, channels, height, width) = x.shape
        x_packed = pack_padded_sequence(
                x,
                n_wins.cpu(),
                batch_first=True,
                enforce_sorted=False
                )
        x = self.model(x_packed.data)
        x = x_packed._replace(data=x)
        x, _ = pad_packed_sequence(
            x,
            batch_first=True,
            padding_value=0.0,
            total_length=n_wins.max())
        return x


class LSTM(nn.Module):
    def __init__(self, input_size, lstm_h=32, num_layers=1, dropout=0.1, bidirectional=True):
        super().__init__()
        self.lstm = nn.LSTM(
                input_size = input_size,
                hidden_size = lstm_h,
                num_layers = num_layers,
                dropout = dropout,
                batch_first = True,
                bidirectional = bidirectional
                )
        num_directions = 2 if bidirectional else 1
        self.fan_out = num_directions*lstm_h

    def forward(self, x, n_wins):
        x = pack_padded_sequence(
                x,
                n_wins.cpu(),
                batch_first=True,
                enforce_sorted=False
                )
        self.lstm.flatten_parameters()
        x = self.lstm(x)[0]
        x, _ = pad_packed_sequence(
            x,
            batch_first=True,
            padding_value=0.0,
            total_length=n_wins.max())
        return x, n_wins


class PoolAvg(torch.nn.Module):
    def __init__(self, d_input, output_size):
        super().__init__()
        self.linear = nn.Linear(d_input, output_size)

    def forward(self, x, n_wins):
        mask = torch.arange(x.shape[1])[None, :] < n_wins[:, None].to('cpu').to(torch.long)
        mask = ~mask.unsqueeze(2).to(x.device)
        x.masked_fill_(mask, 0)
        x = torch.div(x.sum(1), n_wins.unsqueeze(1))
        x = self.linear(x)
        return x


class NISQA(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = Framewise()
        self.time_dependency = LSTM(self.cnn.model.fan_out)
        self.pool = PoolAvg(self.time_dependency.fan_out, output_size=1)

    def forward(self, x, n_wins):
        x = self.cnn(x, n_wins)
        x, n_wins = self.time_dependency(x, n_wins)
        x = self.pool(x, n_wins)
        return x


def make_model():
    return NISQA().eval()


def _inputs(bs, length):
    x = torch.randn(bs, length, 1, 48, 15)
    n_wins = torch.randint(max(1, length // 2), length + 1, (bs,))
    return x, n_wins


def example_inputs():
    return _inputs(2, 20)


def other_inputs():
    return [_inputs(3, 31), _inputs(1, 9)]


def probe_inputs():
    return other_inputs()
