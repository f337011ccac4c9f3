"""MI-GAN ONNX inpainting pipeline (scripts/create_onnx_pipeline.py): `get_masked_bbox` finds the hole's bounding
box from the mask values ("various hacks to make this method dynamic and ONNX-compatible": boolean-mask indexing
`w_indices[xx < 255]`, `torch.arange(0, h)` with a tensor `h`, min/max over cat-ed tensors), then the forward
crops `image[:, :, y_min:y_max, x_min:x_max]` with those tensor bounds, resizes the crop to the generator
resolution, runs the generator, resizes back and pastes the result; the crop size depends on the mask data.

Source: https://github.com/Picsart-AI-Research/MI-GAN/commit/e8919fd27c62d88a0ec6836df1670f26d4ce21c0
"""
import math
import numbers

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"image": {2: "height", 3: "width"}, "mask": {2: "height", 3: "width"}}
BLIND = "domains-50"

BILINEAR, NEAREST = "bilinear", "nearest"


def _resize(img, size, interpolation):
    """The few lines of torchvision.transforms.functional.resize used on uint8 / float tensors
    (torchvision 0.16, Nov 2023: tensors were resized without antialiasing by default)."""
    size = [int(s) if isinstance(s, torch.Tensor) else s for s in size]
    dtype = img.dtype
    x = img.to(torch.float32)
    if interpolation == NEAREST:
        x = F.interpolate(x, size=size, mode="nearest")
    else:
        x = F.interpolate(x, size=size, mode="bilinear", align_corners=False)
    if dtype == torch.uint8:
        x = x.round_().clamp(0, 255)
    return x.to(dtype)


class MIGAN(nn.Module):
    """Stand-in for the MI-GAN generator: (mask - 0.5, image * mask) at `resolution` -> RGB in [-1, 1]."""

    def __init__(self, resolution=64):
        super().__init__()
        self.resolution = resolution
        self.net = nn.Sequential(nn.Conv2d(4, 16, 3, padding=1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(16, 3, 3, padding=1), nn.Tanh())

    def forward(self, x):
        return self.net(x)


# GaussianSmoothing is taken from https://github.com/yuval-alaluf/Attend-and-Excite/blob/main/utils/gaussian_smoothing.py
class GaussianSmoothing(nn.Module):
    def __init__(self, channels, kernel_size, sigma, dim=2):
        super(GaussianSmoothing, self).__init__()
        self.padding = (kernel_size - 1) // 2
        if isinstance(kernel_size, numbers.Number):
            kernel_size = [kernel_size] * dim
        if isinstance(sigma, numbers.Number):
            sigma = [sigma] * dim
        kernel = 1
        meshgrids = torch.meshgrid([torch.arange(size, dtype=torch.float32) for size in kernel_size], indexing="ij")
        for size, std, mgrid in zip(kernel_size, sigma, meshgrids):
            mean = (size - 1) / 2
            kernel *= 1 / (std * math.sqrt(2 * math.pi)) * torch.exp(-((mgrid - mean) / (2 * std)) ** 2)
        kernel = kernel / torch.sum(kernel)
        kernel = kernel.view(1, 1, *kernel.size())
        kernel = kernel.repeat(channels, *[1] * (kernel.dim() - 1))
        self.register_buffer('weight', kernel)
        self.groups = channels
        self.conv = F.conv2d

    def forward(self, input):
        input = F.pad(input, (self.padding, self.padding, self.padding, self.padding), mode='reflect')
        return self.conv(input, weight=self.weight.to(input.dtype), groups=self.groups, padding='valid')


class MIGAN_Pipeline(nn.Module):

    def __init__(self, resolution=64, padding=16):
        super().__init__()
        self.model = MIGAN(resolution=resolution)
        self.model.eval()
        self.gaussian_blur = GaussianSmoothing(channels=1, kernel_size=5, sigma=1.0, dim=2)
        self.res = torch.tensor(resolution)
        self.padding = torch.tensor(padding)

    def get_masked_bbox(self, mask):
        # We implement various hacks to make this method dynamic and ONNX-compatible

        padded_inverted_mask = F.pad(mask, (1, 1, 1, 1), mode='constant', value=1)
        padded_inverted_mask = padded_inverted_mask.squeeze()
        h = (padded_inverted_mask.sum(dim=0) - torch.tensor(2))[0]
        w = (padded_inverted_mask.sum(dim=1) - torch.tensor(2))[0]
        mask = mask.squeeze().to(torch.float32)

        h_indices = torch.arange(0, h, step=1, dtype=torch.int32)
        w_indices = torch.arange(0, w, step=1, dtype=torch.int32)

        xx = mask.mean(dim=0)
        yy = mask.mean(dim=1)
        xx_masked_ids = w_indices[xx < torch.tensor(255.0)]
        yy_masked_ids = h_indices[yy < torch.tensor(255.0)]

        x_min = torch.min(torch.cat((xx_masked_ids.reshape(-1), torch.tensor(w).reshape(-1))))
        x_max = torch.max(torch.cat((xx_masked_ids.reshape(-1), torch.tensor(0).reshape(-1))))
        y_min = torch.min(torch.cat((yy_masked_ids.reshape(-1), torch.tensor(h).reshape(-1))))
        y_max = torch.max(torch.cat((yy_masked_ids.reshape(-1), torch.tensor(0).reshape(-1))))

        x_min = torch.min(torch.cat((x_min.reshape(-1), x_max.reshape(-1))))
        x_max = torch.max(torch.cat((x_min.reshape(-1), x_max.reshape(-1))))
        y_min = torch.min(torch.cat((y_min.reshape(-1), y_max.reshape(-1))))
        y_max = torch.max(torch.cat((y_min.reshape(-1), y_max.reshape(-1))))

        cnt_x = (x_min + x_max) // torch.tensor(2)
        cnt_y = (y_min + y_max) // torch.tensor(2)

        masked_w = x_max - x_min
        masked_h = y_max - y_min
        crop_size = torch.max(torch.cat((masked_w.reshape(-1), masked_h.reshape(-1))))
        crop_size = crop_size + self.padding * torch.tensor(2)
        crop_size = torch.max(torch.cat((crop_size.reshape(-1), torch.tensor(self.res).reshape(-1))))

        offset = crop_size // torch.tensor(2)
        x_min = torch.max(torch.cat(((cnt_x - offset).reshape(-1), torch.tensor(0).reshape(-1))))
        x_max = torch.min(torch.cat(((cnt_x + offset).reshape(-1), torch.tensor(w).reshape(-1))))
        y_min = torch.max(torch.cat(((cnt_y - offset).reshape(-1), torch.tensor(0).reshape(-1))))
        y_max = torch.min(torch.cat(((cnt_y + offset).reshape(-1), torch.tensor(h).reshape(-1))))

        x_offset_excess = torch.max(torch.cat(((crop_size - (x_max - x_min)).reshape(-1), torch.tensor(0).reshape(-1))))
        y_offset_excess = torch.max(torch.cat(((crop_size - (y_max - y_min)).reshape(-1), torch.tensor(0).reshape(-1))))

        x_min = torch.max(torch.cat(((x_min - x_offset_excess).reshape(-1), torch.tensor(0).reshape(-1))))
        x_max = torch.min(torch.cat(((x_max + x_offset_excess).reshape(-1), torch.tensor(w).reshape(-1))))
        y_min = torch.max(torch.cat(((y_min - y_offset_excess).reshape(-1), torch.tensor(0).reshape(-1))))
        y_max = torch.min(torch.cat(((y_max + y_offset_excess).reshape(-1), torch.tensor(h).reshape(-1))))

        return x_min, x_max, y_min, y_max

    def preprocess(self, image, mask):
        image = _resize(image, (self.res, self.res), interpolation=BILINEAR)
        mask = _resize(mask, (self.res, self.res), interpolation=NEAREST)
        image = image.to(torch.float32) * 2 / 255 - 1
        mask = mask.to(torch.float32) / 255
        model_input = torch.cat([mask - 0.5, image * mask], dim=1)
        return model_input

    def postprocess(self, image, mask, model_output):
        model_output = ((model_output * 0.5 + 0.5) * 255).clamp(0, 255)
        model_output = _resize(model_output, (image.size(2), image.size(3)), interpolation=BILINEAR)
        image = image.to(torch.float32)
        mask = mask.to(torch.float32)
        mask = F.max_pool2d(mask, 3, stride=1, padding=1)
        mask = self.gaussian_blur(mask)
        mask = mask / torch.tensor(255)
        composed_img = image * mask + model_output * (1 - mask)
        return composed_img.clamp(0, 255).to(torch.uint8)

    def forward(self, image: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """
        image: (1, 3, H, W) torch.uint8 Tensor
        mask: (1, 1, H, W) torch.uint8 Tensor
        """
        mask = _resize(mask, (image.size(2), image.size(3)), interpolation=NEAREST)
        x_min, x_max, y_min, y_max = self.get_masked_bbox(mask)
        cropped_img, cropped_mask = image[:, :, y_min:y_max, x_min:x_max], mask[:, :, y_min:y_max, x_min:x_max]
        model_input = self.preprocess(cropped_img, cropped_mask)
        model_output = self.model(model_input)
        post_result = self.postprocess(cropped_img, cropped_mask, model_output)
        image[:, :, y_min:y_max, x_min:x_max] = post_result
        return image


def make_model():
    return MIGAN_Pipeline(resolution=64, padding=16).eval()


def _inputs(h, w, box):
    image = (torch.rand(1, 3, h, w) * 255).to(torch.uint8)
    mask = torch.full((1, 1, h, w), 255, dtype=torch.uint8)
    y0, y1, x0, x1 = box
    mask[:, :, y0:y1, x0:x1] = 0  # the hole to inpaint
    return (image, mask)


def example_inputs():
    return _inputs(160, 192, (40, 70, 50, 90))


def other_inputs():
    return [_inputs(200, 150, (120, 180, 10, 40)), _inputs(128, 256, (5, 20, 200, 250))]


def probe_inputs():
    return other_inputs()
