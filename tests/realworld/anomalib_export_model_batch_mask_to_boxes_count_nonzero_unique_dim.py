"""anomalib's ExportModel (OpenVINO inference redesign) puts detection post-processing into the exported graph:
the thresholded anomaly mask is labelled with kornia's connected_components and the number of boxes per image is
counted over `torch.unique(batch_comps.view(B, -1), dim=1)`; the PR notes that "torch.count_nonzero is not
supported in onnx" and swaps it for a sum of `!= 0` (this is the count_nonzero form it avoided).

Source: https://github.com/open-edge-platform/anomalib/pull/1147
"""
import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"anomaly_map": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-62"


# kornia.contrib.connected_components
def connected_components(image: Tensor, num_iterations: int = 100) -> Tensor:
    H, W = image.shape[-2:]
    image_view = image.view(-1, 1, H, W)
    mask = image_view == 1
    B, _, _, _ = image_view.shape
    out = torch.arange(B * H * W, device=image.device, dtype=image.dtype).view((-1, 1, H, W))
    out[~mask] = 0
    for _ in range(num_iterations):
        out[mask] = F.max_pool2d(out, kernel_size=3, stride=1, padding=1)[mask]
    return out.view_as(image)


class ExportModel(nn.Module):
    def __init__(self, pixel_threshold: float = 0.5, num_iterations: int = 20):
        super().__init__()
        self.pixel_threshold = pixel_threshold
        self.num_iterations = num_iterations

    def batch_mask_to_boxes(self, pred_mask: Tensor):
        height, width = pred_mask.shape[-2:]
        pred_mask = pred_mask.view((-1, 1, height, width)).float()  # reshape to (B, 1, H, W) and cast to float

        batch_comps = connected_components(pred_mask, num_iterations=self.num_iterations).squeeze(1).int()
        B, H, W = batch_comps.shape

        # split the boxes later on based on this
        boxes_per_image = torch.count_nonzero(torch.unique(batch_comps.view(B, -1), dim=1), dim=1) - 1
        return boxes_per_image

    def forward(self, anomaly_map: Tensor):
        pred_mask = (anomaly_map >= self.pixel_threshold).squeeze(1).type(torch.uint8)
        boxes_per_image = self.batch_mask_to_boxes(pred_mask)
        return anomaly_map, boxes_per_image


def make_model():
    return ExportModel().eval()


def example_inputs():
    return (torch.rand(2, 1, 32, 32),)


def other_inputs():
    return [(torch.rand(3, 1, 40, 24),), (torch.rand(1, 1, 16, 48),)]


def probe_inputs():
    return other_inputs()
