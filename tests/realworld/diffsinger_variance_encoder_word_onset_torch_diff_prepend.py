"""DiffSinger variance model (FastSpeech2Variance, duration-predicting mode): the word-level encoder input marks
word onsets with `torch.diff(ph2word, dim=1, prepend=ph2word.new_zeros(b, 1)) > 0` and gathers the word durations
onto phonemes. The commit that finished variance-model ONNX export overrode this path in the deployment module,
rewriting the onset as `ph2word > F.pad(ph2word, [1, -1])`; the TorchScript-based exporter has no symbolic for
aten::diff ("Exporting the operator 'aten::diff' to ONNX ... is not supported").

Source: https://github.com/openvpi/DiffSinger/commit/c7303ef30cdf7fe60b98dbc49dd26a947a2a6c41
"""
import torch
import torch.nn as nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "txt_tokens": {0: "batch", 1: "t_ph"},
    "midi": {0: "batch", 1: "t_ph"},
    "ph2word": {0: "batch", 1: "t_ph"},
    "word_dur": {0: "batch", 1: "t_w"},
}
BLIND = "operators-48"

PAD_INDEX = 0


class DurationPredictor(nn.Module):
    """Trimmed conv duration predictor."""

    def __init__(self, in_dims, n_chans=32, kernel_size=3):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(in_dims, n_chans, kernel_size, padding=kernel_size // 2), nn.ReLU(),
            nn.Conv1d(n_chans, n_chans, kernel_size, padding=kernel_size // 2), nn.ReLU(),
        )
        self.linear = nn.Linear(n_chans, 1)

    def forward(self, xs, x_masks=None, infer=True):
        xs = self.conv(xs.transpose(1, -1)).transpose(1, -1)
        if x_masks is not None:
            xs = xs * (1 - x_masks.float())[:, :, None]
        xs = self.linear(xs).squeeze(-1)
        return F.softplus(xs)


class FastSpeech2Encoder(nn.Module):
    """Stand-in for the FFT encoder: token embedding + extra embedding, one conv FFN block."""

    def __init__(self, embed_tokens, hidden_size):
        super().__init__()
        self.embed_tokens = embed_tokens
        self.ffn = nn.Sequential(nn.Conv1d(hidden_size, hidden_size, 3, padding=1), nn.GELU(),
                                 nn.Conv1d(hidden_size, hidden_size, 1))
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, txt_tokens, extra_embed):
        x = self.embed_tokens(txt_tokens) + extra_embed
        x = self.norm(x + self.ffn(x.transpose(1, 2)).transpose(1, 2))
        return x * (txt_tokens != PAD_INDEX).float()[:, :, None]


class FastSpeech2Variance(nn.Module):
    def __init__(self, vocab_size=40, hidden_size=32):
        super().__init__()
        self.predict_dur = True
        self.txt_embed = nn.Embedding(vocab_size, hidden_size, PAD_INDEX)
        self.onset_embed = nn.Embedding(2, hidden_size)
        self.word_dur_embed = nn.Linear(1, hidden_size)
        self.encoder = FastSpeech2Encoder(self.txt_embed, hidden_size=hidden_size)
        self.midi_embed = nn.Embedding(128, hidden_size)
        self.dur_predictor = DurationPredictor(in_dims=hidden_size)

    def forward(self, txt_tokens, midi, ph2word, word_dur, infer=True):
        """
        :param txt_tokens: [B, T_ph]
        :param midi: [B, T_ph]
        :param ph2word: [B, T_ph]
        :param word_dur: [B, T_w]
        :return: encoder_out, ph_dur_pred
        """
        b = txt_tokens.shape[0]
        onset = torch.diff(ph2word, dim=1, prepend=ph2word.new_zeros(b, 1)) > 0
        onset_embed = self.onset_embed(onset.long())  # [B, T_ph, H]

        word_dur = torch.gather(F.pad(word_dur, [1, 0], value=0), 1, ph2word)  # [B, T_w] => [B, T_ph]
        word_dur_embed = self.word_dur_embed(word_dur.float()[:, :, None])

        encoder_out = self.encoder(txt_tokens, onset_embed + word_dur_embed)

        midi_embed = self.midi_embed(midi)  # => [B, T_ph, H]
        dur_cond = encoder_out + midi_embed
        ph_dur_pred = self.dur_predictor(dur_cond, x_masks=txt_tokens == PAD_INDEX, infer=infer)
        return encoder_out, ph_dur_pred


def make_model():
    return FastSpeech2Variance().eval()


def _inputs(b, t_w, gen):
    # each word has 1..3 phonemes; ph2word counts words from 1
    counts = torch.randint(1, 4, (t_w,), generator=gen)
    ph2word = torch.repeat_interleave(torch.arange(1, t_w + 1), counts)
    t_ph = ph2word.numel()
    ph2word = ph2word[None].repeat(b, 1)
    txt_tokens = torch.randint(1, 40, (b, t_ph), generator=gen)
    midi = torch.randint(40, 80, (b, t_ph), generator=gen)
    word_dur = torch.randint(5, 60, (b, t_w), generator=gen)
    return (txt_tokens, midi, ph2word, word_dur)


def example_inputs():
    return _inputs(2, 7, torch.Generator().manual_seed(0))


def other_inputs():
    return [_inputs(3, 11, torch.Generator().manual_seed(1)), _inputs(1, 4, torch.Generator().manual_seed(2))]


def probe_inputs():
    return other_inputs()
