"""LeRobot-style ACT policy (geti-action / physical-ai-studio) normalizes observations and
denormalizes actions with FeatureNormalizeTransform, whose `check_inf` does
`if not is_tracing and torch.isinf(t).any(): raise ValueError(...)` on the mean/std buffers before every
use; the guard only skipped TorchScript tracing, so torch.export / the dynamo ONNX export hit a Python
branch on a tensor value, and the ACT export PR had to also skip it under `torch.compiler.is_compiling()`.

Source: https://github.com/open-edge-platform/physical-ai-studio/pull/104
"""
from dataclasses import dataclass
from enum import Enum

import numpy as np
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"state": {0: "batch"}}
BLIND = "domains-36"

ACTION = "action"
STATE = "observation.state"


class FeatureType(str, Enum):
    STATE = "STATE"
    ACTION = "ACTION"


class NormalizationType(str, Enum):
    MIN_MAX = "MIN_MAX"
    MEAN_STD = "MEAN_STD"
    IDENTITY = "IDENTITY"


@dataclass
class NormalizationParameters:
    mean: np.ndarray = None
    std: np.ndarray = None
    min: np.ndarray = None
    max: np.ndarray = None


@dataclass
class Feature:
    ftype: FeatureType
    shape: tuple
    normalization_data: NormalizationParameters


class FeatureNormalizeTransform(nn.Module):
    def __init__(self, features, norm_map, *, inverse=False):
        super().__init__()
        self._features = features
        self._norm_map = norm_map
        self._inverse = inverse
        for key, ft in features.items():
            norm_mode = norm_map.get(ft.ftype, NormalizationType.IDENTITY)
            if norm_mode is NormalizationType.MEAN_STD:
                buffer = nn.ParameterDict({
                    "mean": nn.Parameter(torch.from_numpy(ft.normalization_data.mean).float(), requires_grad=False),
                    "std": nn.Parameter(torch.from_numpy(ft.normalization_data.std).float(), requires_grad=False),
                })
            elif norm_mode is NormalizationType.MIN_MAX:
                buffer = nn.ParameterDict({
                    "min": nn.Parameter(torch.from_numpy(ft.normalization_data.min).float(), requires_grad=False),
                    "max": nn.Parameter(torch.from_numpy(ft.normalization_data.max).float(), requires_grad=False),
                })
            else:
                continue
            setattr(self, "buffer_" + key.replace(".", "_"), buffer)

    def forward(self, batch):
        for raw_name, ft in self._features.items():
            for batch_key in batch:
                if batch_key.endswith("." + raw_name) or batch_key == raw_name:
                    norm_mode = self._norm_map.get(ft.ftype, NormalizationType.IDENTITY)
                    if norm_mode == NormalizationType.IDENTITY:
                        continue
                    buffer = getattr(self, "buffer_" + raw_name.replace(".", "_"))
                    self._apply_normalization(batch, batch_key, norm_mode, buffer, inverse=self._inverse)
        return batch

    @staticmethod
    def _apply_normalization(batch, key, norm_mode, buffer, *, inverse):
        def check_inf(t: torch.Tensor, name: str = "") -> None:
            is_tracing = torch.jit.is_scripting() or torch.jit.is_tracing()
            if not is_tracing and torch.isinf(t).any():
                msg = (
                    f"Normalization buffer '{name}' is infinity. You should either initialize "
                    "model with correct features stats, or use a pretrained model."
                )
                raise ValueError(
                    msg,
                )

        if batch[key] is None:
            return

        if norm_mode == NormalizationType.MEAN_STD:
            mean = buffer["mean"]
            std = buffer["std"]
            check_inf(mean, "mean")
            check_inf(std, "std")
            if inverse:
                batch[key] = batch[key] * std + mean
            else:
                batch[key] = (batch[key] - mean) / (std + 1e-8)
        elif norm_mode == NormalizationType.MIN_MAX:
            min_ = buffer["min"]
            max_ = buffer["max"]
            check_inf(min_, "min")
            check_inf(max_, "max")
            if inverse:
                batch[key] = (batch[key] + 1) / 2
                batch[key] = batch[key] * (max_ - min_) + min_
            else:
                batch[key] = (batch[key] - min_) / (max_ - min_ + 1e-8)
                batch[key] = batch[key] * 2 - 1
        else:
            raise ValueError(norm_mode)


class ACT(nn.Module):
    """Tiny stand-in for the ACT transformer: state -> chunk of actions."""

    def __init__(self, state_dim=6, action_dim=6, chunk_size=10):
        super().__init__()
        self.chunk_size, self.action_dim = chunk_size, action_dim
        self.net = nn.Sequential(nn.Linear(state_dim, 64), nn.ReLU(), nn.Linear(64, chunk_size * action_dim))

    def forward(self, batch):
        actions = self.net(batch[STATE]).view(-1, self.chunk_size, self.action_dim)
        return actions, (None, None)


class ACTModel(nn.Module):
    def __init__(self, state_dim=6, action_dim=6):
        super().__init__()
        rng = np.random.default_rng(0)
        input_features = {STATE: Feature(FeatureType.STATE, (state_dim,), NormalizationParameters(
            mean=rng.normal(size=state_dim), std=rng.uniform(0.5, 2.0, size=state_dim)))}
        output_features = {ACTION: Feature(FeatureType.ACTION, (action_dim,), NormalizationParameters(
            min=-rng.uniform(1, 2, size=action_dim), max=rng.uniform(1, 2, size=action_dim)))}
        norm_map = {FeatureType.STATE: NormalizationType.MEAN_STD, FeatureType.ACTION: NormalizationType.MIN_MAX}
        self._model = ACT(state_dim, action_dim)
        self._input_normalizer = FeatureNormalizeTransform(input_features, norm_map)
        self._output_denormalizer = FeatureNormalizeTransform(output_features, norm_map, inverse=True)

    @torch.no_grad()
    def predict_action_chunk(self, batch):
        batch = self._input_normalizer(batch)
        actions = self._model(batch)[0]  # only select the actions, ignore the latent params
        return self._output_denormalizer({ACTION: actions})[ACTION]

    def forward(self, state):
        return self.predict_action_chunk({STATE: state})


def make_model():
    return ACTModel().eval()


def example_inputs():
    return (torch.randn(2, 6),)


def other_inputs():
    return [(torch.randn(5, 6),), (torch.randn(1, 6),)]


def probe_inputs():
    return other_inputs()
