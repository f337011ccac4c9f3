"""detectron2 `ImageList.from_tensors` pads the batch up to a multiple of the backbone's `size_divisibility` with
`max_size = tuple(max(s) for s in zip(*[img.shape ...]))` and `int(math.ceil(max_size[-2] / stride) * stride)`;
the PR reports that this `max_size` is hard-coded in the traced ONNX model because the computation happens outside
PyTorch, so the exported detector (run with onnxruntime, not caffe2) only pads correctly for the export image size.

Source: https://github.com/facebookresearch/detectron2/pull/1208
"""
import math
from typing import Any, List, Sequence, Tuple

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image": {1: "height", 2: "width"}}
BLIND = "domains-7"


class ImageList(object):
    def __init__(self, tensor: torch.Tensor, image_sizes: List[Tuple[int, int]]):
        self.tensor = tensor
        self.image_sizes = image_sizes

    def __len__(self) -> int:
        return len(self.image_sizes)

    def to(self, *args: Any, **kwargs: Any) -> "ImageList":
        cast_tensor = self.tensor.to(*args, **kwargs)
        return ImageList(cast_tensor, self.image_sizes)

    @staticmethod
    def from_tensors(
        tensors: Sequence[torch.Tensor], size_divisibility: int = 0, pad_value: float = 0.0
    ) -> "ImageList":
        assert len(tensors) > 0
        assert isinstance(tensors, (tuple, list))
        for t in tensors:
            assert isinstance(t, torch.Tensor), type(t)
            assert t.shape[1:-2] == tensors[0].shape[1:-2], t.shape
        # per dimension maximum (H, W) or (C_1, ..., C_K, H, W) where K >= 1 among all tensors
        max_size = tuple(max(s) for s in zip(*[img.shape for img in tensors]))

        if size_divisibility > 0:
            stride = size_divisibility
            max_size = list(max_size)  # type: ignore
            max_size[-2] = int(math.ceil(max_size[-2] / stride) * stride)  # type: ignore
            max_size[-1] = int(math.ceil(max_size[-1] / stride) * stride)  # type: ignore
            max_size = tuple(max_size)

        image_sizes = [im.shape[-2:] for im in tensors]

        if len(tensors) == 1:
            # This seems slightly (2%) faster.
            # TODO: check whether it's faster for multiple images as well
            image_size = image_sizes[0]
            padded = F.pad(
                tensors[0],
                [0, max_size[-1] - image_size[1], 0, max_size[-2] - image_size[0]],
                value=pad_value,
            )
            batched_imgs = padded.unsqueeze_(0)
        else:
            batch_shape = (len(tensors),) + max_size
            batched_imgs = tensors[0].new_full(batch_shape, pad_value)
            for img, pad_img in zip(tensors, batched_imgs):
                pad_img[..., : img.shape[-2], : img.shape[-1]].copy_(img)

        return ImageList(batched_imgs.contiguous(), image_sizes)


class TinyFPN(nn.Module):
    """Stand-in for the ResNet-FPN backbone: strides 8/16/32 with a top-down path (needs H, W divisible by 32)."""

    size_divisibility = 32

    def __init__(self, ch=8):
        super().__init__()
        self.c3 = nn.Conv2d(3, ch, kernel_size=8, stride=8)
        self.c4 = nn.Conv2d(ch, ch, kernel_size=2, stride=2)
        self.c5 = nn.Conv2d(ch, ch, kernel_size=2, stride=2)
        self.lateral = nn.Conv2d(ch, ch, kernel_size=1)

    def forward(self, x):
        c3 = self.c3(x)
        c4 = self.c4(c3)
        c5 = self.c5(c4)
        p4 = self.lateral(c4) + F.interpolate(c5, scale_factor=2.0, mode="nearest")
        p3 = self.lateral(c3) + F.interpolate(p4, scale_factor=2.0, mode="nearest")
        return p3


class GeneralizedRCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = TinyFPN()
        self.register_buffer("pixel_mean", torch.tensor([103.530, 116.280, 123.675]).view(-1, 1, 1))
        self.register_buffer("pixel_std", torch.tensor([57.375, 57.120, 58.395]).view(-1, 1, 1))

    def preprocess_image(self, batched_inputs):
        images = [x["image"] for x in batched_inputs]
        images = [(x - self.pixel_mean) / self.pixel_std for x in images]
        images = ImageList.from_tensors(images, self.backbone.size_divisibility)
        return images

    def forward(self, image):
        images = self.preprocess_image([{"image": image}])
        features = self.backbone(images.tensor)
        return features


def make_model():
    return GeneralizedRCNN().eval()


def example_inputs():
    return (torch.rand(3, 200, 300) * 255,)


def other_inputs():
    return [(torch.rand(3, 150, 260) * 255,), (torch.rand(3, 333, 170) * 255,)]


def probe_inputs():
    return other_inputs()
