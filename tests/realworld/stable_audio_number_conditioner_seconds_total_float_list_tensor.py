"""Stable Audio Open (stable-audio-tools) `seconds_total` NumberConditioner: its forward casts the input
to a Python list (`floats = [float(x) for x in floats]`) and rebuilds it with `torch.tensor(floats)`
before clamping, normalizing and embedding it with learned Fourier features. Arm's audiogen export script
exports the conditioners to ONNX with `seconds_total` as a tensor input and has to swap this module for an
`ExportableNumberConditioner` that clamps the tensor directly, since the list round-trip turns the
user's value into a constant of the graph.

Source: https://github.com/ARM-software/ML-examples/blob/d7fd38697af6807f2595ef90ee4e882732d726f5/kleidiai-examples/audiogen/scripts/export_conditioners.py
"""
import typing as tp
from math import pi

import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"seconds_total": {0: "batch"}}
BLIND = "domains-86"


class LearnedPositionalEmbedding(nn.Module):
    """Used for continuous time"""

    def __init__(self, dim: int):
        super().__init__()
        assert (dim % 2) == 0
        half_dim = dim // 2
        self.weights = nn.Parameter(torch.randn(half_dim))

    def forward(self, x):
        x = x.reshape(-1, 1)  # rearrange(x, "b -> b 1")
        freqs = x * self.weights.reshape(1, -1) * 2 * pi  # rearrange(self.weights, "d -> 1 d")
        fouriered = torch.cat((freqs.sin(), freqs.cos()), dim=-1)
        fouriered = torch.cat((x, fouriered), dim=-1)
        return fouriered


def TimePositionalEmbedding(dim: int, out_features: int) -> nn.Module:
    return nn.Sequential(
        LearnedPositionalEmbedding(dim),
        nn.Linear(in_features=dim + 1, out_features=out_features),
    )


class NumberEmbedder(nn.Module):
    def __init__(self, features: int, dim: int = 256):
        super().__init__()
        self.features = features
        self.embedding = TimePositionalEmbedding(dim=dim, out_features=features)

    def forward(self, x):
        if not torch.is_tensor(x):
            device = next(self.embedding.parameters()).device
            x = torch.tensor(x, device=device)
        assert isinstance(x, torch.Tensor)
        shape = x.shape
        x = x.reshape(-1)  # rearrange(x, "... -> (...)")
        embedding = self.embedding(x)
        x = embedding.view(*shape, self.features)
        return x


class NumberConditioner(nn.Module):
    '''
        Conditioner that takes a list of floats, normalizes them for a given range, and returns a list of embeddings
    '''
    def __init__(self, output_dim: int, min_val: float = 0, max_val: float = 1):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.embedder = NumberEmbedder(features=output_dim)

    def forward(self, floats: tp.List[float], device=None) -> tp.Any:
        # Cast the inputs to floats
        floats = [float(x) for x in floats]
        floats = torch.tensor(floats).to(device)
        floats = floats.clamp(self.min_val, self.max_val)
        normalized_floats = (floats - self.min_val) / (self.max_val - self.min_val)
        # Cast floats to same type as embedder
        embedder_dtype = next(self.embedder.parameters()).dtype
        normalized_floats = normalized_floats.to(embedder_dtype)
        float_embeds = self.embedder(normalized_floats).unsqueeze(1)
        return [float_embeds, torch.ones(float_embeds.shape[0], 1).to(device)]


class SecondsTotalConditioners(nn.Module):
    def __init__(self, cond_dim=64):
        super().__init__()
        self.seconds_total = NumberConditioner(cond_dim, min_val=0, max_val=256)

    def forward(self, seconds_total):
        seconds_total_embedding, seconds_total_mask = self.seconds_total(seconds_total, device=seconds_total.device)
        global_cond = torch.cat([seconds_total_embedding], dim=-1).squeeze(1)
        return seconds_total_embedding, seconds_total_mask, global_cond


def make_model():
    return SecondsTotalConditioners().eval()


def example_inputs():
    return (torch.tensor([10.0, 30.0]),)


def other_inputs():
    return [(torch.tensor([47.0, 5.5, 120.0]),), (torch.tensor([11.0]),)]


def probe_inputs():
    return other_inputs()
