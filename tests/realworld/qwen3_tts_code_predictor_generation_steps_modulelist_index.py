"""Qwen3-TTS code predictor (the multi-token predictor that writes RVQ code groups 1..15 of each
12.5 Hz codec frame): every code group has its own input embedding and output head, picked with
`self.model.get_input_embeddings()[generation_steps - 1](input_ids)` and
`self.lm_head[generation_steps](hidden_states)`. Exported as one step graph with the step as a tensor
input, the ModuleList index is a tensor value; the export wrapper notes that ONNX cannot index a
ModuleList dynamically and stacks all heads and gathers with `step_idx` instead.

Source: https://github.com/HaujetZhao/Qwen3-TTS-GGUF/blob/2a32e94bc2827d0c86d6709090bc7229d0b4880a/qwen3_tts_gguf/codec_export.py
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"input_ids": {0: "batch"}}
BLIND = "domains-86"


class CodePredictorDecoderLayer(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(hidden_size)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, 2 * hidden_size), nn.SiLU(), nn.Linear(2 * hidden_size, hidden_size))

    def forward(self, hidden_states):
        return hidden_states + self.mlp(self.input_layernorm(hidden_states))


class CodePredictorModel(nn.Module):
    def __init__(self, num_code_groups=16, vocab_size=64, talker_hidden_size=48, hidden_size=32, num_layers=2):
        super().__init__()
        self.codec_embedding = nn.ModuleList(
            [nn.Embedding(vocab_size, talker_hidden_size) for _ in range(num_code_groups - 1)])
        self.layers = nn.ModuleList([CodePredictorDecoderLayer(hidden_size) for _ in range(num_layers)])
        self.norm = nn.LayerNorm(hidden_size)

    def get_input_embeddings(self):
        return self.codec_embedding

    def forward(self, inputs_embeds):
        hidden_states = inputs_embeds
        for layer in self.layers:
            hidden_states = layer(hidden_states)
        return self.norm(hidden_states)


class Qwen3TTSTalkerCodePredictorModelForConditionalGeneration(nn.Module):
    def __init__(self, num_code_groups=16, vocab_size=64, talker_hidden_size=48, hidden_size=32):
        super().__init__()
        self.model = CodePredictorModel(num_code_groups, vocab_size, talker_hidden_size, hidden_size)
        self.lm_head = nn.ModuleList(
            [nn.Linear(hidden_size, vocab_size, bias=False) for _ in range(num_code_groups - 1)])
        self.small_to_mtp_projection = nn.Linear(talker_hidden_size, hidden_size)

    def forward(self, input_ids, generation_steps, inputs_embeds=None):
        # Prefill stage
        if inputs_embeds is not None and inputs_embeds.shape[1] > 1:
            generation_steps = inputs_embeds.shape[1] - 2  # hidden & layer 0
        # Generation stage
        else:
            inputs_embeds = self.model.get_input_embeddings()[generation_steps - 1](input_ids)
        inputs_embeds = self.small_to_mtp_projection(inputs_embeds)

        hidden_states = self.model(inputs_embeds=inputs_embeds)
        logits = self.lm_head[generation_steps](hidden_states)
        return logits


def make_model():
    return Qwen3TTSTalkerCodePredictorModelForConditionalGeneration().eval()


def example_inputs():
    # one generation step: the previous code group's token for each batch row, and the step index
    return (torch.randint(0, 64, (2, 1)), torch.tensor(3))


def other_inputs():
    return [(torch.randint(0, 64, (3, 1)), torch.tensor(7)), (torch.randint(0, 64, (1, 1)), torch.tensor(14))]


def probe_inputs():
    return other_inputs()
