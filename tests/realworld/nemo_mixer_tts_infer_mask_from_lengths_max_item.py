"""NeMo Mixer-TTS inference front half (text encoder + duration and pitch predictors) before
NVIDIA/NeMo#3082 "add export methods for mixer-tts": `infer(text, text_len)` builds the text mask with the
TTS helper `get_mask_from_lengths(lengths, max_len=None)`, which does
`max_len = torch.max(lengths).item()` and `torch.arange(0, max_len)`. The PR made Mixer-TTS exportable by
changing the helper to `max_len = lengths.max()` (a tensor) and building the mask from the tokens in
`forward_for_export`. (Decoder / length regulation left out.)

Source: https://github.com/NVIDIA/NeMo/pull/3082
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"text": {0: "batch", 1: "text_len"}, "text_len": {0: "batch"}}
BLIND = "domains-52"


def get_mask_from_lengths(lengths, max_len=None):
    if not max_len:
        max_len = torch.max(lengths).item()
    ids = torch.arange(0, max_len, device=lengths.device, dtype=torch.long)
    mask = (ids < lengths.unsqueeze(1)).bool()
    return mask


def get_same_padding(kernel_size, stride, dilation) -> int:
    if stride > 1 and dilation > 1:
        raise ValueError("Only stride OR dilation may be greater than 1")
    return (dilation * (kernel_size - 1)) // 2


class SameLensMaskedConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, dilation, padding, groups):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size=kernel_size, stride=stride,
                              dilation=dilation, padding=padding, groups=groups)

    def forward(self, x, mask):
        x = self.conv(x.transpose(1, 2)).transpose(1, 2) * mask
        return x, mask


class SameLensMaskedLinear(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.linear = nn.Linear(in_channels, out_channels)

    def forward(self, x, mask):
        x = self.linear(x) * mask
        return x, mask


class Mix(nn.Module):
    def __init__(self, first_mix_layer, second_mix_layer, dropout):
        super().__init__()
        self.first_mix_layer = first_mix_layer
        self.act = nn.GELU()
        self.drop_1 = nn.Dropout(dropout)
        self.second_mix_layer = second_mix_layer
        self.drop_2 = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        x, mask = self.first_mix_layer(x, mask)
        x = self.act(x)
        x = self.drop_1(x)
        x, mask = self.second_mix_layer(x, mask)
        x = self.drop_2(x)
        return x, mask


class PreNormResidual(nn.Module):
    def __init__(self, fn, feature_dim):
        super().__init__()
        self.fn = fn
        self.norm = nn.LayerNorm(feature_dim)

    def forward(self, x, mask):
        new_x, mask = self.fn(self.norm(x), mask)
        x = x + new_x
        return x, mask


class MixerTTSBlock(nn.Module):
    def __init__(self, in_feat, expansion_factor, kernel_size, dropout):
        super().__init__()
        padding = get_same_padding(kernel_size, stride=1, dilation=1)
        self.time_mix = PreNormResidual(
            fn=Mix(
                first_mix_layer=SameLensMaskedConv1d(in_feat, in_feat, kernel_size, 1, 1, padding, in_feat),
                second_mix_layer=SameLensMaskedConv1d(in_feat, in_feat, kernel_size, 1, 1, padding, in_feat),
                dropout=dropout,
            ),
            feature_dim=in_feat,
        )
        self.channel_mix = PreNormResidual(
            fn=Mix(
                first_mix_layer=SameLensMaskedLinear(in_feat, expansion_factor * in_feat),
                second_mix_layer=SameLensMaskedLinear(expansion_factor * in_feat, in_feat),
                dropout=dropout,
            ),
            feature_dim=in_feat,
        )

    def forward(self, x, mask):
        x, mask = self.time_mix(x, mask)
        x, mask = self.channel_mix(x, mask)
        return x, mask


class MixerTTSModule(nn.Module):
    def __init__(self, num_tokens, feature_dim, num_layers, kernel_sizes, padding_idx=0, expansion_factor=4,
                 dropout=0.0):
        super().__init__()
        if len(kernel_sizes) != num_layers:
            raise ValueError
        self.d_model = feature_dim
        self.to_embed = (
            nn.Embedding(num_tokens, feature_dim, padding_idx=padding_idx) if num_tokens != -1 else nn.Identity()
        )
        self.mixer_blocks = nn.Sequential(
            *[MixerTTSBlock(feature_dim, expansion_factor, kernel_size, dropout) for kernel_size in kernel_sizes],
        )
        self.norm = nn.LayerNorm(feature_dim)

    def forward(self, x, mask, conditioning=0):
        x = self.to_embed(x)
        x = x + conditioning

        x = x * mask
        for block in self.mixer_blocks:
            x, lens = block(x, mask)

        x = self.norm(x)

        return x, mask


class ConvReLUNorm(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=1, dropout=0.0):
        super(ConvReLUNorm, self).__init__()
        self.conv = torch.nn.Conv1d(in_channels, out_channels, kernel_size=kernel_size, padding=(kernel_size // 2))
        self.norm = torch.nn.LayerNorm(out_channels)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, signal):
        out = torch.nn.functional.relu(self.conv(signal))
        out = self.norm(out.transpose(1, 2)).transpose(1, 2)
        return self.dropout(out)


class TemporalPredictor(nn.Module):
    """Predicts a single float per each temporal location"""

    def __init__(self, input_size, filter_size, kernel_size, dropout, n_layers=2):
        super(TemporalPredictor, self).__init__()
        self.layers = torch.nn.Sequential(
            *[ConvReLUNorm(input_size if i == 0 else filter_size, filter_size, kernel_size=kernel_size,
                           dropout=dropout) for i in range(n_layers)]
        )
        self.fc = torch.nn.Linear(filter_size, 1, bias=True)

    def forward(self, enc, enc_mask):
        out = enc * enc_mask
        out = self.layers(out.transpose(1, 2)).transpose(1, 2)
        out = self.fc(out) * enc_mask
        return out.squeeze(-1)


class MixerTTSModel(nn.Module):
    def __init__(self, num_tokens=48, d_model=64):
        super().__init__()
        self.encoder = MixerTTSModule(num_tokens, d_model, num_layers=2, kernel_sizes=[11, 13], padding_idx=0)
        self.duration_predictor = TemporalPredictor(d_model, 64, 3, 0.1)
        self.pitch_predictor = TemporalPredictor(d_model, 64, 3, 0.1)
        self.pitch_emb = nn.Conv1d(1, d_model, kernel_size=3, padding=1)

    def forward(self, text, text_len):
        text_mask = get_mask_from_lengths(text_len).unsqueeze(2)

        enc_out, enc_mask = self.encoder(text, text_mask)

        # duration predictor
        log_durs_predicted = self.duration_predictor(enc_out, enc_mask)
        durs_predicted = torch.clamp(log_durs_predicted.exp() - 1, 0)

        pitch_predicted = self.pitch_predictor(enc_out, enc_mask)
        pitch_emb = self.pitch_emb(pitch_predicted.unsqueeze(1))

        # add pitch emb
        enc_out = enc_out + pitch_emb.transpose(1, 2)
        return enc_out, durs_predicted


def make_model():
    return MixerTTSModel().eval()


def _inputs(b, t, lens):
    text = torch.randint(1, 48, (b, t))
    for i, n in enumerate(lens):
        text[i, n:] = 0
    return (text, torch.tensor(lens, dtype=torch.int64))


def example_inputs():
    return _inputs(2, 21, [21, 15])


def other_inputs():
    return [_inputs(3, 34, [30, 34, 12]), _inputs(1, 9, [9])]


def probe_inputs():
    return other_inputs()
