"""HuggingFace FNet layer: the token-mixing sublayer replaces attention by a 2-D DFT over the sequence and
hidden axes, `partial(torch.fft.fftn, dim=(1, 2))(hidden_states).real`, followed by the usual
LayerNorm/feed-forward blocks. The report (adding FNet to optimum's ONNX exporter) fails its export
tests: the TorchScript exporter has no symbolic for `aten::fft_fftn`.

Source: https://github.com/huggingface/optimum/pull/802
"""
from functools import partial

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "operators-15"


class FNetBasicFourierTransform(nn.Module):
    def __init__(self, config):
        super().__init__()
        self._init_fourier_transform(config)

    def _init_fourier_transform(self, config):
        # use_tpu_fourier_optimizations is False by default
        self.fourier_transform = partial(torch.fft.fftn, dim=(1, 2))

    def forward(self, hidden_states):
        outputs = self.fourier_transform(hidden_states).real
        return (outputs,)


class FNetBasicOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.LayerNorm = nn.LayerNorm(config["hidden_size"], eps=config["layer_norm_eps"])

    def forward(self, hidden_states, input_tensor):
        hidden_states = self.LayerNorm(input_tensor + hidden_states)
        return hidden_states


class FNetFourierTransform(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self = FNetBasicFourierTransform(config)
        self.output = FNetBasicOutput(config)

    def forward(self, hidden_states):
        self_outputs = self.self(hidden_states)
        fourier_output = self.output(self_outputs[0], hidden_states)
        outputs = (fourier_output,)
        return outputs


class FNetLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.fourier = FNetFourierTransform(config)
        self.intermediate = nn.Linear(config["hidden_size"], config["intermediate_size"])
        self.intermediate_act_fn = nn.GELU(approximate="tanh")  # hidden_act="gelu_new"
        self.dense = nn.Linear(config["intermediate_size"], config["hidden_size"])
        self.LayerNorm = nn.LayerNorm(config["hidden_size"], eps=config["layer_norm_eps"])

    def forward(self, hidden_states):
        self_fourier_outputs = self.fourier(hidden_states)
        fourier_output = self_fourier_outputs[0]
        intermediate_output = self.intermediate_act_fn(self.intermediate(fourier_output))
        layer_output = self.LayerNorm(self.dense(intermediate_output) + fourier_output)
        return layer_output


def make_model():
    config = {"hidden_size": 32, "intermediate_size": 64, "layer_norm_eps": 1e-12}
    return FNetLayer(config).eval()


def example_inputs():
    return (torch.randn(2, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 20, 32),), (torch.randn(1, 9, 32),)]


def probe_inputs():
    return other_inputs()
