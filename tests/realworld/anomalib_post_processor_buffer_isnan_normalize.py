"""Anomalib 2.3 PostProcessor exported with the model: `_normalize` returns early on
`norm_min.isnan() or norm_max.isnan()` and the threshold properties branch on `self._image_threshold.isnan()`,
Python booleans taken from buffer values (TracerWarning "Converting a tensor to a Python boolean" in post_processor).

Source: https://github.com/open-edge-platform/anomalib/issues/3302
"""
from typing import NamedTuple

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-25"


class InferenceBatch(NamedTuple):
    pred_score: torch.Tensor | None = None
    pred_label: torch.Tensor | None = None
    anomaly_map: torch.Tensor | None = None
    pred_mask: torch.Tensor | None = None


class PostProcessor(nn.Module):
    def __init__(self, enable_threshold_matching=True, image_sensitivity=0.5, pixel_sensitivity=0.5):
        super().__init__()
        self.enable_threshold_matching = enable_threshold_matching
        self.image_sensitivity = image_sensitivity
        self.pixel_sensitivity = pixel_sensitivity
        self.register_buffer("_image_threshold", torch.tensor(float("nan")))
        self.register_buffer("_pixel_threshold", torch.tensor(float("nan")))
        self.register_buffer("image_min", torch.tensor(float("nan")))
        self.register_buffer("image_max", torch.tensor(float("nan")))
        self.register_buffer("pixel_min", torch.tensor(float("nan")))
        self.register_buffer("pixel_max", torch.tensor(float("nan")))

    def forward(self, predictions: InferenceBatch) -> InferenceBatch:
        pred_score = predictions.pred_score
        image_sens = torch.tensor(self.image_sensitivity)
        pixel_sens = torch.tensor(self.pixel_sensitivity)
        image_eff_threshold = self._effective_threshold(self.image_threshold, self.image_min, self.image_max, image_sens)
        pixel_eff_threshold = self._effective_threshold(self.pixel_threshold, self.pixel_min, self.pixel_max, pixel_sens)
        pred_score = self._normalize(pred_score, self.image_min, self.image_max, image_eff_threshold)
        anomaly_map = self._normalize(predictions.anomaly_map, self.pixel_min, self.pixel_max, pixel_eff_threshold)
        pred_label = self._apply_threshold(pred_score, torch.tensor(0.5))
        pred_mask = self._apply_threshold(anomaly_map, torch.tensor(0.5))
        return InferenceBatch(pred_label=pred_label, pred_score=pred_score, pred_mask=pred_mask, anomaly_map=anomaly_map)

    @staticmethod
    def _effective_threshold(threshold, norm_min, norm_max, sensitivity):
        return threshold + (norm_max - norm_min) * (0.5 - sensitivity.clamp(0.0, 1.0))

    @staticmethod
    def _apply_threshold(preds, threshold):
        if preds is None:
            return preds
        return preds > threshold

    @staticmethod
    def _normalize(preds, norm_min, norm_max, threshold):
        if preds is None or norm_min.isnan() or norm_max.isnan():
            return preds
        if threshold.isnan():
            threshold = (norm_max + norm_min) / 2
        preds = ((preds - threshold) / (norm_max - norm_min)) + 0.5
        return preds.clamp(min=0, max=1)

    @property
    def image_threshold(self) -> torch.Tensor:
        if not self._image_threshold.isnan():
            return self._image_threshold
        return self._pixel_threshold if self.enable_threshold_matching else torch.tensor(float("nan"))

    @property
    def pixel_threshold(self) -> torch.Tensor:
        if not self._pixel_threshold.isnan():
            return self._pixel_threshold
        return self._image_threshold if self.enable_threshold_matching else torch.tensor(float("nan"))


class AnomalyModel(nn.Module):
    """Tiny student/teacher-style anomaly map head followed by the post-processor."""

    def __init__(self):
        super().__init__()
        self.teacher = nn.Conv2d(3, 8, 3, padding=1)
        self.student = nn.Conv2d(3, 8, 3, padding=1)
        self.post_processor = PostProcessor()

    def forward(self, image):
        anomaly_map = (self.teacher(image) - self.student(image)).pow(2).mean(dim=1, keepdim=True)
        pred_score = torch.amax(anomaly_map, dim=(-2, -1))
        return self.post_processor(InferenceBatch(pred_score=pred_score, anomaly_map=anomaly_map))


def make_model():
    model = AnomalyModel().eval()
    pp = model.post_processor
    # values computed on the validation set during training (pixel threshold never computed)
    pp._image_threshold.copy_(torch.tensor(0.6))
    pp.image_min.copy_(torch.tensor(0.05))
    pp.image_max.copy_(torch.tensor(1.5))
    pp.pixel_min.copy_(torch.tensor(0.0))
    pp.pixel_max.copy_(torch.tensor(1.5))
    return model


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 16, 48),)]


def probe_inputs():
    return other_inputs()
