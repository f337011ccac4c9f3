"""Qwen3-TTS talker code predictor (multi-codebook decoding step): each decode call picks its codebook
embedding and output head from ModuleLists with the step counter, `get_input_embeddings()[generation_steps - 1]`
and `self.lm_head[generation_steps]`, and hands `generation_steps + 1` to the next call. Exported with the
step as an int64 tensor input (plus KV cache I/O), the index becomes a Python int fixed at the example's
step; the ONNX export script replaces the ModuleList with stacked weights and `index_select`.

Source: https://github.com/elbruno/ElBruno.QwenTTS/blob/main/python/export_lm.py
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "cross-call"
FAMILY = "indexing"
DYNAMIC = {"input_ids": {0: "batch"}, "past_keys": {1: "batch", 3: "past"},
           "past_values": {1: "batch", 3: "past"}}
BLIND = "domains-35"

NUM_CODE_GROUPS = 6
VOCAB = 64
TALKER_HIDDEN = 48
HIDDEN = 32
HEADS = 4


class CodePredictorModel(nn.Module):
    """Stand-in for the 5-layer code predictor decoder: one self-attention layer with a KV cache."""

    def __init__(self):
        super().__init__()
        self.codec_embedding = nn.ModuleList(
            [nn.Embedding(VOCAB, TALKER_HIDDEN) for _ in range(NUM_CODE_GROUPS - 1)]
        )
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.o_proj = nn.Linear(HIDDEN, HIDDEN)
        self.norm = nn.LayerNorm(HIDDEN)

    def get_input_embeddings(self):
        return self.codec_embedding

    def forward(self, inputs_embeds, past_key, past_value):
        b, s, _ = inputs_embeds.shape
        q, k, v = self.qkv(inputs_embeds).view(b, s, 3, HEADS, HIDDEN // HEADS).permute(2, 0, 3, 1, 4)
        k = torch.cat([past_key, k], dim=2)
        v = torch.cat([past_value, v], dim=2)
        x = F.scaled_dot_product_attention(q, k, v)
        x = self.o_proj(x.transpose(1, 2).reshape(b, s, HIDDEN))
        return self.norm(inputs_embeds + x), k, v


class Qwen3TTSTalkerCodePredictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = CodePredictorModel()
        self.small_to_mtp_projection = nn.Linear(TALKER_HIDDEN, HIDDEN)
        self.lm_head = nn.ModuleList(
            [nn.Linear(HIDDEN, VOCAB, bias=False) for _ in range(NUM_CODE_GROUPS - 1)]
        )

    def forward(self, input_ids, generation_steps, past_keys, past_values, inputs_embeds=None):
        if inputs_embeds is not None and inputs_embeds.shape[1] > 1:
            generation_steps = inputs_embeds.shape[1] - 2
        else:
            inputs_embeds = self.model.get_input_embeddings()[generation_steps - 1](input_ids)
        inputs_embeds = self.small_to_mtp_projection(inputs_embeds)

        hidden_states, present_key, present_value = self.model(inputs_embeds, past_keys[0], past_values[0])
        logits = self.lm_head[generation_steps](hidden_states)
        return logits, present_key[None], present_value[None], generation_steps + 1


def make_model():
    return Qwen3TTSTalkerCodePredictor()


def _inputs(batch, step, past):
    d = HIDDEN // HEADS
    return (
        torch.randint(0, VOCAB, (batch, 1)),
        torch.tensor([step]),
        torch.randn(1, batch, HEADS, past, d),
        torch.randn(1, batch, HEADS, past, d),
    )


def example_inputs():
    return _inputs(2, 2, 3)


def other_inputs():
    return [_inputs(3, 4, 5), _inputs(1, 1, 2), _inputs(2, 3, 4)]


def probe_inputs():
    return other_inputs()
