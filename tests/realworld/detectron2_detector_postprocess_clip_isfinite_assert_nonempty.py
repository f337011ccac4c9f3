"""detectron2's `detector_postprocess` resizes a detector's raw boxes to the output resolution: `Boxes.clip`
first does `assert torch.isfinite(self.tensor).all()` and the results are then filtered with
`results[output_boxes.nonempty()]`; torch.export "can't guard on a data-dependent condition" there (and the
no-op `tensor.to(torch.float32)` in `Boxes.__init__` hits "cannot mutate tensors with frozen storage"), so the
commit skips the assert and the filter when dynamo is compiling.
(RPN-like head reduced to two convs; Instances/Boxes copied from detectron2 with the methods used.)

Source: https://github.com/facebookresearch/detectron2/commit/b4db42186445f455be9326bc3a997f68d1be1ef7
"""
import warnings
from typing import Any, Dict, Tuple

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-52"


class Boxes:
    def __init__(self, tensor: torch.Tensor):
        if not isinstance(tensor, torch.Tensor):
            tensor = torch.as_tensor(tensor, dtype=torch.float32, device=torch.device("cpu"))
        else:
            tensor = tensor.to(torch.float32)
        if tensor.numel() == 0:
            tensor = tensor.reshape((-1, 4)).to(dtype=torch.float32)
        assert tensor.dim() == 2 and tensor.size(-1) == 4, tensor.size()
        self.tensor = tensor

    def clip(self, box_size: Tuple[int, int]) -> None:
        assert torch.isfinite(self.tensor).all(), "Box tensor contains infinite or NaN!"
        h, w = box_size
        x1 = self.tensor[:, 0].clamp(min=0, max=w)
        y1 = self.tensor[:, 1].clamp(min=0, max=h)
        x2 = self.tensor[:, 2].clamp(min=0, max=w)
        y2 = self.tensor[:, 3].clamp(min=0, max=h)
        self.tensor = torch.stack((x1, y1, x2, y2), dim=-1)

    def nonempty(self, threshold: float = 0.0) -> torch.Tensor:
        box = self.tensor
        widths = box[:, 2] - box[:, 0]
        heights = box[:, 3] - box[:, 1]
        keep = (widths > threshold) & (heights > threshold)
        return keep

    def scale(self, scale_x: float, scale_y: float) -> None:
        self.tensor[:, 0::2] *= scale_x
        self.tensor[:, 1::2] *= scale_y

    def __getitem__(self, item) -> "Boxes":
        if isinstance(item, int):
            return Boxes(self.tensor[item].view(1, -1))
        b = self.tensor[item]
        assert b.dim() == 2, "Indexing on Boxes with {} failed to return a matrix!".format(item)
        return Boxes(b)

    def __len__(self) -> int:
        return self.tensor.shape[0]


class Instances:
    def __init__(self, image_size: Tuple[int, int], **kwargs: Any):
        self._image_size = image_size
        self._fields: Dict[str, Any] = {}
        for k, v in kwargs.items():
            self.set(k, v)

    @property
    def image_size(self) -> Tuple[int, int]:
        return self._image_size

    def __setattr__(self, name: str, val: Any) -> None:
        if name.startswith("_"):
            super().__setattr__(name, val)
        else:
            self.set(name, val)

    def __getattr__(self, name: str) -> Any:
        if name == "_fields" or name not in self._fields:
            raise AttributeError("Cannot find field '{}' in the given Instances!".format(name))
        return self._fields[name]

    def set(self, name: str, value: Any) -> None:
        with warnings.catch_warnings(record=True):
            data_len = len(value)
        if len(self._fields):
            assert (
                len(self) == data_len
            ), "Adding a field of length {} to a Instances of length {}".format(data_len, len(self))
        self._fields[name] = value

    def has(self, name: str) -> bool:
        return name in self._fields

    def get_fields(self) -> Dict[str, Any]:
        return self._fields

    def __getitem__(self, item) -> "Instances":
        if type(item) is int:
            if item >= len(self) or item < -len(self):
                raise IndexError("Instances index out of range!")
            else:
                item = slice(item, None, len(self))
        ret = Instances(self._image_size)
        for k, v in self._fields.items():
            ret.set(k, v[item])
        return ret

    def __len__(self) -> int:
        for v in self._fields.values():
            return v.__len__()
        raise NotImplementedError("Empty Instances does not support __len__!")


def detector_postprocess(
    results: Instances, output_height: int, output_width: int, mask_threshold: float = 0.5
):
    if isinstance(output_width, torch.Tensor):
        output_width_tmp = output_width.float()
        output_height_tmp = output_height.float()
        new_size = torch.stack([output_height, output_width])
    else:
        new_size = (output_height, output_width)
        output_width_tmp = output_width
        output_height_tmp = output_height

    scale_x, scale_y = (
        output_width_tmp / results.image_size[1],
        output_height_tmp / results.image_size[0],
    )
    results = Instances(new_size, **results.get_fields())

    if results.has("pred_boxes"):
        output_boxes = results.pred_boxes
    elif results.has("proposal_boxes"):
        output_boxes = results.proposal_boxes
    else:
        output_boxes = None
    assert output_boxes is not None, "Predictions must contain boxes!"

    output_boxes.scale(scale_x, scale_y)
    output_boxes.clip(results.image_size)

    results = results[output_boxes.nonempty()]
    return results


class TinyDetector(nn.Module):
    def __init__(self, stride=8, output_size=(480, 640)):
        super().__init__()
        self.stride = stride
        self.output_size = output_size
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=stride, padding=1), nn.ReLU())
        self.box_head = nn.Conv2d(16, 4, 1)
        self.cls_head = nn.Conv2d(16, 1, 1)

    def forward(self, images):
        h, w = images.shape[-2:]
        feat = self.backbone(images)
        deltas = self.box_head(feat)[0].flatten(1).t()  # (N, 4)
        scores = self.cls_head(feat)[0].flatten().sigmoid()
        ys, xs = torch.meshgrid(torch.arange(feat.shape[2]), torch.arange(feat.shape[3]), indexing="ij")
        ctr = torch.stack([xs.flatten(), ys.flatten()], dim=1).float() * self.stride
        boxes = torch.cat([ctr - deltas[:, :2] * 16, ctr + deltas[:, 2:] * 16], dim=1)
        results = Instances((h, w), pred_boxes=Boxes(boxes), scores=scores)
        r = detector_postprocess(results, self.output_size[0], self.output_size[1])
        return r.pred_boxes.tensor, r.scores


def make_model():
    return TinyDetector().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 80, 72),), (torch.randn(1, 3, 48, 128),)]


def probe_inputs():
    return other_inputs()
