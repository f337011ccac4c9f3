"""Transformers4Rec session-based recommender input block: `ConcatFeatures` (the "concat" aggregation of
TabularSequenceFeatures) checks that all sequential features share (batch_size, seq_length) with
`len(set(seq_features_shapes.values())) > 1` on tuples of their shapes, and again with
`len(set(list([v[:-1] for v in input_sizes.values()]))) > 1` before concatenating; context features are repeated
along the sequence. PR #469 "Make the model traceable with Torchscript" skips both checks when
`torch.jit.is_tracing()`; this is the aggregation before it.

Source: https://github.com/NVIDIA-Merlin/Transformers4Rec/pull/469
"""
from abc import ABC
from typing import Dict

import torch

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {
    "item_id_list_seq": {0: "batch", 1: "seq_length"},
    "category_list_seq": {0: "batch", 1: "seq_length"},
    "user_age": {0: "batch"},
}
BLIND = "domains-63"

TabularData = Dict[str, torch.Tensor]


class TabularAggregation(torch.nn.Module, ABC):
    """Aggregation of `TabularData` that outputs a single `Tensor`"""

    def forward(self, inputs: TabularData) -> torch.Tensor:
        raise NotImplementedError()

    def _expand_non_sequential_features(self, inputs: TabularData) -> TabularData:
        inputs_sizes = {k: v.shape for k, v in inputs.items()}
        seq_features_shapes, sequence_length = self._get_seq_features_shapes(inputs_sizes)

        if len(seq_features_shapes) > 0:
            non_seq_features = set(inputs.keys()).difference(set(seq_features_shapes.keys()))
            for fname in non_seq_features:
                # Including the 2nd dim and repeating for the sequence length
                inputs[fname] = inputs[fname].unsqueeze(dim=1).repeat(1, sequence_length, 1)

        return inputs

    def _get_seq_features_shapes(self, inputs_sizes: Dict[str, torch.Size]):
        seq_features_shapes = dict()
        for fname, fshape in inputs_sizes.items():
            # Saves the shapes of sequential features
            if len(fshape) >= 3:
                seq_features_shapes[fname] = tuple(fshape[:2])

        sequence_length = 0
        if len(seq_features_shapes) > 0:
            if len(set(seq_features_shapes.values())) > 1:
                raise ValueError(
                    "All sequential features must share the same shape in the first two dims "
                    "(batch_size, seq_length): {}".format(seq_features_shapes)
                )

            sequence_length = list(seq_features_shapes.values())[0][1]

        return seq_features_shapes, sequence_length

    def _check_concat_shapes(self, inputs: TabularData):
        input_sizes = {k: v.shape for k, v in inputs.items()}
        if len(set(list([v[:-1] for v in input_sizes.values()]))) > 1:
            raise Exception(
                "All features dimensions except the last one must match: {}".format(input_sizes)
            )


class ConcatFeatures(TabularAggregation):
    def forward(
        self,
        inputs: TabularData,
    ) -> torch.Tensor:
        self._expand_non_sequential_features(inputs)
        self._check_concat_shapes(inputs)

        tensors = []
        for name in sorted(inputs.keys()):
            val = inputs[name]
            tensors.append(val)

        return torch.cat(tensors, dim=-1)


class SessionInputBlock(torch.nn.Module):
    """Embedding tables for the sequential categorical features, a context feature, concat aggregation and the
    MLP projection to d_model (what TabularSequenceFeatures.from_schema(..., aggregation="concat") builds)."""

    def __init__(self, n_items=500, n_categories=40, d_model=32):
        super().__init__()
        self.item_emb = torch.nn.Embedding(n_items, 24, padding_idx=0)
        self.category_emb = torch.nn.Embedding(n_categories, 8, padding_idx=0)
        self.aggregation = ConcatFeatures()
        self.projection = torch.nn.Sequential(torch.nn.Linear(24 + 8 + 1, d_model), torch.nn.ReLU())

    def forward(self, item_id_list_seq, category_list_seq, user_age):
        inputs = {
            "item_id-list_seq": self.item_emb(item_id_list_seq),
            "category-list_seq": self.category_emb(category_list_seq),
            "user_age": user_age,
        }
        return self.projection(self.aggregation(inputs))


def make_model():
    return SessionInputBlock().eval()


def example_inputs():
    return (torch.randint(1, 500, (4, 20)), torch.randint(1, 40, (4, 20)), torch.rand(4, 1))


def other_inputs():
    return [
        (torch.randint(1, 500, (6, 33)), torch.randint(1, 40, (6, 33)), torch.rand(6, 1)),
        (torch.randint(1, 500, (1, 7)), torch.randint(1, 40, (1, 7)), torch.rand(1, 1)),
    ]


def probe_inputs():
    return other_inputs()
