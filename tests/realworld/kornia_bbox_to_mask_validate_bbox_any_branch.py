"""kornia `bbox_to_mask` as it was before kornia PR #3806: it opens with `validate_bbox(boxes)`, whose
`if torch.any(width_diff > 1e-4): return False` is a data-dependent Python branch (the result is even
discarded); the PR says this broke torch.compile fullgraph for everything that builds masks from boxes.

Source: https://github.com/kornia/kornia/pull/3806
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}, "boxes": {0: "batch"}}
BLIND = "domains-37"


def validate_bbox(boxes: torch.Tensor) -> bool:
    """Validate if a 2D bounding box usable or not. This function checks if the boxes are rectangular or not."""
    if not (len(boxes.shape) in [3, 4] and boxes.shape[-2:] == torch.Size([4, 2])):
        return False

    if len(boxes.shape) == 4:
        boxes = boxes.view(-1, 4, 2)

    x_tl, y_tl = boxes[..., 0, 0], boxes[..., 0, 1]
    x_tr, y_tr = boxes[..., 1, 0], boxes[..., 1, 1]
    x_br, y_br = boxes[..., 2, 0], boxes[..., 2, 1]
    x_bl, y_bl = boxes[..., 3, 0], boxes[..., 3, 1]

    width_t, width_b = x_tr - x_tl + 1, x_br - x_bl + 1
    height_t, height_b = y_tr - y_tl + 1, y_br - y_bl + 1

    # Replace torch.allclose with exportable operations
    width_diff = torch.abs(width_t - width_b)
    height_diff = torch.abs(height_t - height_b)

    # Check if differences are within tolerance (1e-4)
    if torch.any(width_diff > 1e-4):
        return False

    if torch.any(height_diff > 1e-4):
        return False

    return True


def bbox_to_mask(boxes: torch.Tensor, width: int, height: int) -> torch.Tensor:
    """Convert 2D bounding boxes to masks. Covered area is 1. and the remaining is 0."""
    validate_bbox(boxes)
    # zero padding the surroundings
    yy = torch.arange(height, device=boxes.device, dtype=boxes.dtype).view(height, 1)
    xx = torch.arange(width, device=boxes.device, dtype=boxes.dtype).view(1, width)
    x_min = boxes[:, 0, 0].view(-1, 1, 1)
    y_min = boxes[:, 0, 1].view(-1, 1, 1)
    x_max = boxes[:, 2, 0].view(-1, 1, 1)
    y_max = boxes[:, 2, 1].view(-1, 1, 1)
    mask = (xx >= x_min) & (xx <= x_max) & (yy >= y_min) & (yy <= y_max)
    return mask.to(boxes.dtype)


class BoxPromptedSegmenter(nn.Module):
    """Interactive segmentation: the user's box (4 corners, clockwise) is rasterized with kornia's
    `bbox_to_mask` and stacked as a fourth input channel of a small segmentation net."""

    def __init__(self, num_classes=2):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(4, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, num_classes, 1))

    def forward(self, image, boxes):
        h, w = image.shape[-2:]
        box_mask = bbox_to_mask(boxes, w, h)
        return self.net(torch.cat([image, box_mask.unsqueeze(1)], dim=1))


def _boxes(b, h, w):
    x1 = torch.randint(0, w // 2, (b,)).float()
    y1 = torch.randint(0, h // 2, (b,)).float()
    x2 = x1 + torch.randint(2, w // 2, (b,)).float()
    y2 = y1 + torch.randint(2, h // 2, (b,)).float()
    return torch.stack([torch.stack([x1, y1], -1), torch.stack([x2, y1], -1),
                        torch.stack([x2, y2], -1), torch.stack([x1, y2], -1)], dim=1)


def make_model():
    return BoxPromptedSegmenter().eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 32), _boxes(2, 32, 32))


def other_inputs():
    return [(torch.rand(3, 3, 24, 40), _boxes(3, 24, 40)), (torch.rand(1, 3, 48, 20), _boxes(1, 48, 20))]


def probe_inputs():
    return other_inputs()
