"""Gemma 3n text decoder MLP: `Gemma3nTextMLP._gaussian_topk` (activation sparsity on the first layers) computes its
cutoff with `torch.distributions.normal.Normal(0, 1).icdf(target_sparsity_tensor)` inside forward, i.e. `aten::erfinv`
on a tensor built in the forward pass; the export of the text decoder does not work until the multiplier is
pre-computed in `__init__` (the exporter has no erfinv).

Source: https://github.com/maceip/gemma3n-executorch
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "operators-20"


class Gemma3nTextMLP(nn.Module):
    def __init__(self, hidden_size=64, intermediate_size=256, activation_sparsity=0.95):
        super().__init__()
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.gate_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.up_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.down_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=False)
        self.act_fn = nn.GELU(approximate="tanh")
        self.activation_sparsity = activation_sparsity

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        gate_proj = self.gate_proj(hidden_states)
        if self.activation_sparsity > 0.0:
            gate_proj = self._gaussian_topk(gate_proj)
        activations = self.act_fn(gate_proj)
        up_proj = self.up_proj(hidden_states)
        down_proj = self.down_proj(activations * up_proj)
        return down_proj

    def _gaussian_topk(self, inputs: torch.Tensor) -> torch.Tensor:
        target_sparsity_tensor = torch.tensor(self.activation_sparsity, dtype=torch.float32, device=inputs.device)
        # normal_dist and std_multiplier are adapted from jax.scipy.stats.norm.ppf().
        normal_dist = torch.distributions.normal.Normal(0, 1)
        std_multiplier: torch.Tensor = normal_dist.icdf(target_sparsity_tensor)
        std_multiplier = std_multiplier.type(inputs.dtype)
        inputs_mean = torch.mean(inputs, dim=-1, keepdim=True)
        inputs_std = torch.std(inputs, dim=-1, keepdim=True, unbiased=False)
        cutoff_x = inputs_mean + inputs_std * std_multiplier
        return nn.functional.relu(inputs - cutoff_x)


class DecoderLayerFFN(nn.Module):
    """The pre-norm residual feed-forward part of a Gemma 3n decoder layer with a sparse MLP."""

    def __init__(self, hidden_size=64):
        super().__init__()
        self.pre_feedforward_layernorm = nn.LayerNorm(hidden_size)
        self.mlp = Gemma3nTextMLP(hidden_size=hidden_size)

    def forward(self, hidden_states):
        return hidden_states + self.mlp(self.pre_feedforward_layernorm(hidden_states))


def make_model():
    return DecoderLayerFFN().eval()


def example_inputs():
    return (torch.randn(2, 7, 64),)


def other_inputs():
    return [(torch.randn(3, 11, 64),), (torch.randn(1, 4, 64),)]


def probe_inputs():
    return other_inputs()
