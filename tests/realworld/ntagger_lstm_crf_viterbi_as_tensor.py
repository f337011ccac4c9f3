"""NER tagger (GloVe + LSTM + pytorch-crf): `self.crf.decode(logits)` runs Viterbi with Python loops and
`.item()` backtracking into a list of lists, then `torch.as_tensor(prediction, dtype=torch.long)`; the export
warns "torch.as_tensor results are registered as constants in the trace" and the tags are baked in.

Source: https://github.com/pytorch/pytorch/issues/39245
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "domains-6"


class CRF(nn.Module):
    # pytorch-crf (torchcrf/__init__.py), decode path
    def __init__(self, num_tags, batch_first=False):
        super().__init__()
        self.num_tags = num_tags
        self.batch_first = batch_first
        self.start_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.end_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags).uniform_(-0.1, 0.1))

    def decode(self, emissions, mask=None):
        if mask is None:
            mask = emissions.new_ones(emissions.shape[:2], dtype=torch.uint8)
        if self.batch_first:
            emissions = emissions.transpose(0, 1)
            mask = mask.transpose(0, 1)
        return self._viterbi_decode(emissions, mask)

    def _viterbi_decode(self, emissions, mask):
        seq_length, batch_size = mask.shape
        score = self.start_transitions + emissions[0]
        history = []
        for i in range(1, seq_length):
            broadcast_score = score.unsqueeze(2)
            broadcast_emission = emissions[i].unsqueeze(1)
            next_score = broadcast_score + self.transitions + broadcast_emission
            next_score, indices = next_score.max(dim=1)
            score = torch.where(mask[i].unsqueeze(1), next_score, score)
            history.append(indices)
        score += self.end_transitions
        seq_ends = mask.long().sum(dim=0) - 1
        best_tags_list = []
        for idx in range(batch_size):
            _, best_last_tag = score[idx].max(dim=0)
            best_tags = [best_last_tag.item()]
            for hist in reversed(history[:seq_ends[idx]]):
                best_last_tag = hist[idx][best_tags[-1]]
                best_tags.append(best_last_tag.item())
            best_tags.reverse()
            best_tags_list.append(best_tags)
        return best_tags_list


class GloveLSTMCRF(nn.Module):
    def __init__(self, vocab_dim=100, token_emb_dim=16, lstm_hidden_dim=16, label_size=5):
        super().__init__()
        self.embed_token = nn.Embedding(vocab_dim, token_emb_dim, padding_idx=0)
        self.lstm = nn.LSTM(token_emb_dim, lstm_hidden_dim, num_layers=1, bidirectional=True, batch_first=True)
        self.dropout = nn.Dropout(0.1)
        self.linear = nn.Linear(lstm_hidden_dim * 2, label_size)
        self.crf = CRF(num_tags=label_size, batch_first=True)

    def forward(self, x):
        embed_out = self.dropout(self.embed_token(x))
        lstm_out, (h_n, c_n) = self.lstm(embed_out)
        lstm_out = self.dropout(lstm_out)
        logits = self.linear(lstm_out)
        # logits : [batch_size, seq_size, label_size]
        prediction = self.crf.decode(logits)
        prediction = torch.as_tensor(prediction, dtype=torch.long)
        # prediction : [batch_size, seq_size]
        return logits, prediction


def make_model():
    return GloveLSTMCRF().eval()


def example_inputs():
    return (torch.randint(1, 100, (2, 10)),)


def other_inputs():
    return [(torch.randint(1, 100, (3, 14)),), (torch.randint(1, 100, (1, 6)),)]


def probe_inputs():
    return other_inputs()
