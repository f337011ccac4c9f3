"""Transformers4Rec ConcatFeatures aggregation of session features: `_get_seq_features_shapes` raises unless
`len(set(seq_features_shapes.values())) > 1` is false and `_check_concat_shapes` builds
`set([v[:-1] for v in input_sizes.values()])`; tracing the next-item model fails with a ValueError from these
shape checks (fixed upstream by skipping them while tracing).

Source: https://github.com/NVIDIA-Merlin/Transformers4Rec/issues/282
"""
from typing import Dict

import torch

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"item_id": {0: "batch", 1: "seq"}, "category": {0: "batch", 1: "seq"}, "user_age": {0: "batch"}}
BLIND = "domains-2"

TabularData = Dict[str, torch.Tensor]


class ConcatFeatures(torch.nn.Module):
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

    def forward(self, inputs: TabularData) -> torch.Tensor:
        self._expand_non_sequential_features(inputs)
        self._check_concat_shapes(inputs)

        tensors = []
        for name in sorted(inputs.keys()):
            val = inputs[name]
            tensors.append(val)

        return torch.cat(tensors, dim=-1)


class SessionInputBlock(torch.nn.Module):
    """Embedded session features -> ConcatFeatures -> projection (d_output)."""

    def __init__(self, d_output=16):
        super().__init__()
        self.aggregation = ConcatFeatures()
        self.projection = torch.nn.Linear(8 + 4 + 1, d_output)

    def forward(self, item_id, category, user_age):
        features = {"item_id": item_id, "category": category, "user_age": user_age}
        return self.projection(self.aggregation(features))


def make_model():
    return SessionInputBlock()


def example_inputs():
    return (torch.randn(2, 5, 8), torch.randn(2, 5, 4), torch.randn(2, 1))


def other_inputs():
    return [(torch.randn(3, 9, 8), torch.randn(3, 9, 4), torch.randn(3, 1)),
            (torch.randn(1, 3, 8), torch.randn(1, 3, 4), torch.randn(1, 1))]


def probe_inputs():
    return other_inputs()
