"""detectron2 preprocessing (`ImageList.from_tensors(images, backbone.size_divisibility)`) before the commit
"make ImageList.image_sizes trace correctly": for a single image it builds `padding_size` from the stacked
`max_size` tensor and skips `F.pad` under `if all(x == 0 for x in padding_size):`, and keeps
`image_sizes = [tuple(im.shape[-2:]) ...]`; the commit adds `and not torch.jit.is_tracing()` to that branch and
stacks the image sizes so the traced detector follows the input size. (Backbone reduced to a tiny FPN whose
top-down path needs H, W divisible by 32; the P3 map is returned.)

Source: https://github.com/facebookresearch/detectron2/commit/1081708f67826ae8fe4ae39f4d65e3fbd80fa8da
"""
from typing import Any, List, Sequence, Tuple

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"image": {1: "height", 2: "width"}}
BLIND = "domains-54"


class ImageList(object):
    def __init__(self, tensor: torch.Tensor, image_sizes: List[Tuple[int, int]]):
        self.tensor = tensor
        self.image_sizes = image_sizes

    def __len__(self) -> int:
        return len(self.image_sizes)

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
        max_size = (
            # In tracing mode, x.shape[i] is Tensor, and should not be converted
            # to int: this will cause the traced graph to have hard-coded shapes.
            # Instead we should make max_size a Tensor that depends on these tensors.
            # Using torch.stack twice seems to be the best way to convert
            # list[list[ScalarTensor]] to a Tensor
            torch.stack(
                [
                    torch.stack([torch.as_tensor(dim) for dim in size])
                    for size in [tuple(img.shape) for img in tensors]
                ]
            )
            .max(0)
            .values
        )

        if size_divisibility > 1:
            stride = size_divisibility
            # the last two dims are H,W, both subject to divisibility requirement
            max_size = torch.cat([max_size[:-2], (max_size[-2:] + (stride - 1)) // stride * stride])

        image_sizes = [tuple(im.shape[-2:]) for im in tensors]

        if len(tensors) == 1:
            # This seems slightly (2%) faster.
            # TODO: check whether it's faster for multiple images as well
            image_size = image_sizes[0]
            padding_size = [0, max_size[-1] - image_size[1], 0, max_size[-2] - image_size[0]]
            if all(x == 0 for x in padding_size):  # https://github.com/pytorch/pytorch/issues/31734
                batched_imgs = tensors[0].unsqueeze(0)
            else:
                padded = F.pad(tensors[0], padding_size, value=pad_value)
                batched_imgs = padded.unsqueeze_(0)
        else:
            # max_size can be a tensor in tracing mode, therefore use tuple()
            batch_shape = (len(tensors),) + tuple(max_size)
            batched_imgs = tensors[0].new_full(batch_shape, pad_value)
            for img, pad_img in zip(tensors, batched_imgs):
                pad_img[..., : img.shape[-2], : img.shape[-1]].copy_(img)

        return ImageList(batched_imgs.contiguous(), image_sizes)


class TinyFPN(nn.Module):
    size_divisibility = 32

    def __init__(self, ch=8):
        super().__init__()
        self.c3 = nn.Conv2d(3, ch, kernel_size=8, stride=8)
        self.c4 = nn.Conv2d(ch, ch, kernel_size=2, stride=2)
        self.c5 = nn.Conv2d(ch, ch, kernel_size=2, stride=2)

    def forward(self, x):
        c3 = self.c3(x)
        c4 = self.c4(c3)
        c5 = self.c5(c4)
        p4 = c4 + F.interpolate(c5, scale_factor=2.0, mode="nearest")
        return c3 + F.interpolate(p4, scale_factor=2.0, mode="nearest")


class RCNNPreprocessBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = TinyFPN()
        self.register_buffer("pixel_mean", torch.tensor([103.53, 116.28, 123.675]).view(-1, 1, 1))
        self.register_buffer("pixel_std", torch.tensor([57.375, 57.12, 58.395]).view(-1, 1, 1))

    def preprocess_image(self, batched_inputs: List[torch.Tensor]) -> ImageList:
        images = [(x - self.pixel_mean) / self.pixel_std for x in batched_inputs]
        return ImageList.from_tensors(images, self.backbone.size_divisibility)

    def forward(self, image):
        images = self.preprocess_image([image])
        return self.backbone(images.tensor)


def make_model():
    return RCNNPreprocessBackbone().eval()


def example_inputs():
    return (torch.rand(3, 64, 96) * 255,)


def other_inputs():
    return [(torch.rand(3, 50, 70) * 255,), (torch.rand(3, 100, 45) * 255,)]


def probe_inputs():
    return other_inputs()
