"""FastComposer's object image encoder resizes the per-object crops to the CLIP image size inside forward
with `F.interpolate(object_pixel_values, (h, w), mode="bilinear", antialias=True)` before normalising and
encoding them. OpenVINO's PyTorch frontend could not convert the model until it gained
`aten::_upsample_bilinear2d_aa` (the PR adding it was tested on the fastcomposer model); the legacy ONNX
exporter has no symbolic for `aten::_upsample_bilinear2d_aa` either.

Source: https://github.com/openvinotoolkit/openvino/pull/18617
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"object_pixel_values": {0: "batch"}}
BLIND = "operators-53"


class TinyVisionModel(nn.Module):
    """Stand-in for the CLIP vision tower: returns (last_hidden_state, pooled_output)."""

    def __init__(self, image_size=32, hidden=48):
        super().__init__()
        self.image_size = image_size
        self.patch = nn.Conv2d(3, hidden, kernel_size=8, stride=8)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, pixel_values):
        x = self.patch(pixel_values).flatten(2).transpose(1, 2)
        x = self.norm(x)
        return x, x.mean(dim=1)


class Normalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(std).view(1, 3, 1, 1))

    def forward(self, x):
        return (x - self.mean) / self.std


class FastComposerCLIPImageEncoder(nn.Module):
    def __init__(self, vision_model, visual_projection, vision_processor):
        super().__init__()
        self.vision_model = vision_model
        self.visual_projection = visual_projection
        self.vision_processor = vision_processor

        self.image_size = vision_model.image_size

    def forward(self, object_pixel_values):
        b, num_objects, c, h, w = object_pixel_values.shape

        object_pixel_values = object_pixel_values.view(b * num_objects, c, h, w)

        if h != self.image_size or w != self.image_size:
            h, w = self.image_size, self.image_size
            object_pixel_values = F.interpolate(
                object_pixel_values, (h, w), mode="bilinear", antialias=True
            )

        object_pixel_values = self.vision_processor(object_pixel_values)
        object_embeds = self.vision_model(object_pixel_values)[1]
        object_embeds = self.visual_projection(object_embeds)
        object_embeds = object_embeds.view(b, num_objects, 1, -1)
        return object_embeds


def make_model():
    vision_processor = Normalize((0.48145466, 0.4578275, 0.40821073), (0.26862954, 0.26130258, 0.27577711))
    return FastComposerCLIPImageEncoder(TinyVisionModel(), nn.Linear(48, 24, bias=False), vision_processor).eval()


def example_inputs():
    return (torch.rand(2, 2, 3, 96, 96),)


def other_inputs():
    return [(torch.rand(3, 2, 3, 96, 96),), (torch.rand(1, 2, 3, 96, 96),)]


def probe_inputs():
    return other_inputs()
