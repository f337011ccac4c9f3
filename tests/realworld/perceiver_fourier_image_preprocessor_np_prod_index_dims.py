"""Perceiver IO (vision-perceiver-fourier) image preprocessor: `_build_network_inputs` flattens the pixels with
`indices = np.prod(index_dims)` over `inputs.shape[1:-1]`, and the Fourier position encoding reshapes with
`np.prod(index_dims)` / `np.prod(per_pos_features.shape[1:])` and scales by `np.pi`; tt-forge-models patches
`modeling_perceiver.np` with a math shim because these numpy calls on shapes break torch.compile/dynamo tracing.

Source: https://github.com/tenstorrent/tt-forge-models/pull/565
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-54"


def build_linear_positions(index_dims, output_range=(-1.0, 1.0), device=None):
    def _linspace(n_xels_per_dim):
        return torch.linspace(
            start=output_range[0], end=output_range[1], steps=n_xels_per_dim, dtype=torch.float32, device=device
        )

    dim_ranges = [_linspace(n_xels_per_dim) for n_xels_per_dim in index_dims]
    array_index_grid = torch.meshgrid(*dim_ranges, indexing="ij")

    return torch.stack(array_index_grid, dim=-1)


def generate_fourier_features(pos, num_bands, max_resolution=(224, 224), concat_pos=True, sine_only=False):
    batch_size = pos.shape[0]

    min_freq = 1.0
    # Nyquist frequency at the target resolution:
    freq_bands = torch.stack(
        [torch.linspace(start=min_freq, end=res / 2, steps=num_bands, device=pos.device) for res in max_resolution]
    )

    # Get frequency bands for each spatial dimension.
    # Output is size [n, d * num_bands]
    per_pos_features = pos[0, :, :][:, :, None] * freq_bands[None, :, :]
    per_pos_features = torch.reshape(per_pos_features, [-1, np.prod(per_pos_features.shape[1:])])

    if sine_only:
        per_pos_features = torch.sin(np.pi * (per_pos_features))
    else:
        per_pos_features = torch.cat(
            [torch.sin(np.pi * per_pos_features), torch.cos(np.pi * per_pos_features)], dim=-1
        )
    # Concatenate the raw input positions.
    if concat_pos:
        per_pos_features = torch.cat([pos, per_pos_features.expand(batch_size, -1, -1)], dim=-1)
    return per_pos_features


def _check_or_build_spatial_positions(pos, index_dims, batch_size, device=None):
    if pos is None:
        pos = build_linear_positions(index_dims, device=device)
        # equivalent to `torch.broadcast_to(pos[None], (batch_size,) + pos.shape)`
        # but `torch.broadcast_to` cannot be converted to ONNX
        pos = pos[None].expand((batch_size,) + pos.shape)
        pos = torch.reshape(pos, [batch_size, np.prod(index_dims), -1])
    return pos


class PerceiverFourierPositionEncoding(nn.Module):
    def __init__(self, num_bands, max_resolution, concat_pos=True, sine_only=False):
        super().__init__()
        self.num_bands = num_bands
        self.max_resolution = max_resolution
        self.concat_pos = concat_pos
        self.sine_only = sine_only

    def forward(self, index_dims, batch_size, device, dtype, pos=None):
        pos = _check_or_build_spatial_positions(pos, index_dims, batch_size, device=device)
        fourier_pos_enc = generate_fourier_features(
            pos,
            num_bands=self.num_bands,
            max_resolution=self.max_resolution,
            concat_pos=self.concat_pos,
            sine_only=self.sine_only,
        ).to(dtype=dtype)
        return fourier_pos_enc


class PerceiverImagePreprocessor(nn.Module):
    """prep_type="pixels", spatial_downsample=1, fourier position encoding concatenated (as in the fourier variant)."""

    def __init__(self, num_bands=8, max_resolution=(32, 32), spatial_downsample=1):
        super().__init__()
        self.spatial_downsample = spatial_downsample
        self.position_embeddings = PerceiverFourierPositionEncoding(num_bands, max_resolution)
        self.positions_projection = nn.Identity()

    def _build_network_inputs(self, inputs, network_input_is_1d=True):
        batch_size = inputs.shape[0]
        index_dims = inputs.shape[1:-1]
        indices = np.prod(index_dims)

        # Flatten input features to a 1D index dimension if necessary.
        if len(inputs.shape) > 3 and network_input_is_1d:
            inputs = torch.reshape(inputs, [batch_size, indices, -1])

        pos_enc = self.position_embeddings(index_dims, batch_size, device=inputs.device, dtype=inputs.dtype)
        pos_enc = self.positions_projection(pos_enc)
        inputs_with_pos = torch.cat([inputs, pos_enc], dim=-1)
        return inputs_with_pos, inputs

    def forward(self, inputs):
        if inputs.ndim == 4:
            inputs = inputs[:: self.spatial_downsample, :: self.spatial_downsample]
        # move channels to last dimension, as the _build_network_inputs method below expects this
        inputs = inputs.permute(0, 2, 3, 1)
        inputs, inputs_without_pos = self._build_network_inputs(inputs)
        return inputs


class PerceiverVisionEncoder(nn.Module):
    """Preprocessor + one cross-attention from learned latents (a stand-in for the Perceiver encoder)."""

    def __init__(self, num_latents=16, d_latents=32):
        super().__init__()
        self.input_preprocessor = PerceiverImagePreprocessor()
        in_dim = 3 + 2 + 2 * 2 * 8
        self.latents = nn.Parameter(torch.randn(num_latents, d_latents))
        self.kv = nn.Linear(in_dim, 2 * d_latents)

    def forward(self, inputs):
        x = self.input_preprocessor(inputs)
        k, v = self.kv(x).chunk(2, dim=-1)
        attn = torch.softmax(self.latents @ k.transpose(1, 2) / k.shape[-1] ** 0.5, dim=-1)
        return attn @ v


def make_model():
    return PerceiverVisionEncoder().eval()


def example_inputs():
    return (torch.randn(2, 3, 16, 16),)


def other_inputs():
    return [(torch.randn(3, 3, 24, 20),), (torch.randn(1, 3, 12, 28),)]


def probe_inputs():
    return other_inputs()
