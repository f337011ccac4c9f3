"""Mobile NER tagger on top of pytorch-crf: `forward` returns `self.crf.decode(emissions)` as a tensor. Tracing
it for TorchScript/ONNX warns "Converting a tensor to a Python index" at `for i in range(1, seq_length)` (and the
`.item()` backtracking), and the traced model always outputs shape (1, 5), the dummy sequence length, for any
new sequence length.

Source: https://github.com/kmkurn/pytorch-crf/issues/79
"""
from typing import List, Optional

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {1: "seq"}}
BLIND = "domains-31"


class CRF(nn.Module):
    # torchcrf/__init__.py (pytorch-crf 0.7.2), decode path
    def __init__(self, num_tags: int, batch_first: bool = False) -> None:
        super().__init__()
        self.num_tags = num_tags
        self.batch_first = batch_first
        self.start_transitions = nn.Parameter(torch.empty(num_tags))
        self.end_transitions = nn.Parameter(torch.empty(num_tags))
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags))
        nn.init.uniform_(self.start_transitions, -0.1, 0.1)
        nn.init.uniform_(self.end_transitions, -0.1, 0.1)
        nn.init.uniform_(self.transitions, -0.1, 0.1)

    def decode(self, emissions: torch.Tensor, mask: Optional[torch.ByteTensor] = None) -> List[List[int]]:
        if mask is None:
            mask = emissions.new_ones(emissions.shape[:2], dtype=torch.uint8)
        if self.batch_first:
            emissions = emissions.transpose(0, 1)
            mask = mask.transpose(0, 1)
        return self._viterbi_decode(emissions, mask)

    def _viterbi_decode(self, emissions: torch.FloatTensor, mask: torch.ByteTensor) -> List[List[int]]:
        seq_length, batch_size = mask.shape
        score = self.start_transitions + emissions[0]
        history = []
        for i in range(1, seq_length):
            broadcast_score = score.unsqueeze(2)
            broadcast_emission = emissions[i].unsqueeze(1)
            next_score = broadcast_score + self.transitions + broadcast_emission
            next_score, indices = next_score.max(dim=1)
            score = torch.where(mask[i].unsqueeze(1).bool(), next_score, score)
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


class Tagger(nn.Module):
    def __init__(self, hidden=16, num_tags=5):
        super().__init__()
        self.proj = nn.Linear(1, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True, bidirectional=True)
        self.hidden2tag = nn.Linear(hidden * 2, num_tags)
        self.crf = CRF(num_tags, batch_first=True)

    def forward(self, x):
        h = torch.relu(self.proj(x.unsqueeze(-1)))
        h, _ = self.lstm(h)
        emissions = self.hidden2tag(h)
        return torch.tensor(self.crf.decode(emissions))


def make_model():
    return Tagger().eval()


def example_inputs():
    # dummy input for tracing, as in the report
    return (torch.rand(1, 5),)


def other_inputs():
    return [(torch.rand(1, 3),), (torch.rand(1, 12),), (torch.rand(1, 20),)]


def probe_inputs():
    return other_inputs()
