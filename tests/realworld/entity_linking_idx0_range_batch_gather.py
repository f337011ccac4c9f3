"""Transformer entity-linking head: `idx0 = [[x] for x in range(batch_size)]` is built from
`sequence_output.shape[0]` and used in `sequence_output[idx0, mention_idx, :]` to pick each sample's mention and entity
tokens; the report says the model exported with dynamic axes gives the right prediction only for the first sample
when run on a batch.

Source: https://github.com/onnx/onnx/issues/3510
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "mention_idx": {0: "batch"}, "entity_idx": {0: "batch"}}
BLIND = "domains-5"


class EntityLinkingModel(nn.Module):
    def __init__(self, vocab=100, hidden=16, num_labels=3):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, hidden)
        # stand-in for the transformers encoder that produces `sequence_output`
        self.encoder = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.LayerNorm(hidden))
        self.classifier = nn.Linear(2 * hidden, num_labels)

    def forward(self, input_ids, mention_idx, entity_idx):
        sequence_output = self.encoder(self.embeddings(input_ids))

        batch_size = sequence_output.shape[0]
        idx0 = [[x] for x in range(batch_size)]
        mention_embeds = sequence_output[idx0, mention_idx, :]
        mention_embeds = torch.mean(mention_embeds, dim=1)
        entity_embeds = torch.squeeze(sequence_output[idx0, entity_idx, :], 1)
        sequence_output = torch.cat([mention_embeds, entity_embeds], dim=1)

        return self.classifier(sequence_output)


def make_model():
    return EntityLinkingModel().eval()


def _inputs(batch, length):
    input_ids = torch.randint(0, 100, (batch, length))
    mention_idx = torch.randint(0, length, (batch, 2))
    entity_idx = torch.randint(0, length, (batch, 1))
    return (input_ids, mention_idx, entity_idx)


def example_inputs():
    return _inputs(2, 12)


def other_inputs():
    return [_inputs(4, 20), _inputs(3, 7)]


def probe_inputs():
    return other_inputs()
