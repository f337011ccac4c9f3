"""ForwardTacotron TTS (as Open Model Zoo converts it): the length regulator expands the encoder
states by the predicted durations through `build_index`, which moves the cumulative durations to
NumPy (`duration.cumsum(1).detach().cpu().numpy().astype('int')`), takes `int(tot_duration.max().item())`
as the output length and fills a NumPy index array in Python loops before `torch.gather`. OMZ's
forward_to_onnx.py cannot export the model through this step: it exports a duration-prediction model
and a regression model separately and runs `encoder.lr(x, durations)` between them in Python.

Source: https://github.com/openvinotoolkit/open_model_zoo/blob/master/models/public/forward-tacotron/forward_to_onnx.py
"""
import numpy as np
import torch
import torch.nn as nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {1: "length"}}
BLIND = "domains-51"


class LengthRegulator(nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x, dur):
        return self.expand(x, dur)

    @staticmethod
    def build_index(duration, x):
        duration[duration<0]=0
        tot_duration = duration.cumsum(1).detach().cpu().numpy().astype('int')
        max_duration = int(tot_duration.max().item())
        index = np.zeros([x.shape[0], max_duration, x.shape[2]], dtype='long')

        for i in range(tot_duration.shape[0]):
            pos = 0
            for j in range(tot_duration.shape[1]):
                pos1 = int(tot_duration[i, j])
                index[i, pos:pos1, :] = j
                pos = pos1
            index[i, pos:, :] = j
        return torch.LongTensor(index).to(duration.device)

    def expand(self, x, dur):
        idx = self.build_index(dur, x)
        y = torch.gather(x, 1, idx)
        return y


class DurationPredictor(nn.Module):
    def __init__(self, in_dims, conv_dims=32, rnn_dims=16):
        super().__init__()
        self.conv = nn.Conv1d(in_dims, conv_dims, 5, padding=2)
        self.rnn = nn.GRU(conv_dims, rnn_dims, batch_first=True, bidirectional=True)
        self.lin = nn.Linear(2 * rnn_dims, 1)

    def forward(self, x, alpha=1.0):
        x = torch.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        x, _ = self.rnn(x)
        x = self.lin(x)
        return x / alpha


class ForwardTacotron(nn.Module):
    def __init__(self, num_chars=40, embed_dims=32, prenet_dims=32, rnn_dim=32, n_mels=20):
        super().__init__()
        self.embedding = nn.Embedding(num_chars, embed_dims)
        self.dur_pred = DurationPredictor(embed_dims)
        self.prenet = nn.GRU(embed_dims, prenet_dims // 2, batch_first=True, bidirectional=True)
        self.lr = LengthRegulator()
        self.lstm = nn.LSTM(prenet_dims, rnn_dim, batch_first=True, bidirectional=True)
        self.lin = nn.Linear(2 * rnn_dim, n_mels)

    def forward(self, x, alpha=1.0):
        x = self.embedding(x)
        dur = self.dur_pred(x, alpha=alpha)
        dur = dur.squeeze(2)

        x, _ = self.prenet(x)
        x = self.lr(x, dur)

        x, _ = self.lstm(x)
        x = self.lin(x)
        return x.transpose(1, 2)


def make_model():
    model = ForwardTacotron().eval()
    with torch.no_grad():
        model.dur_pred.lin.bias.fill_(2.0)   # a trained predictor gives a few frames per symbol
    return model


def example_inputs():
    return (torch.randint(1, 40, (1, 12)),)


def other_inputs():
    return [(torch.randint(1, 40, (1, 25)),), (torch.randint(1, 40, (1, 7)),)]


def probe_inputs():
    return other_inputs()
