"""FastSpeech2 LengthRegulator: each phoneme vector is repeated `predicted[i].item()` times in a Python loop, the
frames are padded to the longest item and `mel_len` is built with `torch.LongTensor(mel_len)`; the reporter exports
with dynamic axes but the ONNX output length stays the export-time one.

Source: https://github.com/ming024/FastSpeech2/issues/139
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 1: "text"}, "duration": {0: "batch", 1: "text"}}
BLIND = "domains-3"

device = torch.device("cpu")


def pad(input_ele, mel_max_length=None):
    if mel_max_length:
        max_len = mel_max_length
    else:
        max_len = max([input_ele[i].size(0) for i in range(len(input_ele))])

    out_list = list()
    for i, batch in enumerate(input_ele):
        if len(batch.shape) == 1:
            one_batch_padded = F.pad(batch, (0, max_len - batch.size(0)), "constant", 0.0)
        elif len(batch.shape) == 2:
            one_batch_padded = F.pad(batch, (0, 0, 0, max_len - batch.size(0)), "constant", 0.0)
        out_list.append(one_batch_padded)
    out_padded = torch.stack(out_list)
    return out_padded


class LengthRegulator(nn.Module):
    """ Length Regulator """

    def __init__(self):
        super(LengthRegulator, self).__init__()

    def LR(self, x, duration, max_len):
        output = list()
        mel_len = list()
        for batch, expand_target in zip(x, duration):
            expanded = self.expand(batch, expand_target)
            output.append(expanded)
            mel_len.append(expanded.shape[0])

        if max_len is not None:
            output = pad(output, max_len)
        else:
            output = pad(output)

        return output, torch.LongTensor(mel_len).to(device)

    def expand(self, batch, predicted):
        out = list()

        for i, vec in enumerate(batch):
            expand_size = predicted[i].item()
            out.append(vec.expand(max(int(expand_size), 0), -1))
        out = torch.cat(out, 0)

        return out

    def forward(self, x, duration, max_len=None):
        output, mel_len = self.LR(x, duration, max_len)
        return output, mel_len


def make_model():
    return LengthRegulator()


def _inputs(b, t):
    return (torch.randn(b, t, 8), torch.randint(0, 4, (b, t)).float())


def example_inputs():
    return _inputs(2, 6)


def other_inputs():
    return [_inputs(3, 9), _inputs(1, 4)]


def probe_inputs():
    return other_inputs()
