"""MLPerf inference RNN-T (speech recognition): `ScriptGreedyDecoder.forward` runs the encoder and then greedy
transducer decoding per utterance, `for time_idx in range(int(out_len.item()))` with an inner
`while not_blank and symbols_added < max_symbols` loop driven by `k = k.item()` and returning the labels as
`List[List[int]]`; uncommenting the ONNX export in inference.py "falls over" (the reporter later had to turn ints
into tensors and still hit warnings around the decoder's control flow).

Source: https://github.com/mlcommons/inference/issues/617
"""
from typing import List, Optional, Tuple

import torch
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "time", 1: "batch"}, "out_lens": {0: "batch"}}
BLIND = "domains-11"


class Encoder(torch.nn.Module):
    def __init__(self, in_features, encoder_n_hidden):
        super().__init__()
        self.pre_rnn = torch.nn.LSTM(in_features, encoder_n_hidden)

    def forward(self, x_padded: torch.Tensor, x_lens: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x_padded, _ = self.pre_rnn(x_padded, None)
        # (B, T, H)
        x_padded = x_padded.transpose(0, 1)
        return x_padded, x_lens


class Prediction(torch.nn.Module):
    def __init__(self, vocab_size, n_hidden):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab_size - 1, n_hidden)
        self.n_hidden = n_hidden
        self.dec_rnn = torch.nn.LSTM(n_hidden, n_hidden)

    def forward(self, y: Optional[torch.Tensor], state: Optional[Tuple[torch.Tensor, torch.Tensor]] = None, b: int = 1):
        if y is None:
            y = torch.zeros((b, 1, self.n_hidden), dtype=self.embed.weight.dtype)
        else:
            y = self.embed(y)
        y = y.transpose(0, 1)  # (U + 1, B, H)
        g, hid = self.dec_rnn(y, state)
        g = g.transpose(0, 1)  # (B, U + 1, H)
        return g, hid


class Joint(torch.nn.Module):
    def __init__(self, vocab_size, pred_n_hidden, enc_n_hidden, joint_n_hidden):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(pred_n_hidden + enc_n_hidden, joint_n_hidden), torch.nn.ReLU(),
            torch.nn.Linear(joint_n_hidden, vocab_size))

    def forward(self, f: torch.Tensor, g: torch.Tensor):
        B, T, H = f.shape
        B, U_, H2 = g.shape
        f = f.unsqueeze(dim=2).expand((B, T, U_, H))
        g = g.unsqueeze(dim=1).expand((B, T, U_, H2))
        inp = torch.cat([f, g], dim=3)   # (B, T, U, 2H)
        return self.net(inp)


class RNNT(torch.nn.Module):
    def __init__(self, in_features=16, num_classes=12, n_hidden=32):
        super().__init__()
        self.encoder = Encoder(in_features, n_hidden)
        self.prediction = Prediction(num_classes, n_hidden)
        self.joint = Joint(num_classes, n_hidden, n_hidden, n_hidden)


class ScriptGreedyDecoder(torch.nn.Module):
    def __init__(self, blank_index, model, max_symbols_per_step=30):
        super().__init__()
        self.eval()
        self._model = model
        self._blank_id = blank_index
        self._SOS = -1
        assert max_symbols_per_step > 0
        self._max_symbols_per_step = max_symbols_per_step

    def forward(self, x: torch.Tensor, out_lens: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, List[List[int]]]:
        logits, logits_lens = self._model.encoder(x, out_lens)

        output: List[List[int]] = []
        for batch_idx in range(logits.size(0)):
            inseq = logits[batch_idx, :, :].unsqueeze(1)
            # inseq: TxBxF
            logitlen = logits_lens[batch_idx]
            sentence = self._greedy_decode(inseq, logitlen)
            output.append(sentence)

        return logits, logits_lens, output

    def _greedy_decode(self, x: torch.Tensor, out_len: torch.Tensor) -> List[int]:
        hidden: Optional[Tuple[torch.Tensor, torch.Tensor]] = None
        label: List[int] = []
        for time_idx in range(int(out_len.item())):
            f = x[time_idx, :, :].unsqueeze(0)

            not_blank = True
            symbols_added = 0

            while not_blank and symbols_added < self._max_symbols_per_step:
                g, hidden_prime = self._pred_step(self._get_last_symb(label), hidden)
                logp = self._joint_step(f, g, log_normalize=False)[0, :]

                # get index k, of max prob
                v, k = logp.max(0)
                k = k.item()

                if k == self._blank_id:
                    not_blank = False
                else:
                    label.append(k)
                    hidden = hidden_prime
                symbols_added += 1

        return label

    def _pred_step(self, label: int, hidden: Optional[Tuple[torch.Tensor, torch.Tensor]]):
        if label == self._SOS:
            return self._model.prediction(None, hidden)
        if label > self._blank_id:
            label -= 1
        label = torch.tensor([[label]], dtype=torch.int64)
        return self._model.prediction(label, hidden)

    def _joint_step(self, enc: torch.Tensor, pred: torch.Tensor, log_normalize: bool = False) -> torch.Tensor:
        logits = self._model.joint(enc, pred)[:, 0, 0, :]
        if not log_normalize:
            return logits
        return F.log_softmax(logits, dim=len(logits.shape) - 1)

    def _get_last_symb(self, labels: List[int]) -> int:
        return self._SOS if len(labels) == 0 else labels[-1]


def make_model():
    # blank is the last class, as in the MLPerf RNN-T config
    return ScriptGreedyDecoder(blank_index=11, model=RNNT().eval(), max_symbols_per_step=3)


def example_inputs():
    return (torch.randn(12, 2, 16), torch.tensor([12, 9]))


def other_inputs():
    return [(torch.randn(20, 3, 16), torch.tensor([20, 17, 6])),
            (torch.randn(7, 1, 16), torch.tensor([7]))]


def probe_inputs():
    return other_inputs()
