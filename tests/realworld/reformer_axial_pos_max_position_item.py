"""Reformer (transformers) embeddings with axial position encodings: in eval mode
`AxialPositionEmbeddings.forward` computes `max_position_id = position_ids.max().item()`, slices the
broadcast weights to `-(-(max_position_id + 1) // axial_pos_shape[1])` columns and gathers each batch
row with `for i in range(batch_size)`; the exporters PR rewrites it because the `.item()` value (and
the length derived from it) does not survive torch.export / ONNX export.

Source: https://github.com/huggingface/transformers/pull/41992
"""
from functools import reduce
from operator import mul

import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-6"


class AxialPositionEmbeddings(nn.Module):
    def __init__(self, axial_pos_shape=(4, 8), axial_pos_embds_dim=(8, 8), dropout=0.05):
        super().__init__()
        self.axial_pos_shape = tuple(axial_pos_shape)
        self.axial_pos_embds_dim = axial_pos_embds_dim
        self.dropout = dropout
        self.weights = nn.ParameterList()
        for axis, axial_pos_embd_dim in enumerate(self.axial_pos_embds_dim):
            ax_shape = [1] * len(self.axial_pos_shape)
            ax_shape[axis] = self.axial_pos_shape[axis]
            ax_shape = tuple(ax_shape) + (axial_pos_embd_dim,)
            self.weights.append(nn.Parameter(torch.randn(ax_shape, dtype=torch.float32)))

    def forward(self, position_ids):
        # broadcast weights to correct shape
        batch_size = position_ids.shape[0]
        sequence_length = position_ids.shape[1]

        broadcasted_weights = [
            weight.expand((batch_size,) + self.axial_pos_shape + weight.shape[-1:]) for weight in self.weights
        ]

        if self.training is True:
            position_encodings = torch.cat(
                [torch.reshape(weight, (batch_size, sequence_length, -1)) for weight in broadcasted_weights],
                dim=-1,
            )
        else:
            if reduce(mul, self.axial_pos_shape) < sequence_length:
                raise ValueError(
                    f"Make sure that config.axial_pos_shape factors: {self.axial_pos_shape} multiply at least to "
                    f"sequence_length {sequence_length}."
                )

            # compute how many columns are needed
            max_position_id = position_ids.max().item()
            required_pos_encodings_columns = -(-(max_position_id + 1) // self.axial_pos_shape[1])

            # cut to columns that are needed
            position_encodings = torch.cat(
                [weight[:, :required_pos_encodings_columns] for weight in broadcasted_weights], dim=-1
            )
            position_encodings = torch.reshape(position_encodings, (batch_size, -1, position_encodings.shape[-1]))

            # select correct position encodings
            position_encodings = torch.cat(
                [
                    torch.index_select(position_encodings[i], 0, position_ids[i]).unsqueeze(0)
                    for i in range(batch_size)
                ],
                dim=0,
            )

        return position_encodings


class ReformerEmbeddings(nn.Module):
    def __init__(self, vocab_size=64, hidden_size=16, max_position_embeddings=32, hidden_dropout_prob=0.05):
        super().__init__()
        self.max_position_embeddings = max_position_embeddings
        self.dropout = hidden_dropout_prob
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.position_embeddings = AxialPositionEmbeddings()

    def forward(self, input_ids=None, position_ids=None, inputs_embeds=None, start_idx_pos_encodings=0):
        input_shape = input_ids.size()
        device = input_ids.device

        seq_length = input_shape[1]
        if position_ids is None:
            position_ids = torch.arange(
                start_idx_pos_encodings, start_idx_pos_encodings + seq_length, dtype=torch.long, device=device
            )
            position_ids = position_ids.unsqueeze(0).expand(input_shape)

        if inputs_embeds is None:
            inputs_embeds = self.word_embeddings(input_ids)

        if position_ids.shape[-1] > self.max_position_embeddings:
            raise ValueError(
                f"Sequence Length: {position_ids.shape[-1]} has to be less or equal than "
                f"config.max_position_embeddings {self.max_position_embeddings}."
            )

        embeddings = nn.functional.dropout(inputs_embeds, p=self.dropout, training=self.training)
        position_embeddings = self.position_embeddings(position_ids)
        embeddings = embeddings + position_embeddings
        return embeddings


class ReformerEmbedder(nn.Module):
    """Export wrapper: token ids in, embeddings (word + axial position) out."""

    def __init__(self):
        super().__init__()
        self.embeddings = ReformerEmbeddings()

    def forward(self, input_ids):
        return self.embeddings(input_ids=input_ids)


def make_model():
    return ReformerEmbedder().eval()


def example_inputs():
    return (torch.randint(0, 64, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 64, (3, 20)),), (torch.randint(0, 64, (1, 7)),)]


def probe_inputs():
    return other_inputs()
