"""Tacotron2's text encoder: the lengths handed to pack_padded_sequence as a NumPy array
(`input_lengths.cpu().numpy()`, "pytorch tensor are not reversible, hence the conversion")."""
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(6, 6, 3, padding=1)
        self.lstm = nn.LSTM(6, 4, batch_first=True, bidirectional=True)

    def forward(self, x, input_lengths):
        x = torch.relu(self.conv(x)).transpose(1, 2)
        input_lengths = input_lengths.cpu().numpy()
        x = nn.utils.rnn.pack_padded_sequence(x, input_lengths, batch_first=True)
        outputs, _ = self.lstm(x)
        outputs, _ = nn.utils.rnn.pad_packed_sequence(outputs, batch_first=True)
        return outputs


def make_model():
    torch.manual_seed(0)
    return Encoder().eval()


def _batch(lengths):
    return torch.randn(len(lengths), 6, max(lengths)), torch.tensor(lengths)  # sorted, longest first


def example_inputs():
    return _batch([7, 5, 2])


def probe_inputs():
    return [_batch([9, 9, 4, 1]), _batch([5, 3])]


DYNAMIC = {"x": {0: "batch", 2: "frames"}, "input_lengths": {0: "batch"}}
