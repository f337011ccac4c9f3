"""FastSpeech2 (ming024) variance adaptor with the "simple LengthRegulator" proposed in the issue: the per-token
`.item()` loop is replaced by `torch.repeat_interleave(unbatch_x, unbatch_duration, axis=0)` on the predicted
durations, then `output.reshape(N, -1, D)`, the repo's `pad()` (Python `max` over the batch and a per-item
`F.pad` loop) and `torch.LongTensor(mel_len)`; the thread asks whether this makes the model traceable. The
mel length is a data-dependent size (durations come from the duration predictor).

Source: https://github.com/ming024/FastSpeech2/issues/55
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"texts": {1: "src_len"}}
BLIND = "domains-31"

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
        N, T, D = x.shape
        unbatch_x = x.reshape(-1, D)
        unbatch_duration = duration.flatten()
        output = torch.repeat_interleave(unbatch_x, unbatch_duration, axis=0)
        output = output.reshape(N, -1, D)
        mel_len = duration.sum(-1)

        if max_len is not None:
            output = pad(output, max_len)
        else:
            output = pad(output)

        return output, torch.LongTensor(mel_len).to(device)

    def forward(self, x, duration, max_len):
        output, mel_len = self.LR(x, duration, max_len)
        return output, mel_len


class VariancePredictor(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.conv = nn.Conv1d(d, d, 3, padding=1)
        self.linear = nn.Linear(d, 1)
        nn.init.constant_(self.linear.bias, 1.3)

    def forward(self, x):
        x = torch.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        return self.linear(x).squeeze(-1)


class FastSpeech2Inference(nn.Module):
    def __init__(self, n_symbols=40, d=32, n_mels=20):
        super().__init__()
        self.embed = nn.Embedding(n_symbols, d)
        self.duration_predictor = VariancePredictor(d)
        self.length_regulator = LengthRegulator()
        self.mel_linear = nn.Linear(d, n_mels)
        self.d_control = 1.0

    def forward(self, texts):
        d_control = self.d_control
        x = self.embed(texts)
        log_duration_prediction = self.duration_predictor(x)
        duration_rounded = torch.clamp(
            (torch.round(torch.exp(log_duration_prediction) - 1) * d_control), min=0
        ).long()
        x, mel_len = self.length_regulator(x, duration_rounded, None)
        return self.mel_linear(x), mel_len


def make_model():
    return FastSpeech2Inference().eval()


def example_inputs():
    return (torch.randint(0, 40, (1, 12)),)


def other_inputs():
    return [(torch.randint(0, 40, (1, 19)),), (torch.randint(0, 40, (1, 7)),)]


def probe_inputs():
    return other_inputs()
