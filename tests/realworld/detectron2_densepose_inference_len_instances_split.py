"""DensePose (detectron2 project) inference: the chart predictor runs on the ROI features of all
detections, and `densepose_inference` splits each predictor-output field per image with
`n_i = len(detection_i)` / `field_value[k : k + n_i]`; `len()` on the `Instances` turns the number of
detections into a Python int, so the traced/exported model keeps the example's detection count.
The commit ("make densepose inference model traceable") replaces it with `detection_i.__len__()`.

Source: https://github.com/facebookresearch/detectron2/commit/998c4e15220a0db9f172b1e7ecf376a59b873f1d
"""
from dataclasses import dataclass, fields
from typing import Any, List

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"features": {0: "num_dets"}, "pred_boxes": {0: "num_dets"}, "scores": {0: "num_dets"}}
BLIND = "domains-33"


class Instances:
    """The few lines of detectron2.structures.Instances the inference path uses."""

    def __init__(self, image_size, **kwargs):
        self._image_size = image_size
        self._fields = {}
        for k, v in kwargs.items():
            self.set(k, v)

    def __setattr__(self, name, val):
        if name.startswith("_"):
            super().__setattr__(name, val)
        else:
            self.set(name, val)

    def __getattr__(self, name):
        if name == "_fields" or name not in self._fields:
            raise AttributeError("Cannot find field '{}' in the given Instances!".format(name))
        return self._fields[name]

    def set(self, name, value):
        self._fields[name] = value

    def __len__(self) -> int:
        for v in self._fields.values():
            # use __len__ because len() has to be int and is not friendly to tracing
            return v.__len__()
        raise NotImplementedError("Empty Instances does not support __len__!")


@dataclass
class DensePoseChartPredictorOutput:
    coarse_segm: torch.Tensor
    fine_segm: torch.Tensor
    u: torch.Tensor
    v: torch.Tensor


def densepose_inference(densepose_predictor_output: Any, detections: List[Instances]) -> None:
    k = 0
    for detection_i in detections:
        if densepose_predictor_output is None:
            # don't add `pred_densepose` attribute
            continue
        n_i = len(detection_i)
        PredictorOutput = type(densepose_predictor_output)
        output_i_dict = {}
        # we assume here that `densepose_predictor_output` is a dataclass object
        for field in fields(densepose_predictor_output):
            field_value = getattr(densepose_predictor_output, field.name)
            # slice tensors
            if isinstance(field_value, torch.Tensor):
                output_i_dict[field.name] = field_value[k : k + n_i]
            # leave others as is
            else:
                output_i_dict[field.name] = field_value
        detection_i.pred_densepose = PredictorOutput(**output_i_dict)
        k += n_i


class DensePoseChartPredictor(nn.Module):
    def __init__(self, dim_in=32, n_segm_chan=2, n_parts=25):
        super().__init__()
        self.ann_index_lowres = nn.ConvTranspose2d(dim_in, n_segm_chan, 4, stride=2, padding=1)
        self.index_uv_lowres = nn.ConvTranspose2d(dim_in, n_parts, 4, stride=2, padding=1)
        self.u_lowres = nn.ConvTranspose2d(dim_in, n_parts, 4, stride=2, padding=1)
        self.v_lowres = nn.ConvTranspose2d(dim_in, n_parts, 4, stride=2, padding=1)

    def forward(self, head_outputs):
        return DensePoseChartPredictorOutput(
            coarse_segm=self.ann_index_lowres(head_outputs),
            fine_segm=self.index_uv_lowres(head_outputs),
            u=self.u_lowres(head_outputs),
            v=self.v_lowres(head_outputs),
        )


class DensePoseROIHeadInference(nn.Module):
    def __init__(self, dim_in=16, hidden=32):
        super().__init__()
        self.densepose_head = nn.Sequential(
            nn.Conv2d(dim_in, hidden, 3, padding=1), nn.ReLU(),
            nn.Conv2d(hidden, hidden, 3, padding=1), nn.ReLU(),
        )
        self.densepose_predictor = DensePoseChartPredictor(hidden)

    def forward(self, features, pred_boxes, scores):
        # features: ROI-pooled features of the detections of one image, (num_dets, C, 14, 14)
        instances = Instances((480, 640), pred_boxes=pred_boxes, scores=scores)
        densepose_head_outputs = self.densepose_head(features)
        densepose_predictor_outputs = self.densepose_predictor(densepose_head_outputs)
        densepose_inference(densepose_predictor_outputs, [instances])
        out = instances.pred_densepose
        return out.coarse_segm, out.fine_segm, out.u, out.v


def make_model():
    return DensePoseROIHeadInference().eval()


def _inputs(n):
    return (torch.randn(n, 16, 14, 14), torch.rand(n, 4) * 400, torch.rand(n))


def example_inputs():
    return _inputs(3)


def other_inputs():
    return [_inputs(5), _inputs(2)]


def probe_inputs():
    return other_inputs()
