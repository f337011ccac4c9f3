"""torchvision Keypoint R-CNN keypoint decoding before the PR that enabled its ONNX export: `keypointrcnn_inference`
splits the heatmaps per image with `[box.size(0) for box in boxes]` and `heatmaps_to_keypoints` loops
`for i in range(len(rois))`, resizing each RoI heatmap to `(int(heights_ceil[i].item()), int(widths_ceil[i].item()))`
with bicubic interpolation before the argmax; the PR replaced it with a scripted `_onnx_heatmaps_to_keypoints_loop`
because the traced loop and sizes are baked in. (Backbone, RoIAlign and box head are left out: the model takes the
pooled RoI features and the detected boxes.)

Source: https://github.com/pytorch/vision/pull/1593
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"roi_features": {0: "num_rois"}, "rois": {0: "num_rois"}}
BLIND = "domains-40"


def heatmaps_to_keypoints(maps, rois):
    """Extract predicted keypoint locations from heatmaps. Output has shape
    (#rois, 4, #keypoints) with the 4 rows corresponding to (x, y, logit, prob)
    for each keypoint.
    """
    # This function converts a discrete image coordinate in a HEATMAP_SIZE x
    # HEATMAP_SIZE image to a continuous keypoint coordinate. We maintain
    # consistency with keypoints_to_heatmap_labels by using the conversion from
    # Heckbert 1990: c = d + 0.5, where d is a discrete coordinate and c is a
    # continuous coordinate.
    offset_x = rois[:, 0]
    offset_y = rois[:, 1]

    widths = rois[:, 2] - rois[:, 0]
    heights = rois[:, 3] - rois[:, 1]
    widths = widths.clamp(min=1)
    heights = heights.clamp(min=1)
    widths_ceil = widths.ceil()
    heights_ceil = heights.ceil()

    num_keypoints = maps.shape[1]
    xy_preds = torch.zeros((len(rois), 3, num_keypoints), dtype=torch.float32, device=maps.device)
    end_scores = torch.zeros((len(rois), num_keypoints), dtype=torch.float32, device=maps.device)
    for i in range(len(rois)):
        roi_map_width = int(widths_ceil[i].item())
        roi_map_height = int(heights_ceil[i].item())
        width_correction = widths[i] / roi_map_width
        height_correction = heights[i] / roi_map_height
        roi_map = torch.nn.functional.interpolate(
            maps[i][None], size=(roi_map_height, roi_map_width), mode='bicubic', align_corners=False)[0]
        # roi_map_probs = scores_to_probs(roi_map.copy())
        w = roi_map.shape[2]
        pos = roi_map.reshape(num_keypoints, -1).argmax(dim=1)
        x_int = pos % w
        y_int = (pos - x_int) // w
        x = (x_int.float() + 0.5) * width_correction
        y = (y_int.float() + 0.5) * height_correction
        xy_preds[i, 0, :] = x + offset_x[i]
        xy_preds[i, 1, :] = y + offset_y[i]
        xy_preds[i, 2, :] = 1
        end_scores[i, :] = roi_map[torch.arange(num_keypoints), y_int, x_int]

    return xy_preds.permute(0, 2, 1), end_scores


def keypointrcnn_inference(x, boxes):
    kp_probs = []
    kp_scores = []

    boxes_per_image = [box.size(0) for box in boxes]
    x2 = x.split(boxes_per_image, dim=0)

    for xx, bb in zip(x2, boxes):
        kp_prob, scores = heatmaps_to_keypoints(xx, bb)
        kp_probs.append(kp_prob)
        kp_scores.append(scores)

    return kp_probs, kp_scores


class KeypointRCNNHeads(nn.Module):
    def __init__(self, in_channels=8, num_keypoints=5):
        super().__init__()
        self.keypoint_head = nn.Sequential(nn.Conv2d(in_channels, 16, 3, padding=1), nn.ReLU())
        self.keypoint_predictor = nn.ConvTranspose2d(16, num_keypoints, 4, stride=2, padding=1)

    def forward(self, roi_features, rois):
        keypoint_logits = self.keypoint_predictor(self.keypoint_head(roi_features))
        keypoints_probs, kp_scores = keypointrcnn_inference(keypoint_logits, [rois])
        return keypoints_probs[0], kp_scores[0]


def make_model():
    return KeypointRCNNHeads().eval()


def _rois(n, seed):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * 40
    wh = 8 + torch.rand(n, 2, generator=g) * 30
    return torch.cat([xy, xy + wh], dim=1)


def example_inputs():
    return (torch.randn(3, 8, 7, 7), _rois(3, 0))


def other_inputs():
    return [(torch.randn(5, 8, 7, 7), _rois(5, 1)), (torch.randn(2, 8, 7, 7), _rois(2, 2))]


def probe_inputs():
    return other_inputs()
