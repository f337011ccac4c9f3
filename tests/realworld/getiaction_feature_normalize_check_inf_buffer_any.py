"""physical-ai-studio (getiaction) ACT policy: `FeatureNormalizeTransform._apply_normalization` calls
`check_inf(mean, "mean")`, which raises when `torch.isinf(t).any()` on the normalization-statistics
parameters (skipped only under `torch.jit.is_tracing()`); the fix "skip during tracing/scripting/export to avoid
data-dependent branching" adds `torch.compiler.is_compiling()` so torch.export / the dynamo ONNX exporter
stop failing on the data-dependent branch. (ACT transformer trimmed to a small MLP head.)

Source: https://github.com/open-edge-platform/physical-ai-studio/commit/5bb953a560b270836f4ebafb44c0d1ce97524831
"""
from dataclasses import dataclass
from enum import Enum

import numpy as np
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"state": {0: "batch"}, "image": {0: "batch"}}
BLIND = "domains-86"


class NormalizationType(str, Enum):
    MIN_MAX = "MIN_MAX"
    MEAN_STD = "MEAN_STD"
    IDENTITY = "IDENTITY"


@dataclass
class Feature:
    ftype: str
    shape: tuple
    normalization_data: dict


class FeatureNormalizeTransform(nn.Module):
    def __init__(self, features, norm_map, *, inverse=False):
        super().__init__()
        self._features = features
        self._norm_map = {str(k): v for k, v in norm_map.items()}
        self._inverse = inverse
        self.buffers_lookup = {}
        for key, ft in features.items():
            shape = (ft.shape[0], 1, 1) if ft.ftype == "VISUAL" else ft.shape
            norm_mode = norm_map[ft.ftype]
            names = ("mean", "std") if norm_mode is NormalizationType.MEAN_STD else ("min", "max")
            buffer = nn.ParameterDict({n: nn.Parameter(torch.ones(shape) * torch.inf, requires_grad=False)
                                       for n in names})
            for n in names:
                buffer[n].data = torch.from_numpy(ft.normalization_data[n]).to(dtype=torch.float32).view(shape)
            setattr(self, "buffer_" + key.replace(".", "_"), buffer)
            self.buffers_lookup[key] = buffer

    def forward(self, batch):
        for raw_name, ft in self._features.items():
            for batch_key in batch:
                if batch_key.endswith("." + raw_name) or batch_key == raw_name:
                    norm_mode = self._norm_map[str(ft.ftype)]
                    buffer = self.buffers_lookup.get(raw_name, nn.ParameterDict())
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


class ACTPolicy(nn.Module):
    def __init__(self, state_dim=6, action_dim=6, chunk_size=10, hidden=32):
        super().__init__()
        rng = np.random.default_rng(0)
        state_ft = Feature("STATE", (state_dim,), {"mean": rng.normal(size=state_dim),
                                                    "std": rng.uniform(0.5, 2.0, size=state_dim)})
        image_ft = Feature("VISUAL", (3, 32, 32), {"mean": np.array([0.485, 0.456, 0.406]),
                                                   "std": np.array([0.229, 0.224, 0.225])})
        action_ft = Feature("ACTION", (action_dim,), {"min": -rng.uniform(1, 2, size=action_dim),
                                                      "max": rng.uniform(1, 2, size=action_dim)})
        self._input_normalizer = FeatureNormalizeTransform(
            {"state": state_ft, "images.top": image_ft},
            {"STATE": NormalizationType.MEAN_STD, "VISUAL": NormalizationType.MEAN_STD})
        self._output_denormalizer = FeatureNormalizeTransform(
            {"action": action_ft}, {"ACTION": NormalizationType.MIN_MAX}, inverse=True)
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Sequential(nn.Linear(8 + state_dim, hidden), nn.ReLU(), nn.Linear(hidden, chunk_size * action_dim))
        self.chunk_size, self.action_dim = chunk_size, action_dim

    def forward(self, state, image):
        batch = self._input_normalizer({"observation.state": state, "observation.images.top": image})
        feat = self.backbone(batch["observation.images.top"]).flatten(1)
        out = self.head(torch.cat([feat, batch["observation.state"]], dim=1))
        actions = torch.tanh(out).view(-1, self.chunk_size, self.action_dim)
        return self._output_denormalizer({"action": actions})["action"]


def make_model():
    return ACTPolicy().eval()


def example_inputs():
    return (torch.randn(2, 6), torch.rand(2, 3, 32, 32))


def other_inputs():
    return [(torch.randn(5, 6), torch.rand(5, 3, 32, 32)), (torch.randn(1, 6), torch.rand(1, 3, 32, 32))]


def probe_inputs():
    return other_inputs()
