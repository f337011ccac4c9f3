"""torchvision (0.5) RegionProposalNetwork: `num_anchors_per_level = [o[0].numel() for o in objectness]`, then
`_get_top_n_idx` does `objectness.split(num_anchors_per_level, 1)` and `pre_nms_top_n = min(self.pre_nms_top_n,
num_anchors)` per level; the exported Mask R-CNN "only works on the image used to export it": at another image size
onnxruntime fails in a Split node (the per-level anchor counts were baked in). The anchor generator, box decoding
and the NMS that follow are left out.

Source: https://github.com/pytorch/vision/issues/1741
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-15"


def permute_and_flatten(layer, N, A, C, H, W):
    layer = layer.view(N, -1, C, H, W)
    layer = layer.permute(0, 3, 4, 1, 2)
    layer = layer.reshape(N, -1, C)
    return layer


def concat_box_prediction_layers(box_cls, box_regression):
    box_cls_flattened = []
    box_regression_flattened = []
    for box_cls_per_level, box_regression_per_level in zip(box_cls, box_regression):
        N, AxC, H, W = box_cls_per_level.shape
        Ax4 = box_regression_per_level.shape[1]
        A = Ax4 // 4
        C = AxC // A
        box_cls_per_level = permute_and_flatten(box_cls_per_level, N, A, C, H, W)
        box_cls_flattened.append(box_cls_per_level)
        box_regression_per_level = permute_and_flatten(box_regression_per_level, N, A, 4, H, W)
        box_regression_flattened.append(box_regression_per_level)
    box_cls = torch.cat(box_cls_flattened, dim=1).reshape(-1, C)
    box_regression = torch.cat(box_regression_flattened, dim=1).reshape(-1, 4)
    return box_cls, box_regression


class RPNHead(nn.Module):
    def __init__(self, in_channels, num_anchors):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors, kernel_size=1, stride=1)
        self.bbox_pred = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=1, stride=1)

    def forward(self, x):
        logits = []
        bbox_reg = []
        for feature in x:
            t = torch.relu(self.conv(feature))
            logits.append(self.cls_logits(t))
            bbox_reg.append(self.bbox_pred(t))
        return logits, bbox_reg


class RegionProposalNetwork(nn.Module):
    def __init__(self, pre_nms_top_n=200):
        super().__init__()
        self.backbone = nn.ModuleList([nn.Conv2d(3, 16, 3, stride=8, padding=1),
                                       nn.Conv2d(16, 16, 3, stride=2, padding=1)])
        self.head = RPNHead(16, 3)
        self.pre_nms_top_n = pre_nms_top_n

    def _get_top_n_idx(self, objectness, num_anchors_per_level):
        r = []
        offset = 0
        for ob in objectness.split(num_anchors_per_level, 1):
            num_anchors = ob.shape[1]
            pre_nms_top_n = min(self.pre_nms_top_n, num_anchors)
            _, top_n_idx = ob.topk(pre_nms_top_n, dim=1)
            r.append(top_n_idx + offset)
            offset += num_anchors
        return torch.cat(r, dim=1)

    def filter_proposals(self, proposals, objectness, num_anchors_per_level):
        num_images = proposals.shape[0]
        device = proposals.device
        objectness = objectness.detach()
        objectness = objectness.reshape(num_images, -1)
        levels = [torch.full((n,), idx, dtype=torch.int64, device=device)
                  for idx, n in enumerate(num_anchors_per_level)]
        levels = torch.cat(levels, 0)
        levels = levels.reshape(1, -1).expand_as(objectness)
        top_n_idx = self._get_top_n_idx(objectness, num_anchors_per_level)
        batch_idx = torch.arange(num_images, device=device)[:, None]
        objectness = objectness[batch_idx, top_n_idx]
        levels = levels[batch_idx, top_n_idx]
        proposals = proposals[batch_idx, top_n_idx]
        return proposals, objectness, levels

    def forward(self, images):
        features, x = [], images
        for conv in self.backbone:
            x = torch.relu(conv(x))
            features.append(x)
        objectness, pred_bbox_deltas = self.head(features)
        num_images = images.shape[0]
        num_anchors_per_level = [o[0].numel() for o in objectness]
        objectness, pred_bbox_deltas = concat_box_prediction_layers(objectness, pred_bbox_deltas)
        proposals = pred_bbox_deltas.detach().view(num_images, -1, 4)  # box_coder.decode(...) left out
        return self.filter_proposals(proposals, objectness, num_anchors_per_level)


def make_model():
    return RegionProposalNetwork().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 128, 160),), (torch.randn(1, 3, 96, 64),)]


def probe_inputs():
    return other_inputs()
