"""ONX603: an entity-linking head picks each row's mention and entity positions with the row
numbers as a list of one-element lists (`[[x] for x in range(batch_size)]`). Both exporters unroll
the comprehension for the export-time batch. Fixed (unsafely: the encoder's output is not known
to be a tensor statically) by `torch.arange(batch_size).unsqueeze(1)`."""
import torch
from torch import nn


class EntityLinking(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = nn.Embedding(50, 8)
        self.encoder = nn.Sequential(nn.Linear(8, 8), nn.GELU())
        self.classifier = nn.Linear(16, 3)

    def forward(self, input_ids: torch.Tensor, mention_idx: torch.Tensor, entity_idx: torch.Tensor):
        sequence_output = self.encoder(self.embeddings(input_ids))
        batch_size = sequence_output.shape[0]
        idx0 = [[x] for x in range(batch_size)]
        mention = sequence_output[idx0, mention_idx, :].mean(dim=1)
        entity = torch.squeeze(sequence_output[idx0, entity_idx, :], 1)
        return self.classifier(torch.cat([mention, entity], dim=1))


def make_model():
    torch.manual_seed(0)
    return EntityLinking()


def _inputs(batch, length, seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(0, 50, (batch, length), generator=g), torch.randint(0, length, (batch, 2), generator=g),
            torch.randint(0, length, (batch, 1), generator=g))


def example_inputs():
    return _inputs(2, 7, 0)


def probe_inputs():
    return [_inputs(3, 9, 1), _inputs(4, 5, 2)]


DYNAMIC = {0: {0: "batch", 1: "sequence"}, 1: {0: "batch"}, 2: {0: "batch"}}
