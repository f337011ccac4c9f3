"""kornia.contrib.FaceDetector (YuNet / YuFaceDetectNet): the detector's postprocess builds the priors with a
Python `_PriorBox` (nested `for i in range(f[0])` loops over feature-map sizes computed with `int(...)` from the
image height/width, then `torch.tensor(anchors)`), filters scores with a boolean mask and runs kornia's NMS, a
`while order.shape[0] > 0:` loop with `if len(keep) > 0:`; the source notes "nms need to be revise since does not
export well to onnx" and kornia's ONNX test exports only `face_detection.model`, leaving this postprocess out.

Source: https://github.com/kornia/kornia/blob/f1eaad9abd7fce2ffe2ef7d2a66612e41c478b91/kornia/contrib/face_detection.py
"""
import math
from typing import Callable, Dict, List, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"image": {2: "height", 3: "width"}}
BLIND = "domains-85"


def nms_kornia(boxes: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    areas = (x2 - x1) * (y2 - y1)

    _, order = scores.sort(descending=True)

    keep = []
    while order.shape[0] > 0:
        i = order[0]
        keep.append(i)
        xx1 = torch.max(x1[i], x1[order[1:]])
        yy1 = torch.max(y1[i], y1[order[1:]])
        xx2 = torch.min(x2[i], x2[order[1:]])
        yy2 = torch.min(y2[i], y2[order[1:]])

        w = torch.clamp(xx2 - xx1, min=0.)
        h = torch.clamp(yy2 - yy1, min=0.)
        inter = w * h
        ovr = inter / (areas[i] + areas[order[1:]] - inter)

        inds = torch.where(ovr <= iou_threshold)[0]
        order = order[inds + 1]

    if len(keep) > 0:
        return torch.stack(keep)
    return torch.tensor(keep)


class ConvDPUnit(nn.Sequential):
    def __init__(self, in_channels, out_channels, withBNRelu=True):
        super().__init__()
        self.add_module("conv1", nn.Conv2d(in_channels, out_channels, 1, 1, 0, bias=True, groups=1))
        self.add_module("conv2", nn.Conv2d(out_channels, out_channels, 3, 1, 1, bias=True, groups=out_channels))
        if withBNRelu:
            self.add_module("bn", nn.BatchNorm2d(out_channels))
            self.add_module("relu", nn.ReLU(inplace=True))


class YuFaceDetectNet(nn.Module):
    """Trimmed: one ConvDPUnit per stage instead of Conv4layerBlocks, 16 channels; same strides and head layout."""

    def __init__(self, ch=16):
        super().__init__()
        self.num_classes = 2
        self.model0 = nn.Sequential(nn.Conv2d(3, ch, 3, 2, 1), nn.BatchNorm2d(ch), nn.ReLU(inplace=True))
        self.model1 = ConvDPUnit(ch, ch)
        self.model3 = ConvDPUnit(ch, ch)
        self.model4 = ConvDPUnit(ch, ch)
        self.model5 = ConvDPUnit(ch, ch)
        self.model6 = ConvDPUnit(ch, ch)
        self.head = nn.Sequential(
            ConvDPUnit(ch, 3 * (14 + 2 + 1), False),
            ConvDPUnit(ch, 2 * (14 + 2 + 1), False),
            ConvDPUnit(ch, 2 * (14 + 2 + 1), False),
            ConvDPUnit(ch, 3 * (14 + 2 + 1), False),
        )

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        detection_sources, head_list = [], []
        x = self.model0(x)
        x = F.max_pool2d(x, 2)
        x = self.model1(x)
        x = F.max_pool2d(x, 2)
        x = self.model3(x)
        detection_sources.append(x)
        x = F.max_pool2d(x, 2)
        x = self.model4(x)
        detection_sources.append(x)
        x = F.max_pool2d(x, 2)
        x = self.model5(x)
        detection_sources.append(x)
        x = F.max_pool2d(x, 2)
        x = self.model6(x)
        detection_sources.append(x)

        for i, h in enumerate(self.head):
            x_tmp = h(detection_sources[i])
            head_list.append(x_tmp.permute(0, 2, 3, 1).contiguous())

        head_data = torch.cat([o.view(o.size(0), -1) for o in head_list], 1)
        head_data = head_data.view(head_data.size(0), -1, 17)

        loc_data, conf_data, iou_data = head_data.split((14, 2, 1), dim=-1)
        loc_data = loc_data.view(-1, 14)
        conf_data = torch.softmax(conf_data.view(-1, self.num_classes), dim=-1)
        iou_data = iou_data.view(-1, 1)
        return {"loc": loc_data, "conf": conf_data, "iou": iou_data}


def _decode(loc: torch.Tensor, priors: torch.Tensor, variances: List[float]) -> torch.Tensor:
    boxes = torch.cat((
        priors[:, 0:2] + loc[:, 0:2] * variances[0] * priors[:, 2:4],
        priors[:, 2:4] * torch.exp(loc[:, 2:4] * variances[1]),
        priors[:, 0:2] + loc[:, 4:6] * variances[0] * priors[:, 2:4],
        priors[:, 0:2] + loc[:, 6:8] * variances[0] * priors[:, 2:4],
        priors[:, 0:2] + loc[:, 8:10] * variances[0] * priors[:, 2:4],
        priors[:, 0:2] + loc[:, 10:12] * variances[0] * priors[:, 2:4],
        priors[:, 0:2] + loc[:, 12:14] * variances[0] * priors[:, 2:4]), 1)
    tmp = boxes[:, 0:2] - boxes[:, 2:4] / 2
    return torch.cat((tmp, boxes[:, 2:4] + tmp, boxes[:, 4:]), dim=-1)


class _PriorBox:
    def __init__(self, min_sizes: List[List[int]], steps: List[int], clip: bool, image_size: Tuple[int, int]) -> None:
        self.min_sizes = min_sizes
        self.steps = steps
        self.clip = clip
        self.image_size = image_size
        self.device: torch.device = torch.device('cpu')
        self.dtype: torch.dtype = torch.float32

        for i in range(4):
            if(self.steps[i] != math.pow(2, (i + 3))):
                raise ValueError("steps must be [8,16,32,64]")

        self.feature_map_2th = [int(int((self.image_size[0] + 1) / 2) / 2),
                                int(int((self.image_size[1] + 1) / 2) / 2)]
        self.feature_map_3th = [int(self.feature_map_2th[0] / 2), int(self.feature_map_2th[1] / 2)]
        self.feature_map_4th = [int(self.feature_map_3th[0] / 2), int(self.feature_map_3th[1] / 2)]
        self.feature_map_5th = [int(self.feature_map_4th[0] / 2), int(self.feature_map_4th[1] / 2)]
        self.feature_map_6th = [int(self.feature_map_5th[0] / 2), int(self.feature_map_5th[1] / 2)]
        self.feature_maps = [self.feature_map_3th, self.feature_map_4th,
                             self.feature_map_5th, self.feature_map_6th]

    def to(self, device: torch.device, dtype: torch.dtype) -> '_PriorBox':
        self.device = device
        self.dtype = dtype
        return self

    def __call__(self) -> torch.Tensor:
        anchors: List[float] = []
        for k, f in enumerate(self.feature_maps):
            min_sizes: List[int] = self.min_sizes[k]
            # NOTE: the nested loop it's to make torchscript happy
            for i in range(f[0]):
                for j in range(f[1]):
                    for min_size in min_sizes:
                        s_kx = min_size / self.image_size[1]
                        s_ky = min_size / self.image_size[0]
                        cx = (j + 0.5) * self.steps[k] / self.image_size[1]
                        cy = (i + 0.5) * self.steps[k] / self.image_size[0]
                        anchors += [cx, cy, s_kx, s_ky]
        output = torch.tensor(anchors, device=self.device, dtype=self.dtype).view(-1, 4)
        if self.clip:
            output = output.clamp(max=1, min=0)
        return output


class FaceDetector(nn.Module):
    def __init__(self, top_k: int = 5000, confidence_threshold: float = 0.3,
                 nms_threshold: float = 0.3, keep_top_k: int = 750) -> None:
        super().__init__()
        self.top_k = top_k
        self.confidence_threshold = confidence_threshold
        self.nms_threshold = nms_threshold
        self.keep_top_k = keep_top_k
        self.min_sizes: List[List[int]] = [[10, 16, 24], [32, 48], [64, 96], [128, 192, 256]]
        self.steps: List[int] = [8, 16, 32, 64]
        self.variance: List[float] = [0.1, 0.2]
        self.clip: bool = False
        self.model = YuFaceDetectNet()
        self.nms: Callable = nms_kornia

    def preprocess(self, image: torch.Tensor) -> torch.Tensor:
        return image

    def postprocess(self, data: Dict[str, torch.Tensor], height: int, width: int) -> torch.Tensor:
        loc, conf, iou = data['loc'], data['conf'], data['iou']

        scale = torch.tensor([
            width, height, width, height,
            width, height, width, height,
            width, height, width, height,
            width, height,
        ], device=loc.device, dtype=loc.dtype)  # 14

        priors = _PriorBox(self.min_sizes, self.steps, self.clip, image_size=(height, width))
        priors = priors.to(loc.device, loc.dtype)

        boxes = _decode(loc, priors(), self.variance)  # Nx14
        boxes = boxes * scale

        # clamp here for the compatibility for ONNX
        cls_scores, iou_scores = conf[:, 1], iou[:, 0]
        scores = (cls_scores * iou_scores.clamp(0., 1.)).sqrt()

        # ignore low scores
        inds = (scores > self.confidence_threshold)
        boxes, scores = boxes[inds], scores[inds]

        # keep top-K before NMS
        order = scores.sort(descending=True)[1][:self.top_k]
        boxes, scores = boxes[order], scores[order]

        # performd NMS
        # NOTE: nms need to be revise since does not export well to onnx
        dets = torch.cat((boxes, scores[:, None]), dim=-1)  # Nx15
        keep = self.nms(boxes[:, :4], scores, self.nms_threshold)
        if len(keep) > 0:
            dets = dets[keep, :]

        # keep top-K faster NMS
        return dets[:self.keep_top_k]

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        img = self.preprocess(image)
        out = self.model(img)
        return self.postprocess(out, img.shape[-2], img.shape[-1])


def make_model():
    return FaceDetector().eval()


def example_inputs():
    return (torch.rand(1, 3, 128, 128) * 255,)


def other_inputs():
    return [(torch.rand(1, 3, 192, 128) * 255,), (torch.rand(1, 3, 128, 256) * 255,)]


def probe_inputs():
    return other_inputs()
