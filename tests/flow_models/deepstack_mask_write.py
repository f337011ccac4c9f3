"""ONX708: Qwen3-Omni's deepstack step adds visual features at the image-token positions through
a boolean mask followed by a full slice (`hidden[mask, :] = hidden[mask, :] + visual[mask]`). The legacy
exporter lays that index_put out with the wrong rank (onnxruntime fails on the Add after it);
`hidden[mask] = ...` is the same write and exports (safe)."""
import torch
from torch import nn


class Deepstack(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Linear(8, 8)

    def forward(self, hidden_states: torch.Tensor, image_tokens: torch.Tensor, visual: torch.Tensor):
        hidden_states = self.mlp(hidden_states)
        visual_pos_masks = image_tokens.bool()
        hidden_states = hidden_states.clone()
        local_this = hidden_states[visual_pos_masks, :] + visual[visual_pos_masks]
        hidden_states[visual_pos_masks, :] = local_this
        return hidden_states


def make_model():
    torch.manual_seed(0)
    return Deepstack()


def _inputs(batch, length, start, count):
    tokens = torch.zeros(batch, length, dtype=torch.int64)
    tokens[:, start:start + count] = 1
    return (torch.randn(batch, length, 8), tokens, torch.randn(batch, length, 8))


def example_inputs():
    return _inputs(2, 7, 1, 3)


def probe_inputs():
    return [_inputs(3, 9, 2, 2), _inputs(1, 5, 0, 4)]


DYNAMIC = {0: {0: "batch", 1: "length"}, 1: {0: "batch", 1: "length"}, 2: {0: "batch", 1: "length"}}
