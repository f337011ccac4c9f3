"""X-MOD (multilingual RoBERTa with per-language adapters): `XmodOutput.lang_adapter` groups consecutive samples with
`torch.unique_consecutive(lang_ids, return_counts=True)`, splits the batch with
`torch.split(hidden_states, lang_lengths.tolist(), 0)` and picks each run's adapter by
`list(self.adapter_modules.keys())[int(lang_id.item())]`. The transformers exporters listed `xmod` as unsupported:
"XmodOutput.lang_adapter is data-dependent". (One X-MOD layer's feed-forward + language-adapter block; attention cut.)

Source: https://github.com/huggingface/transformers/blob/eaae363771813ff2d5eaf4ac2fcfd51bb157fb98/src/transformers/exporters/utils.py
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}, "lang_ids": {0: "batch"}}
BLIND = "domains-54"


class XmodConfig:
    hidden_size = 16
    intermediate_size = 32
    layer_norm_eps = 1e-12
    hidden_dropout_prob = 0.0
    hidden_act = "gelu"
    adapter_reduction_factor = 2
    adapter_layer_norm = False
    adapter_reuse_layer_norm = True
    ln_before_adapter = True
    pre_norm = False
    languages = ("en_XX", "de_DE", "fr_XX")


class XmodIntermediate(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
        self.intermediate_act_fn = nn.GELU()

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        hidden_states = self.dense(hidden_states)
        hidden_states = self.intermediate_act_fn(hidden_states)
        return hidden_states


class XmodAdapter(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.bottleneck_size = config.hidden_size // config.adapter_reduction_factor
        self.dense1 = nn.Linear(config.hidden_size, self.bottleneck_size)
        self.dense2 = nn.Linear(self.bottleneck_size, config.hidden_size)
        self.adapter_act_fn = nn.GELU()

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        hidden_states = self.dense1(hidden_states)
        hidden_states = self.adapter_act_fn(hidden_states)
        hidden_states = self.dense2(hidden_states)
        return hidden_states


class XmodOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.ln_before_adapter = config.ln_before_adapter
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        if config.adapter_layer_norm:
            self.adapter_layer_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        else:
            self.adapter_layer_norm = None
        self.adapter_reuse_layer_norm = config.adapter_reuse_layer_norm
        self.adapter_modules = nn.ModuleDict({})
        for language in config.languages:
            self.adapter_modules[str(language)] = XmodAdapter(config)

    def forward(self, hidden_states: torch.Tensor, input_tensor: torch.Tensor, lang_ids: torch.Tensor) -> torch.Tensor:
        hidden_states = self.dense(hidden_states)
        hidden_states = self.dropout(hidden_states)
        hidden_states = hidden_states + input_tensor
        hidden_states = self.lang_adapter(lang_ids, hidden_states)
        return hidden_states

    def lang_adapter(self, lang_ids: torch.Tensor, hidden_states: torch.Tensor):
        # Process subsequent samples with the same lang_id in parallel
        lang_ids, lang_lengths = torch.unique_consecutive(lang_ids, return_counts=True)

        if not self.ln_before_adapter:
            residual = hidden_states

        if self.adapter_layer_norm is not None:
            hidden_states = self.adapter_layer_norm(hidden_states)
        elif self.adapter_reuse_layer_norm:
            hidden_states = self.LayerNorm(hidden_states)

        if self.ln_before_adapter:
            residual = hidden_states

        split_hidden_states = torch.split(hidden_states, lang_lengths.tolist(), 0)
        lang_wise_outputs = []
        for i, (lang_id, split_hidden_state) in enumerate(zip(lang_ids, split_hidden_states)):
            lang = list(self.adapter_modules.keys())[int(lang_id.item())]
            lang_wise_outputs.append(self.adapter_modules[lang](split_hidden_state))
        hidden_states = torch.cat(lang_wise_outputs, 0)

        hidden_states = self.dropout(hidden_states)
        hidden_states += residual
        return hidden_states


class XmodFeedForwardBlock(nn.Module):
    """The feed-forward half of `XmodLayer` (post-attention), as `XmodLayer.forward` runs it."""

    def __init__(self, config=XmodConfig()):
        super().__init__()
        self.intermediate = XmodIntermediate(config)
        self.output = XmodOutput(config)
        self.pre_norm = config.pre_norm

    def forward(self, hidden_states, lang_ids):
        attention_output = hidden_states
        residual = attention_output
        if self.pre_norm:
            attention_output = self.output.LayerNorm(attention_output)
        intermediate_output = self.intermediate(attention_output)
        layer_output = self.output(intermediate_output, residual, lang_ids)
        if not self.pre_norm:
            layer_output = self.output.LayerNorm(layer_output)
        return layer_output


def make_model():
    return XmodFeedForwardBlock().eval()


def example_inputs():
    return (torch.randn(3, 6, 16), torch.tensor([0, 0, 1]))


def other_inputs():
    return [
        (torch.randn(4, 9, 16), torch.tensor([2, 1, 1, 0])),
        (torch.randn(2, 4, 16), torch.tensor([1, 1])),
    ]


def probe_inputs():
    return other_inputs()
