"""torchvision's detection transform (`GeneralizedRCNNTransform`): the image is resized by a scale factor computed
with `float(torch.min(im_shape))`, and the predicted boxes are mapped back with `resize_boxes`, whose ratios are
`float(s) / float(s_orig)` of the resized and original sizes; the report shows these ratios frozen as constants
(`onnx::Constant[value={0.603774}]`) in the exported graph, so boxes are mis-scaled for other image sizes.

Source: https://github.com/pytorch/vision/pull/1840
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-4"


def resize_boxes(boxes, original_size, new_size):
    # type: (Tensor, List[int], List[int])
    ratios = [float(s) / float(s_orig) for s, s_orig in zip(new_size, original_size)]
    ratio_height, ratio_width = ratios
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    xmin = xmin * ratio_width
    xmax = xmax * ratio_width
    ymin = ymin * ratio_height
    ymax = ymax * ratio_height
    return torch.stack((xmin, ymin, xmax, ymax), dim=1)


class GeneralizedRCNNTransform(nn.Module):
    def __init__(self, min_size, max_size):
        super().__init__()
        self.min_size = min_size
        self.max_size = max_size

    def resize(self, image):
        h, w = image.shape[-2:]
        im_shape = torch.tensor(image.shape[-2:])
        min_size = float(torch.min(im_shape))
        max_size = float(torch.max(im_shape))
        scale_factor = self.min_size / min_size
        if max_size * scale_factor > self.max_size:
            scale_factor = self.max_size / max_size
        image = F.interpolate(
            image[None], scale_factor=scale_factor, mode='bilinear', align_corners=False)[0]
        return image

    def postprocess(self, boxes, image_shape, original_image_size):
        return resize_boxes(boxes, image_shape, original_image_size)


class TinyDetector(nn.Module):
    def __init__(self, num_boxes=5):
        super().__init__()
        self.transform = GeneralizedRCNNTransform(min_size=32, max_size=48)
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.box_head = nn.Linear(8, num_boxes * 4)
        self.num_boxes = num_boxes

    def forward(self, images):
        image = images[0]
        original_image_size = image.shape[-2:]
        image = self.transform.resize(image)
        image_shape = image.shape[-2:]
        feats = self.backbone(image[None])
        boxes = self.box_head(feats).view(self.num_boxes, 4).abs() * 16.0
        boxes = self.transform.postprocess(boxes, image_shape, original_image_size)
        return boxes


def make_model():
    return TinyDetector()


def example_inputs():
    return (torch.rand(1, 3, 53, 40),)


def other_inputs():
    return [(torch.rand(1, 3, 40, 72),), (torch.rand(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
