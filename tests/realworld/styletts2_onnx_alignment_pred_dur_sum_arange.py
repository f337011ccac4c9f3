"""StyleTTS2 (styletts2-inference) single-graph TTS export: the predicted durations `pred_dur` are turned into a
token-to-frame alignment by `onnx_alignment`, whose frame count is `seq_length = pred_dur.sum()` and
`torch.arange(seq_length).expand(max_length, -1)` with `max_length = input_lengths[0]`; the report traces the
failure to this tensor whose shape depends on the predicted data (the exported graph breaks at build time with a
negative dimension).

Source: https://github.com/patriotyk/styletts2-inference/issues/4
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"tokens": {0: "seq_length"}}
BLIND = "domains-31"


class StyleTTS2(nn.Module):
    def __init__(self, n_symbols=32, hidden=16, style_dim=8, max_dur=6):
        super().__init__()
        self.device = torch.device("cpu")
        self.embedding = nn.Embedding(n_symbols, hidden)
        self.text_encoder = nn.Conv1d(hidden, hidden, 3, padding=1)
        self.style_proj = nn.Linear(style_dim, hidden)
        self.lstm = nn.LSTM(hidden, hidden // 2, 1, batch_first=True, bidirectional=True)
        self.duration_proj = nn.Linear(hidden, max_dur)
        self.f0n = nn.Conv1d(hidden, 2, 3, padding=1)

    def onnx_alignment(self, pred_dur, max_length):
        seq_length = pred_dur.sum().to(dtype=torch.int64)
        device = pred_dur.device

        clipped_dur = torch.clamp(pred_dur, 0, seq_length)

        zero_tensor = torch.zeros(1, device=device)
        prefix_sum = torch.cat([zero_tensor, torch.cumsum(clipped_dur[:-1], dim=0)])

        positions = torch.arange(seq_length, device=device).unsqueeze(0).expand(max_length, -1)

        start_positions = prefix_sum.unsqueeze(1)

        end_positions = torch.min(
            start_positions + clipped_dur.unsqueeze(1),
            start_positions.new_full(start_positions.shape, seq_length, dtype=torch.float)
        )

        mask = (positions >= start_positions) & (positions < end_positions)

        return mask.float()

    def forward(self, tokens, speed, s_prev):
        tokens = tokens.to(self.device)
        tokens = torch.cat([torch.LongTensor([0]).to(self.device), tokens], axis=0)
        tokens = tokens.unsqueeze(0)
        with torch.no_grad():
            input_lengths = tokens.new_full((tokens.shape[0],), tokens.shape[1], dtype=torch.long)

            t_en = self.text_encoder(self.embedding(tokens).transpose(1, 2))
            s = s_prev[:, 4:]
            d = t_en.transpose(1, 2) + self.style_proj(s_prev)[:, None, :]
            x, _ = self.lstm(d)

            duration = self.duration_proj(x)
            duration = torch.sigmoid(duration).sum(axis=-1) / speed

            pred_dur = torch.round(duration.squeeze()).clamp(min=1)

            if torch.onnx.is_in_onnx_export():
                pred_aln_trg = self.onnx_alignment(pred_dur, input_lengths[0])
            else:
                pred_aln_trg = torch.zeros(input_lengths, int(pred_dur.sum().data))
                c_frame = 0
                for i in range(pred_aln_trg.size(0)):
                    end_idx = min(c_frame + int(pred_dur[i]), pred_aln_trg.shape[1])
                    pred_aln_trg[i, c_frame:end_idx] = 1
                    c_frame += int(pred_dur[i])
                    if c_frame >= pred_aln_trg.shape[1]:
                        break

            # encode prosody
            en = (d.transpose(2, 1) @ pred_aln_trg.unsqueeze(0).to(self.device))
            F0_N = self.f0n(en) * s.mean()
            asr = (t_en @ pred_aln_trg.unsqueeze(0).to(self.device))
        return asr, F0_N


def make_model():
    return StyleTTS2().eval()


def example_inputs():
    return (torch.randint(1, 32, (12,)), torch.tensor(1.0), torch.randn(1, 8))


def other_inputs():
    return [
        (torch.randint(1, 32, (20,)), torch.tensor(1.0), torch.randn(1, 8)),
        (torch.randint(1, 32, (7,)), torch.tensor(0.8), torch.randn(1, 8)),
    ]


def probe_inputs():
    return other_inputs()
