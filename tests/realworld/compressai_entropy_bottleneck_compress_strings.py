"""CompressAI learned image codec (bmshj2018-factorized style): the user exports the encoder side,
`g_a` followed by `entropy_bottleneck.compress`, which quantizes the latent to symbols, walks the batch
with `.tolist()` and hands them to the entropy coder, returning a list of byte strings (plus the latent
shape); the ONNX export fails with "'utf-8' codec can't decode byte ..." because the outputs are bytes.
(The C++ rANS coder is replaced by a tiny pure-Python stand-in that also returns bytes; g_a trimmed.)

Source: https://github.com/InterDigitalInc/CompressAI/issues/287
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "outputs"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-10"


class _RansEncoderStandIn:
    """Stand-in for compressai.ans.RansEncoder: packs each symbol (shifted by its offset) into a byte."""

    def encode_with_indexes(self, symbols, indexes, cdfs, cdf_lengths, offsets):
        out = bytearray()
        for s, i in zip(symbols, indexes):
            v = s - offsets[i]
            v = min(max(v, 0), cdf_lengths[i] - 2)
            out.append(v & 0xFF)
        return bytes(out)


class EntropyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.entropy_coder = _RansEncoderStandIn()
        self.register_buffer("_offset", torch.IntTensor())
        self.register_buffer("_quantized_cdf", torch.IntTensor())
        self.register_buffer("_cdf_length", torch.IntTensor())

    def quantize(self, inputs: Tensor, mode: str, means=None) -> Tensor:
        outputs = inputs.clone()
        if means is not None:
            outputs -= means
        outputs = torch.round(outputs)
        if mode == "dequantize":
            if means is not None:
                outputs += means
            return outputs
        assert mode == "symbols", mode
        outputs = outputs.int()
        return outputs

    def compress(self, inputs, indexes, means=None):
        symbols = self.quantize(inputs, "symbols", means)
        if len(inputs.size()) < 2:
            raise ValueError("Invalid `inputs` size. Expected a tensor with at least 2 dimensions.")
        if inputs.size() != indexes.size():
            raise ValueError("`inputs` and `indexes` should have the same size.")
        strings = []
        for i in range(symbols.size(0)):
            rv = self.entropy_coder.encode_with_indexes(
                symbols[i].reshape(-1).int().tolist(),
                indexes[i].reshape(-1).int().tolist(),
                self._quantized_cdf.tolist(),
                self._cdf_length.reshape(-1).int().tolist(),
                self._offset.reshape(-1).int().tolist(),
            )
            strings.append(rv)
        return strings


class EntropyBottleneck(EntropyModel):
    def __init__(self, channels, init_scale=10.0):
        super().__init__()
        self.channels = int(channels)
        self.quantiles = nn.Parameter(torch.Tensor([-init_scale, 0, init_scale]).repeat(channels, 1, 1))

    def _get_medians(self) -> Tensor:
        return self.quantiles[:, :, 1:2]

    def update(self):
        medians = self.quantiles[:, 0, 1]
        minima = torch.clamp(torch.ceil(medians - self.quantiles[:, 0, 0]).int(), min=0)
        maxima = torch.clamp(torch.ceil(self.quantiles[:, 0, 2] - medians).int(), min=0)
        self._offset = -minima
        pmf_length = maxima + minima + 1
        self._quantized_cdf = torch.zeros(self.channels, int(pmf_length.max()) + 2, dtype=torch.int32)
        self._cdf_length = pmf_length + 2

    @staticmethod
    def _build_indexes(size):
        dims = len(size)
        N = size[0]
        C = size[1]
        view_dims = np.ones((dims,), dtype=np.int64)
        view_dims[1] = -1
        indexes = torch.arange(C).view(*view_dims)
        indexes = indexes.int()
        return indexes.repeat(N, 1, *size[2:])

    @staticmethod
    def _extend_ndims(tensor, n):
        return tensor.reshape(-1, *([1] * n)) if n > 0 else tensor.reshape(-1)

    def compress(self, x):
        indexes = self._build_indexes(x.size())
        medians = self._get_medians().detach()
        spatial_dims = len(x.size()) - 2
        medians = self._extend_ndims(medians, spatial_dims)
        medians = medians.expand(x.size(0), *([-1] * (spatial_dims + 1)))
        return super().compress(x, indexes, medians)


class FactorizedPriorEncoder(nn.Module):
    def __init__(self, N=8, M=8):
        super().__init__()
        self.g_a = nn.Sequential(
            nn.Conv2d(3, N, 5, 2, 2), nn.ReLU(),
            nn.Conv2d(N, M, 5, 2, 2),
        )
        self.entropy_bottleneck = EntropyBottleneck(M)

    def forward(self, x):
        y = self.g_a(x)
        y_strings = self.entropy_bottleneck.compress(y)
        return {"strings": [y_strings], "shape": y.size()[-2:]}


def make_model():
    model = FactorizedPriorEncoder().eval()
    model.entropy_bottleneck.update()
    return model


def example_inputs():
    return (torch.randn(1, 3, 16, 16),)


def other_inputs():
    return [(torch.randn(2, 3, 24, 16),), (torch.randn(3, 3, 8, 12),)]


def probe_inputs():
    return other_inputs()
