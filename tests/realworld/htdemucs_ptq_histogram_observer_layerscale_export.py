"""HTDemucs post-training quantization: the model is prepared with FX graph mode PTQ (x86 qconfig, whose
activation observer is HistogramObserver), calibrated, and then handed to torch.export.export; export fails
inside the observer inserted on the cross-transformer's LayerScale (`activation_post_process_361(
crosstransformer_layers_0_gamma_1_scale)`) with "Could not guard on data-dependent expression Eq(u0, 1)" from
the HistogramObserver's value checks ("seems ptq HistogramObserver can't export").

Source: https://github.com/pytorch/pytorch/issues/157355
"""
import torch
from torch import nn
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import prepare_fx

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "freq_frames"}, "xt": {0: "batch", 1: "time_frames"}}
BLIND = "domains-31"


class LayerScale(nn.Module):
    """Layer scale from [Touvron et al 2021] (https://arxiv.org/pdf/2103.17239.pdf), as in demucs/transformer.py."""

    def __init__(self, channels: int, init: float = 0, channel_last=True):
        super().__init__()
        self.channel_last = channel_last
        self.scale = nn.Parameter(torch.zeros(channels, requires_grad=True))
        self.scale.data[:] = init

    def forward(self, x):
        if self.channel_last:
            return self.scale * x
        else:
            return self.scale[:, None] * x


class CrossTransformerEncoderLayer(nn.Module):
    def __init__(self, d_model=32, nhead=4, dim_feedforward=64, layer_scale=True):
        super().__init__()
        self.cross_attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.linear1 = nn.Linear(d_model, dim_feedforward)
        self.linear2 = nn.Linear(dim_feedforward, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.gamma_1 = LayerScale(d_model, 1e-4) if layer_scale else nn.Identity()
        self.gamma_2 = LayerScale(d_model, 1e-4) if layer_scale else nn.Identity()
        self.activation = nn.GELU()

    def _ca_block(self, q, k):
        x = self.cross_attn(q, k, k, need_weights=False)[0]
        return x

    def _ff_block(self, x):
        return self.linear2(self.activation(self.linear1(x)))

    def forward(self, q, k):
        x = q
        x = x + self.gamma_1(self._ca_block(self.norm1(q), self.norm2(k)))
        x = x + self.gamma_2(self._ff_block(self.norm3(x)))
        return x


class CrossTransformer(nn.Module):
    def __init__(self, d_model=32):
        super().__init__()
        self.layers = nn.ModuleList([CrossTransformerEncoderLayer(d_model)])
        self.layers_t = nn.ModuleList([CrossTransformerEncoderLayer(d_model)])

    def forward(self, x, xt):
        x_out = self.layers[0](x, xt)
        xt_out = self.layers_t[0](xt, x)
        return x_out, xt_out


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.crosstransformer = CrossTransformer(32)

    def forward(self, x, xt):
        return self.crosstransformer(x, xt)


def make_model():
    model = Model().eval()
    example = example_inputs()
    m_ptq = prepare_fx(model, get_default_qconfig_mapping("x86"), example)
    with torch.no_grad():
        for _ in range(2):  # calibration
            m_ptq(torch.randn(2, 12, 32), torch.randn(2, 18, 32))
    return m_ptq


def example_inputs():
    return (torch.randn(2, 12, 32), torch.randn(2, 18, 32))


def other_inputs():
    return [(torch.randn(3, 20, 32), torch.randn(3, 26, 32)), (torch.randn(1, 7, 32), torch.randn(1, 11, 32))]


def probe_inputs():
    return other_inputs()
