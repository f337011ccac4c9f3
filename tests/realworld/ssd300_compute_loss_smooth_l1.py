"""torchvision SSD300 (VGG16) exported in training mode with (images, targets): the forward returns the
detection losses, and SSD's compute_loss calls `torch.nn.functional.smooth_l1_loss(..., reduction="sum")`
for the box regression; torch.onnx.export fails with "Exporting the operator 'aten::smooth_l1_loss' to ONNX
opset version 14 is not supported".

Source: https://github.com/pytorch/pytorch/issues/120326
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "images": {0: "batch"},
    "target_regression": {0: "batch"},
    "cls_targets": {0: "batch"},
}
BLIND = "operators-8"


class SSDHead(nn.Module):
    """Per-location box regression / classification heads (torchvision SSDRegressionHead / SSDClassificationHead)."""

    def __init__(self, in_channels, num_anchors, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, padding=1)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, kernel_size=3, padding=1)

    def _flatten(self, x, k):
        N, _, H, W = x.shape
        x = x.view(N, -1, k, H, W)
        x = x.permute(0, 3, 4, 1, 2)
        return x.reshape(N, -1, k)

    def forward(self, feat):
        return {
            "bbox_regression": self._flatten(self.bbox_reg(feat), 4),
            "cls_logits": self._flatten(self.cls_logits(feat), self.num_classes),
        }


class SSDTrain(nn.Module):
    """Small VGG-style backbone + SSD head; in training mode the model returns the SSD losses."""

    def __init__(self, num_classes=91, num_anchors=4):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        )
        self.head = SSDHead(64, num_anchors, num_classes)
        self.num_classes = num_classes

    def compute_loss(self, head_outputs, target_regression, cls_targets):
        bbox_regression = head_outputs["bbox_regression"]
        foreground = (cls_targets > 0).unsqueeze(-1).to(bbox_regression.dtype)
        num_foreground = foreground.sum().clamp(min=1.0)
        # Calculate regression loss (only on the anchors matched to a ground-truth box)
        bbox_loss = torch.nn.functional.smooth_l1_loss(
            bbox_regression * foreground, target_regression * foreground, reduction="sum"
        )
        return {
            "bbox_regression": bbox_loss / num_foreground,
        }

    def forward(self, images, target_regression, cls_targets):
        features = self.backbone(images)
        head_outputs = self.head(features)
        losses = self.compute_loss(head_outputs, target_regression, cls_targets)
        return losses["bbox_regression"]


def make_model():
    return SSDTrain()


def _inputs(batch):
    num_anchors = 16 * 16 * 4  # 64x64 image -> 16x16 feature map, 4 default boxes per location
    return (
        torch.randn(batch, 3, 64, 64),
        torch.randn(batch, num_anchors, 4),
        torch.randint(0, 91, (batch, num_anchors)),
    )


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(3), _inputs(1)]


def probe_inputs():
    return other_inputs()
