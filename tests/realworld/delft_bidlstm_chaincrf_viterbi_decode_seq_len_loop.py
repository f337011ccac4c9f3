"""DeLFT (GROBID's sequence labelling) BidLSTM_ChainCRF tagger: `ChainCRF.decode` runs Viterbi with
`for t in range(1, seq_len)` over the emissions and backtracks with a second Python loop writing
`best_paths[:, t]`; DeLFT's ONNX export script gives up on exporting the decode and ships only an
`EncoderWrapper` "that extracts encoder (without CRF decode)", re-implementing the CRF in Java.
Here the tagger is exported with its decode, with a dynamic number of tokens.

Source: https://github.com/kermitt2/delft/blob/master/delft/applications/onnx_export.py
"""
import torch
import torch.nn as nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"word_input": {0: "batch", 1: "seq_length"}}
BLIND = "domains-47"


class ChainCRF(nn.Module):
    def __init__(self, num_tags: int = None):
        super().__init__()
        self._num_tags = num_tags
        self._built = False
        self.U = None
        self.b_start = None
        self.b_end = None

    def build(self, num_tags: int, device=None, dtype=None):
        self._num_tags = num_tags
        self.U = nn.Parameter(torch.empty(num_tags, num_tags, device=device, dtype=dtype))
        nn.init.xavier_uniform_(self.U)
        self.b_start = nn.Parameter(torch.zeros(num_tags, device=device, dtype=dtype))
        self.b_end = nn.Parameter(torch.zeros(num_tags, device=device, dtype=dtype))
        self._built = True

    def decode(self, emissions, mask=None):
        batch_size, seq_len, num_tags = emissions.shape
        device = emissions.device

        x = self._add_boundary_energy(emissions, mask)

        alpha = x[:, 0, :]  # [batch, num_tags]
        backpointers = []

        for t in range(1, seq_len):
            broadcast_alpha = alpha.unsqueeze(2)
            next_score = broadcast_alpha + self.U.unsqueeze(0) + x[:, t, :].unsqueeze(1)
            alpha, bp = next_score.max(dim=1)  # [batch, num_tags]
            backpointers.append(bp)

        best_paths = torch.zeros(batch_size, seq_len, dtype=torch.long, device=device)
        best_last = alpha.argmax(dim=1)
        best_paths[:, -1] = best_last

        for t in range(seq_len - 2, -1, -1):
            best_paths[:, t] = backpointers[t].gather(1, best_paths[:, t + 1 : t + 2]).squeeze(1)

        return best_paths

    def _add_boundary_energy(self, x, mask=None):
        x = x.clone()
        x[:, 0, :] = x[:, 0, :] + self.b_start
        x[:, -1, :] = x[:, -1, :] + self.b_end
        return x


class BidLSTM_ChainCRF(nn.Module):
    def __init__(self, word_embedding_size=50, num_word_lstm_units=32, ntags=9):
        super().__init__()
        self.bilstm = nn.LSTM(word_embedding_size, num_word_lstm_units, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(0.5)
        self.dense1 = nn.Linear(num_word_lstm_units * 2, num_word_lstm_units)
        self.dense2 = nn.Linear(num_word_lstm_units, ntags)
        self.crf = ChainCRF(ntags)
        self.crf.build(ntags)

    def forward(self, word_input):
        x = self.dropout(word_input)
        lstm_out, _ = self.bilstm(x)
        lstm_out = self.dropout(lstm_out)
        x = torch.tanh(self.dense1(lstm_out))
        emissions = self.dense2(x)
        # BidLSTM_ChainCRF.decode: Viterbi on the emissions
        return self.crf.decode(emissions)


def make_model():
    return BidLSTM_ChainCRF().eval()


def example_inputs():
    return (torch.randn(2, 12, 50),)


def other_inputs():
    return [(torch.randn(3, 17, 50),), (torch.randn(1, 6, 50),)]


def probe_inputs():
    return other_inputs()
