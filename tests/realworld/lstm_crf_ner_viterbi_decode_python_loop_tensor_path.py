"""LSTM-CRF sequence tagger (BIOES NER) that runs Viterbi decoding in forward at inference: the decode loops over the
time steps in Python, back-traces into a Python list and returns `torch.tensor(path)`; the post says the for loop cannot
be traced, so the CRF does not convert to ONNX, and even implementations that export without error or warning do not
work correctly at run time (the author moves viterbi_decode into an autograd.Function with a custom ONNX op).

Source: https://mayfly-daily.readthedocs.io/zh/latest/docs/daily/2023/0627.html
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {1: "seq_len"}}
BLIND = "domains-42"


def viterbi_decode(sequence, trans_matrix):
    """sequence: (seq_len, num_tags) emission scores; trans_matrix: (num_tags, num_tags)."""
    trellis = torch.zeros_like(sequence)
    backpointers = torch.zeros_like(sequence, dtype=torch.long)
    trellis[0] = sequence[0]
    for t in range(1, sequence.shape[0]):
        v = trellis[t - 1].unsqueeze(1) + trans_matrix
        max_v, argmax_v = torch.max(v, 0)
        trellis[t] = sequence[t] + max_v
        backpointers[t] = argmax_v
    path = [int(torch.argmax(trellis[-1]))]
    for bp in reversed(backpointers[1:]):
        path.append(int(bp[path[-1]]))
    path.reverse()
    return path


class LstmCrfModal(nn.Module):
    def __init__(self, vocab_size=100, embed_dim=16, hidden_dim=32, num_tags=9):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim // 2, bidirectional=True, batch_first=True)
        self.hidden2tag = nn.Linear(hidden_dim, num_tags)
        self.trans_matrix = nn.Parameter(torch.randn(num_tags, num_tags))

    def forward(self, input_ids):
        embeds = self.embedding(input_ids)
        lstm_out, _ = self.lstm(embeds)
        sequence = self.hidden2tag(lstm_out)[0]  # (seq_len, num_tags), one sentence
        if not self.training:
            path = viterbi_decode(sequence, self.trans_matrix)
            return torch.tensor(path, dtype=torch.int32)
        return sequence


def make_model():
    return LstmCrfModal().eval()


def example_inputs():
    return (torch.randint(0, 100, (1, 12)),)


def other_inputs():
    return [(torch.randint(0, 100, (1, 20)),), (torch.randint(0, 100, (1, 5)),)]


def probe_inputs():
    return other_inputs()
