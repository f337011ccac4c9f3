"""ONX701 on a computed index: transformers' sequence classification heads pool the last
non-padding token with `sequence_lengths = eq(input_ids, pad).int().argmax(-1) - 1` (-1 for a
row without padding) and `logits[torch.arange(batch_size), sequence_lengths]`. The legacy
exporter flattens the two indices into one and does not wrap the -1: wrong on the export inputs
whenever a row has no padding. Fixed safely by wrapping negative positions (the same element for
every index eager accepts)."""
import torch
from torch import nn


class LastTokenPool(nn.Module):
    def __init__(self, pad_token_id=0):
        super().__init__()
        self.pad_token_id = pad_token_id
        self.embed = nn.Embedding(16, 8)
        self.score = nn.Linear(8, 3, bias=False)

    def forward(self, input_ids):
        logits = self.score(self.embed(input_ids))
        batch_size = input_ids.shape[0]
        if self.pad_token_id is None:
            sequence_lengths = -1
        else:
            sequence_lengths = (torch.eq(input_ids, self.pad_token_id).int().argmax(-1) - 1).to(logits.device)
        return logits[torch.arange(batch_size, device=logits.device), sequence_lengths]


def make_model():
    torch.manual_seed(0)
    return LastTokenPool()


def _ids(batch, length, seed):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, 16, (batch, length), generator=generator)
    ids[0, length // 2:] = 0  # one padded row; the others have no padding (index -1)
    return ids


def example_inputs():
    return (_ids(3, 7, 0),)


def probe_inputs():
    return [(_ids(2, 11, 1),), (_ids(4, 5, 2),)]


DYNAMIC = {0: {0: "batch", 1: "sequence"}}
