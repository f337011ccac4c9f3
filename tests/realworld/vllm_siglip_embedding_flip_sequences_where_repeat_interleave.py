"""vLLM's SiglipEmbeddingModel text path: on the flattened token batch, `_flip_sequences_by_position_ids`
finds sequence boundaries with one-argument `torch.where(boundary_mask)`, builds `boundary_indices` with
`torch.tensor([len(features)])`, and uses the value-dependent `lengths` in `repeat_interleave`; a static
fullgraph compile fails on the unbacked size (`sym_sum` of `u0 + 1`).

Source: https://github.com/vllm-project/vllm/issues/52662
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "num_tokens"}, "positions": {0: "num_tokens"}}
BLIND = "domains-71"


class SiglipTextTransformer(nn.Module):
    def __init__(self, vocab_size=100, hidden_size=32, max_position_embeddings=64, projection_size=32):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, hidden_size)
        self.position_embedding = nn.Embedding(max_position_embeddings, hidden_size)
        self.encoder = nn.Sequential(nn.Linear(hidden_size, 4 * hidden_size), nn.GELU(),
                                     nn.Linear(4 * hidden_size, hidden_size))
        self.final_layer_norm = nn.LayerNorm(hidden_size)
        self.head = nn.Linear(hidden_size, projection_size)

    def forward(self, input_ids, position_ids):
        hidden_states = self.token_embedding(input_ids) + self.position_embedding(position_ids)
        hidden_states = hidden_states + self.encoder(hidden_states)
        return self.final_layer_norm(hidden_states)


class SiglipEmbeddingModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.text_model = SiglipTextTransformer()

    def get_text_features(self, input_ids, position_ids):
        last_hidden_state = self.text_model(input_ids=input_ids, position_ids=position_ids)
        text_features = self.text_model.head(last_hidden_state)

        # SigLIP uses reversed position_ids;
        # flip sequences to move EOS token to first position
        text_features = self._flip_sequences_by_position_ids(text_features, position_ids)
        return text_features

    def _flip_sequences_by_position_ids(self, features, position_ids):
        if len(features) == 1:
            return features

        # Detect sequence boundaries where position_ids decrease
        position_diffs = position_ids[1:] - position_ids[:-1]
        boundary_mask = position_diffs <= 0

        boundary_indices = torch.cat(
            [
                torch.tensor([0], device=features.device),
                torch.where(boundary_mask)[0] + 1,
                torch.tensor([len(features)], device=features.device),
            ]
        )

        # For each sequence [start, end), position i flips to: start + end - 1 - i
        lengths = boundary_indices[1:] - boundary_indices[:-1]
        starts = boundary_indices[:-1]
        ends = boundary_indices[1:]

        # Assign sequence ID to each element
        sequence_ids = torch.arange(len(lengths), device=features.device).repeat_interleave(lengths)

        # Calculate flipped indices for all positions at once
        current_positions = torch.arange(len(features), device=features.device)
        flip_indices = starts[sequence_ids] + ends[sequence_ids] - 1 - current_positions

        return features[flip_indices]

    def forward(self, input_ids, positions):
        return self.get_text_features(input_ids, positions)


def make_model():
    return SiglipEmbeddingModel().eval()


def _batch(lengths):
    """Requests packed into one flat token batch, positions restarting at 0 for each request."""
    positions = torch.cat([torch.arange(n) for n in lengths])
    input_ids = torch.randint(0, 100, (len(positions),))
    return (input_ids, positions)


def example_inputs():
    return _batch([5, 3, 4])


def other_inputs():
    return [_batch([7, 2, 6, 4]), _batch([3, 6])]


def probe_inputs():
    return other_inputs()
