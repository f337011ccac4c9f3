"""ArtSpeech (StyleTTS-style TTS) inference: the predicted phoneme durations are expanded into an alignment
matrix with `torch.zeros(input_lengths, int(pred_dur.sum().data))` and a Python loop writing
`pred_aln_trg[i, c_frame:c_frame + int(pred_dur[i].data)] = 1`; the export warns "Converting a tensor to a
Python integer might cause the trace to be incorrect", so the output length is frozen to the example's.

Source: https://github.com/Zhongxu-Wang/ArtSpeech/issues/1
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"texts": {1: "text_length"}}
BLIND = "domains-5"


class ArtSpeechTest(nn.Module):
    def __init__(self, n_symbols=40, d_hid=16):
        super().__init__()
        self.embedding = nn.Embedding(n_symbols, d_hid)
        self.text_encoder = nn.Conv1d(d_hid, d_hid, 5, padding=2)
        self.duration_lstm = nn.LSTM(d_hid, d_hid // 2, 1, batch_first=True, bidirectional=True)
        self.duration_proj = nn.Linear(d_hid, 1)
        self.decoder = nn.Conv1d(d_hid, 8, 3, padding=1)

    def forward(self, texts, input_lengths):
        T_en = self.text_encoder(self.embedding(texts).transpose(1, 2))  # [1, C, T]
        x, _ = self.duration_lstm(T_en.transpose(1, 2))
        duration = 2.0 * torch.sigmoid(self.duration_proj(x)).squeeze(-1) + 1.0
        pred_dur = torch.round(duration.squeeze()).clamp(min=1)
        pred_aln_trg = torch.zeros(input_lengths, int(pred_dur.sum().data))
        c_frame = 0
        for i in range(pred_aln_trg.size(0)):
            pred_aln_trg[i, c_frame:c_frame + int(pred_dur[i].data)] = 1
            c_frame += int(pred_dur[i].data)
        T_en = T_en @ pred_aln_trg.unsqueeze(0)
        Mel_ext = self.decoder(T_en)
        return Mel_ext


def make_model():
    return ArtSpeechTest().eval()


def example_inputs():
    return (torch.randint(0, 40, (1, 12)), torch.tensor([12]))


def other_inputs():
    return [
        (torch.randint(0, 40, (1, 20)), torch.tensor([20])),
        (torch.randint(0, 40, (1, 7)), torch.tensor([7])),
    ]


def probe_inputs():
    return other_inputs()
