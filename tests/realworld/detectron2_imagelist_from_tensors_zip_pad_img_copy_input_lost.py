"""detectron2 `ImageList.from_tensors` pads a list of images into one batch with
`for img, pad_img in zip(tensors, batched_imgs): pad_img[..., :h, :w].copy_(img)`; the PR reports that the
tracer loses the user input through the temporary `pad_img`, so the exported ONNX graph has no real input (the
images are stored as a weight) and only reproduces the export batch; the fix indexes `batched_imgs[i]` instead.
(GeneralizedRCNN.preprocess_image for two images, as TracingAdapter flattens `[{"image": a}, {"image": b}]`;
backbone reduced to a conv.)

Source: https://github.com/facebookresearch/detectron2/pull/4291
"""
from typing import List, Optional, Tuple

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"image0": {1: "height0", 2: "width0"}, "image1": {1: "height1", 2: "width1"}}
BLIND = "domains-52"


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


def move_device_like(src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
    return src.to(dst.device)


class ImageList(object):
    def __init__(self, tensor: torch.Tensor, image_sizes: List[Tuple[int, int]]):
        self.tensor = tensor
        self.image_sizes = image_sizes

    @staticmethod
    def from_tensors(tensors: List[torch.Tensor], size_divisibility: int = 0, pad_value: float = 0.0) -> "ImageList":
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
            max_size = (max_size + (stride - 1)).div(stride, rounding_mode="floor") * stride

        if torch.jit.is_scripting():
            max_size: List[int] = max_size.to(dtype=torch.long).tolist()
        else:
            if torch.jit.is_tracing():
                image_sizes = image_sizes_tensor

        if len(tensors) == 1:
            image_size = image_sizes[0]
            padding_size = [0, max_size[-1] - image_size[1], 0, max_size[-2] - image_size[0]]
            batched_imgs = F.pad(tensors[0], padding_size, value=pad_value).unsqueeze_(0)
        else:
            batch_shape = [len(tensors)] + list(tensors[0].shape[:-2]) + list(max_size)
            device = (
                None if torch.jit.is_scripting() else ("cpu" if torch.jit.is_tracing() else None)
            )
            batched_imgs = tensors[0].new_full(batch_shape, pad_value, device=device)
            batched_imgs = move_device_like(batched_imgs, tensors[0])
            for img, pad_img in zip(tensors, batched_imgs):
                pad_img[..., : img.shape[-2], : img.shape[-1]].copy_(img)

        return ImageList(batched_imgs.contiguous(), image_sizes)


class TinyRCNNBackbone(nn.Module):
    def __init__(self, size_divisibility=32):
        super().__init__()
        self.size_divisibility = size_divisibility
        self.register_buffer("pixel_mean", torch.tensor([103.530, 116.280, 123.675]).view(-1, 1, 1), False)
        self.register_buffer("pixel_std", torch.tensor([57.375, 57.120, 58.395]).view(-1, 1, 1), False)
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.Conv2d(8, 8, 3, stride=2, padding=1))

    def preprocess_image(self, batched_inputs):
        images = [x["image"] for x in batched_inputs]
        images = [(x - self.pixel_mean) / self.pixel_std for x in images]
        images = ImageList.from_tensors(images, self.size_divisibility)
        return images

    def forward(self, image0, image1):
        batched_inputs = [{"image": image0}, {"image": image1}]
        images = self.preprocess_image(batched_inputs)
        return self.stem(images.tensor)


def make_model():
    return TinyRCNNBackbone().eval()


def example_inputs():
    return (torch.rand(3, 60, 80) * 255, torch.rand(3, 50, 96) * 255)


def other_inputs():
    return [(torch.rand(3, 70, 64) * 255, torch.rand(3, 90, 40) * 255),
            (torch.rand(3, 33, 45) * 255, torch.rand(3, 64, 64) * 255)]


def probe_inputs():
    return other_inputs()
