"""ESPnet VITS generator inference: the text mask and the frame mask come from ESPnet's `make_non_pad_mask`, which
does `lengths.long().tolist()`, `maxlen = int(max(lengths))` and `seq_range_expand.new(lengths)`; the frame lengths
are predicted from the durations, so exporting the TTS generator to ONNX fails / freezes the output length until the
mask helper is replaced (the espnet_onnx TTS PR notes "just replacing the make_pad_mask function was enough").

Source: https://github.com/espnet/espnet_onnx/pull/21
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"text": {1: "text_length"}}
BLIND = "domains-30"


def make_pad_mask(lengths, xs=None, length_dim=-1, maxlen=None):
    if length_dim == 0:
        raise ValueError("length_dim cannot be 0: {}".format(length_dim))

    if not isinstance(lengths, list):
        lengths = lengths.long().tolist()

    bs = int(len(lengths))
    if maxlen is None:
        if xs is None:
            maxlen = int(max(lengths))
        else:
            maxlen = xs.size(length_dim)
    else:
        assert xs is None
        assert maxlen >= int(max(lengths))

    seq_range = torch.arange(0, maxlen, dtype=torch.int64)
    seq_range_expand = seq_range.unsqueeze(0).expand(bs, maxlen)
    seq_length_expand = seq_range_expand.new(lengths).unsqueeze(-1)
    mask = seq_range_expand >= seq_length_expand
    return mask


def make_non_pad_mask(lengths, xs=None, length_dim=-1, maxlen=None):
    return ~make_pad_mask(lengths, xs, length_dim, maxlen)


class TextEncoder(nn.Module):
    def __init__(self, vocabs=40, attention_dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocabs, attention_dim)
        self.conv = nn.Conv1d(attention_dim, attention_dim, 3, padding=1)
        self.proj = nn.Conv1d(attention_dim, attention_dim * 2, 1)

    def forward(self, x, x_lengths):
        x = self.emb(x).transpose(1, 2)
        x_mask = make_non_pad_mask(x_lengths).unsqueeze(1).to(dtype=x.dtype, device=x.device)
        x = torch.relu(self.conv(x * x_mask)) * x_mask
        stats = self.proj(x) * x_mask
        m, logs = stats.split(stats.size(1) // 2, dim=1)
        return x, m, logs, x_mask


class VITSGenerator(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.text_encoder = TextEncoder(attention_dim=hidden)
        self.duration_predictor = nn.Conv1d(hidden, 1, 3, padding=1)
        self.decoder = nn.Conv1d(hidden, 1, 3, padding=1)

    @staticmethod
    def _generate_path(dur, mask):
        b, _, t_y, t_x = mask.shape
        cum_dur = torch.cumsum(dur, -1)
        cum_dur_flat = cum_dur.view(b * t_x)
        path = torch.arange(t_y, dtype=dur.dtype, device=dur.device)
        path = path.unsqueeze(0) < cum_dur_flat.unsqueeze(1)
        path = path.view(b, t_x, t_y).to(dtype=mask.dtype)
        path = path - F.pad(path, [0, 0, 1, 0, 0, 0])[:, :-1]
        return path.unsqueeze(1).transpose(2, 3) * mask

    def forward(self, text, text_lengths, alpha=1.0):
        x, m_p, logs_p, x_mask = self.text_encoder(text, text_lengths)
        logw = self.duration_predictor(x * x_mask)
        w = torch.exp(torch.tanh(logw)) * x_mask * alpha
        dur = torch.ceil(w)
        y_lengths = torch.clamp_min(torch.sum(dur, [1, 2]), 1).long()
        y_mask = make_non_pad_mask(y_lengths).unsqueeze(1).to(text.device)
        attn_mask = torch.unsqueeze(x_mask, 2) * torch.unsqueeze(y_mask, -1)
        attn = self._generate_path(dur, attn_mask)
        m_p = torch.matmul(attn.squeeze(1), m_p.transpose(1, 2)).transpose(1, 2)
        wav = self.decoder(m_p * y_mask)
        return wav, dur.squeeze(1)


def make_model():
    return VITSGenerator().eval()


def example_inputs():
    return (torch.randint(0, 40, (1, 12)), torch.tensor([12]))


def other_inputs():
    return [
        (torch.randint(0, 40, (1, 20)), torch.tensor([20])),
        (torch.randint(0, 40, (1, 7)), torch.tensor([7])),
    ]


def probe_inputs():
    return other_inputs()
