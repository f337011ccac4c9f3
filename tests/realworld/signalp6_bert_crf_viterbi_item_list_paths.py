"""SignalP 6.0 (protein BERT + CRF tagger): the CRF's `_viterbi_decode` loops over the sequence, back-traces with
`reversed(history[: seq_ends[idx]])` and `best_last_tag.item()`, and returns the paths as a List[List[int]]; the
deployment copy of the CRF says ".item() calls are ok for torchscript, but not ONNX" and rewrites the decoder to
return a padded tensor (without reversed() and .item()) so the tagger can be exported.

Source: https://github.com/fteufel/signalp-6.0/blob/c370386d0c5d42ac7a439ae351eb23e8c896d00b/src/signalp6/model_for_deployment/multi_tag_crf_for_viterbi.py
"""
from typing import List

import torch
import torch.nn as nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq_len"}, "mask": {0: "batch", 1: "seq_len"}}
BLIND = "domains-42"


class CRF(nn.Module):
    def __init__(self, num_tags: int, batch_first: bool = False, init_weight: float = 0.577350) -> None:
        super().__init__()
        self.num_tags = num_tags
        self.batch_first = batch_first
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags))
        self.include_start_end_transitions = True
        self.start_transitions = torch.nn.Parameter(torch.empty(num_tags))
        self.end_transitions = torch.nn.Parameter(torch.empty(num_tags))
        nn.init.uniform_(self.transitions, -init_weight, init_weight)
        nn.init.uniform_(self.start_transitions, -init_weight, init_weight)
        nn.init.uniform_(self.end_transitions, -init_weight, init_weight)

    def decode(self, emissions: torch.Tensor, mask: torch.ByteTensor = None) -> List[List[int]]:
        if self.batch_first:
            emissions = emissions.transpose(0, 1)
            mask = mask.transpose(0, 1)
        return self._viterbi_decode(emissions, mask)

    def _viterbi_decode(self, emissions: torch.FloatTensor, mask: torch.ByteTensor) -> List[List[int]]:
        # emissions: (seq_length, batch_size, num_tags) logits
        # mask: (seq_length, batch_size)
        assert emissions.dim() == 3 and mask.dim() == 2
        assert emissions.shape[:2] == mask.shape
        assert emissions.size(2) == self.num_tags
        assert mask[0].all()

        seq_length, batch_size = mask.shape

        if self.include_start_end_transitions:
            score = self.start_transitions + emissions[0]
        else:
            score = emissions[0]
        history = []

        for i in range(1, seq_length):
            broadcast_score = score.unsqueeze(2)
            broadcast_emission = emissions[i].unsqueeze(1)
            next_score = broadcast_score + self.transitions + broadcast_emission
            next_score, indices = next_score.max(dim=1)
            score = torch.where(mask[i].unsqueeze(1), next_score, score)
            history.append(indices)

        if self.include_start_end_transitions:
            score += self.end_transitions

        # shape: (batch_size,)
        seq_ends = mask.long().sum(dim=0) - 1
        best_tags_list = []

        for idx in range(batch_size):
            _, best_last_tag = score[idx].max(dim=0)
            best_tags = [best_last_tag.item()]

            for hist in reversed(history[: seq_ends[idx]]):
                best_last_tag = hist[idx][best_tags[-1]]
                best_tags.append(best_last_tag.item())

            best_tags.reverse()
            best_tags_list.append(best_tags)

        return best_tags_list


class BertSequenceTaggingCRF(nn.Module):
    """Token-classification head + CRF on top of the (protein) BERT hidden states."""

    def __init__(self, hidden_size=32, num_labels=6):
        super().__init__()
        self.outputs_to_emissions = nn.Linear(hidden_size, num_labels)
        self.crf = CRF(num_tags=num_labels, batch_first=True)

    def forward(self, hidden_states, mask):
        emissions = self.outputs_to_emissions(hidden_states)
        viterbi_paths = self.crf.decode(emissions=emissions, mask=mask)
        return emissions, viterbi_paths


def make_model():
    return BertSequenceTaggingCRF().eval()


def _mask(lengths, seq_len):
    return torch.arange(seq_len)[None, :] < torch.tensor(lengths)[:, None]


def example_inputs():
    return (torch.randn(2, 12, 32), _mask([12, 8], 12))


def other_inputs():
    return [(torch.randn(3, 20, 32), _mask([20, 11, 5], 20)), (torch.randn(1, 7, 32), _mask([6], 7))]


def probe_inputs():
    return other_inputs()
