"""Qwen3-Omni (thinker text model) exported for OpenVINO through optimum-intel: after each of the first decoder
layers, `_deepstack_process` adds the deepstack visual features at the image-token positions with boolean-mask
indexing (`hidden_states[visual_pos_masks, :] + visual_embeds`, then assigned back). The PR replaces it because
"the data-dependent shape breaks OpenVINO tracing": how many rows the mask selects depends on the mask's values.
(Decoder layers reduced to a pre-norm MLP block; no attention, rotary embedding or KV cache.)

Source: https://github.com/huggingface/optimum-intel/pull/1700
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"inputs_embeds": {0: "batch", 1: "sequence"}, "visual_pos_masks": {0: "batch", 1: "sequence"},
           "deepstack_visual_embeds": {1: "visual_seqlen"}}
BLIND = "domains-35"


class DecoderLayer(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.post_attention_layernorm = nn.LayerNorm(hidden_size)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, 2 * hidden_size), nn.SiLU(),
                                 nn.Linear(2 * hidden_size, hidden_size))

    def forward(self, hidden_states):
        return hidden_states + self.mlp(self.post_attention_layernorm(hidden_states))


class Qwen3OmniMoeThinkerTextModel(nn.Module):
    def __init__(self, hidden_size=32, num_hidden_layers=4):
        super().__init__()
        self.layers = nn.ModuleList([DecoderLayer(hidden_size) for _ in range(num_hidden_layers)])
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, inputs_embeds, visual_pos_masks, deepstack_visual_embeds):
        hidden_states = inputs_embeds

        # decoder layers
        for layer_idx, decoder_layer in enumerate(self.layers):
            layer_outputs = decoder_layer(hidden_states)
            hidden_states = layer_outputs

            # add visual features to the hidden states of first several layers
            if deepstack_visual_embeds is not None and layer_idx in range(len(deepstack_visual_embeds)):
                hidden_states = self._deepstack_process(
                    hidden_states,
                    visual_pos_masks,
                    deepstack_visual_embeds[layer_idx],
                )

        hidden_states = self.norm(hidden_states)
        return hidden_states

    def _deepstack_process(
        self, hidden_states: torch.Tensor, visual_pos_masks: torch.Tensor, visual_embeds: torch.Tensor
    ):
        visual_pos_masks = visual_pos_masks.to(hidden_states.device)
        visual_embeds = visual_embeds.to(hidden_states.device, hidden_states.dtype)
        hidden_states = hidden_states.clone()
        local_this = hidden_states[visual_pos_masks, :] + visual_embeds
        hidden_states[visual_pos_masks, :] = local_this
        return hidden_states


def _inputs(batch, seq_len, image_start, image_tokens):
    visual_pos_masks = torch.zeros(batch, seq_len, dtype=torch.bool)
    visual_pos_masks[:, image_start:image_start + image_tokens] = True
    # (num_deepstack_layers, visual_seqlen, embed_dim)
    deepstack_visual_embeds = torch.randn(3, batch * image_tokens, 32)
    return (torch.randn(batch, seq_len, 32), visual_pos_masks, deepstack_visual_embeds)


def make_model():
    return Qwen3OmniMoeThinkerTextModel().eval()


def example_inputs():
    return _inputs(1, 12, 2, 6)


def other_inputs():
    return [_inputs(2, 20, 3, 9), _inputs(1, 9, 1, 4)]


def probe_inputs():
    return other_inputs()
