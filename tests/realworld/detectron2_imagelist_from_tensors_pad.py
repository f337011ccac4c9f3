"""detectron2 preprocessing: `ImageList.from_tensors` stacks the image sizes into a tensor
(`shapes_to_tensor` -> `torch.as_tensor`), takes `max_size` from it, and pads with
`F.pad(tensors[0], [0, max_size[-1] - image_size[1], 0, max_size[-2] - image_size[0]])`; torch.export
fails with "Could not guard on data-dependent expression u1 < 0" inside `constant_pad_nd` (torch 2.4,
static shapes); on torch 2.13 the same `torch.as_tensor(sizes)` specializes the dynamic H/W instead.
(The report exports a module whose forward is just `ImageList.from_tensors(images)`; here the
GeneralizedRCNN-style normalisation + size_divisibility=32 and a conv stem around it.)

Source: https://github.com/facebookresearch/detectron2/issues/5347
"""
from typing import List, Optional, Tuple

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"image": {1: "height", 2: "width"}}
BLIND = "domains-17"


def shapes_to_tensor(x: List[int], device: Optional[torch.device] = None) -> torch.Tensor:
    if torch.jit.is_scripting():
        return torch.as_tensor(x, device=device)
    if torch.jit.is_tracing():
        assert all(
            [isinstance(t, torch.Tensor) for t in x]
        ), "Shape should be tensor during tracing!"
        # as_tensor should not be used in tracing because it records a constant
        ret = torch.stack(x)
        if ret.device != device:  # avoid recording a hard-coded device if not necessary
            ret = ret.to(device=device)
        return ret
    return torch.as_tensor(x, device=device)


class ImageList(object):
    def __init__(self, tensor: torch.Tensor, image_sizes: List[Tuple[int, int]]):
        self.tensor = tensor
        self.image_sizes = image_sizes

    @staticmethod
    def from_tensors(
        tensors: List[torch.Tensor], size_divisibility: int = 0, pad_value: float = 0.0
    ) -> "ImageList":
        assert len(tensors) > 0
        assert isinstance(tensors, (tuple, list))
        for t in tensors:
            assert isinstance(t, torch.Tensor), type(t)
            assert t.shape[:-2] == tensors[0].shape[:-2], t.shape

        image_sizes = [(im.shape[-2], im.shape[-1]) for im in tensors]
        image_sizes_tensor = [shapes_to_tensor(x) for x in image_sizes]
        max_size = torch.stack(image_sizes_tensor).max(0).values

        if size_divisibility > 1:
            stride = size_divisibility
            # the last two dims are H,W, both subject to divisibility requirement
            max_size = (max_size + (stride - 1)).div(stride, rounding_mode="floor") * stride

        # handle weirdness of scripting and tracing ...
        if torch.jit.is_scripting():
            max_size: List[int] = max_size.to(dtype=torch.long).tolist()
        else:
            if torch.jit.is_tracing():
                image_sizes = image_sizes_tensor

        if len(tensors) == 1:
            # This seems slightly (2%) faster.
            image_size = image_sizes[0]
            padding_size = [0, max_size[-1] - image_size[1], 0, max_size[-2] - image_size[0]]
            batched_imgs = F.pad(tensors[0], padding_size, value=pad_value).unsqueeze_(0)
        else:
            batch_shape = [len(tensors)] + list(tensors[0].shape[:-2]) + list(max_size)
            batched_imgs = tensors[0].new_full(batch_shape, pad_value)
            for i, img in enumerate(tensors):
                batched_imgs[i, ..., : img.shape[-2], : img.shape[-1]].copy_(img)

        return ImageList(batched_imgs.contiguous(), image_sizes)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("pixel_mean", torch.tensor([103.530, 116.280, 123.675]).view(-1, 1, 1), False)
        self.register_buffer("pixel_std", torch.tensor([57.375, 57.120, 58.395]).view(-1, 1, 1), False)
        self.size_divisibility = 32
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)

    def forward(self, image):
        images = [(image - self.pixel_mean) / self.pixel_std]
        images = ImageList.from_tensors(images, self.size_divisibility)
        return self.stem(images.tensor)


def make_model():
    return Detector()


def example_inputs():
    return (torch.rand(3, 60, 80) * 255,)


def other_inputs():
    return [(torch.rand(3, 100, 72) * 255,), (torch.rand(3, 45, 120) * 255,)]


def probe_inputs():
    return other_inputs()
