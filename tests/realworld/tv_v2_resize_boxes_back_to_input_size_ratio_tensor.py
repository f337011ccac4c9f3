"""Detector wrapper that folds pre/post-processing into the exported graph: the uint8 image is resized to
a fixed (resize_height, resize_width), the base model predicts boxes on that canvas, and the boxes are
resized back to the input's `img_height, img_width = input.shape[-2:]` with torchvision v2 `Resize` on
`BoundingBoxes` (which builds `torch.tensor([w_ratio, h_ratio, w_ratio, h_ratio])` from Python floats).
Exported with dynamo=False and dynamic H/W, the ONNX model keeps using the example input size: boxes are
only right when the image has the size used at export.

Source: https://github.com/pytorch/vision/issues/9315
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "constant-tensor"
FAMILY = "shape_math"
DYNAMIC = {"input": {2: "height", 3: "width"}}
BLIND = "domains-32"


# --- the few lines of torchvision.transforms.v2 the wrapper relies on (copied, trimmed) ---
def resize_image(image, size, antialias=False):
    dtype = image.dtype
    image = image.float()
    image = F.interpolate(image, size=size, mode="bilinear", align_corners=False, antialias=antialias)
    if dtype == torch.uint8:
        image = image.round_().clamp_(0, 255)
    return image.to(dtype=dtype)


def resize_bounding_boxes(bounding_boxes, canvas_size, size):
    old_height, old_width = canvas_size
    new_height, new_width = size
    if (new_height, new_width) == (old_height, old_width):
        return bounding_boxes, canvas_size
    w_ratio = new_width / old_width
    h_ratio = new_height / old_height
    ratios = torch.tensor([w_ratio, h_ratio, w_ratio, h_ratio], device=bounding_boxes.device)
    return bounding_boxes.mul(ratios).to(bounding_boxes.dtype), (new_height, new_width)


class TinyDetector(nn.Module):
    def __init__(self, num_queries=10):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.boxes = nn.Linear(16, num_queries * 4)
        self.scores = nn.Linear(16, num_queries)

    def forward(self, x):
        h = self.body(x)
        xy = self.boxes(h).view(x.shape[0], -1, 4).sigmoid()
        return xy, self.scores(h).sigmoid()


class DetectionModel(nn.Module):
    def __init__(self, base_model, resize_height, resize_width, nms_threshold=0.6):
        super(DetectionModel, self).__init__()
        self.base_model = base_model
        self.nms_threshold = nms_threshold
        self.resize_height = resize_height
        self.resize_width = resize_width

    def forward(self, input):
        img_height, img_width = input.shape[-2:]
        # v2.Compose([v2.ToImage(), v2.Resize(size=(resize_height, resize_width), antialias=False),
        #             v2.ToDtype(torch.float32, scale=True)])
        x = resize_image(input, (self.resize_height, self.resize_width), antialias=False)
        x = x.to(torch.float32) / 255.0
        rel_boxes, scores = self.base_model(x)
        scale = torch.tensor([self.resize_width, self.resize_height, self.resize_width, self.resize_height])
        boxes = rel_boxes * scale  # BoundingBoxes(format="XYXY", canvas_size=(resize_height, resize_width))
        # resize = v2.Resize(size=(img_height, img_width)); boxes = resize(boxes)
        boxes, _ = resize_bounding_boxes(boxes, (self.resize_height, self.resize_width), (img_height, img_width))
        return boxes, scores


def make_model():
    return DetectionModel(TinyDetector(), 96, 128).eval()


def example_inputs():
    return (torch.randint(0, 255, (1, 3, 160, 160), dtype=torch.uint8),)


def other_inputs():
    return [(torch.randint(0, 255, (1, 3, 96, 128), dtype=torch.uint8),),
            (torch.randint(0, 255, (1, 3, 240, 200), dtype=torch.uint8),)]


def probe_inputs():
    return other_inputs()
