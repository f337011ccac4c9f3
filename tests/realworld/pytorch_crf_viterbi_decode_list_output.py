"""BERT-style token tagger (NER) with a pytorch-crf `CRF` head whose `decode` runs Viterbi and returns
`List[List[int]]`; converting the model to ONNX fails, and the thread explains that "output of
`_viterbi_decode` is a list of int lists with variable lengths which is invalid for onnx output".

Source: https://github.com/kmkurn/pytorch-crf/issues/80
"""
from typing import List, Optional

import torch
import torch.nn as nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
BLIND = "domains-11"


# ---- torchcrf (pytorch-crf 0.7.2), decode path only ----
class CRF(nn.Module):
    def __init__(self, num_tags: int, batch_first: bool = False) -> None:
        if num_tags <= 0:
            raise ValueError(f'invalid number of tags: {num_tags}')
        super().__init__()
        self.num_tags = num_tags
        self.batch_first = batch_first
        self.start_transitions = nn.Parameter(torch.empty(num_tags))
        self.end_transitions = nn.Parameter(torch.empty(num_tags))
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.uniform_(self.start_transitions, -0.1, 0.1)
        nn.init.uniform_(self.end_transitions, -0.1, 0.1)
        nn.init.uniform_(self.transitions, -0.1, 0.1)

    def decode(self, emissions: torch.Tensor,
               mask: Optional[torch.ByteTensor] = None) -> List[List[int]]:
        if mask is None:
            mask = emissions.new_ones(emissions.shape[:2], dtype=torch.uint8)

        if self.batch_first:
            emissions = emissions.transpose(0, 1)
            mask = mask.transpose(0, 1)

        return self._viterbi_decode(emissions, mask)

    def _viterbi_decode(self, emissions: torch.FloatTensor,
                        mask: torch.ByteTensor) -> List[List[int]]:
        # emissions: (seq_length, batch_size, num_tags)
        # mask: (seq_length, batch_size)
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


class BertCrfTagger(nn.Module):
    """Token encoder stand-in (embeddings + projection) -> emissions -> CRF.decode"""

    def __init__(self, vocab_size=100, hidden_size=32, num_tags=5):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden_size)
        self.encoder = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.GELU())
        self.classifier = nn.Linear(hidden_size, num_tags)
        self.crf = CRF(num_tags=num_tags, batch_first=True)

    def forward(self, input_ids, attention_mask):
        sequence_output = self.encoder(self.embeddings(input_ids))
        emissions = self.classifier(sequence_output)
        return self.crf.decode(emissions, mask=attention_mask.bool())


def make_model():
    return BertCrfTagger().eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 12)), torch.ones(2, 12, dtype=torch.long))


def other_inputs():
    return [(torch.randint(0, 100, (3, 9)), torch.ones(3, 9, dtype=torch.long)),
            (torch.randint(0, 100, (1, 17)), torch.ones(1, 17, dtype=torch.long))]


def probe_inputs():
    return other_inputs()
