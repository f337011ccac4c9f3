"""detectron2 RPN proposal selection (`find_top_rpn_proposals`): per FPN level it keeps
`num_proposals_i = min(pre_nms_topk, Hi_Wi_A)` proposals, slices `logits_i[batch_idx, :num_proposals_i]`
and builds the level ids with `torch.full((num_proposals_i,), level_id, ...)`. Traced for ONNX, the
Python `min` on the anchor count freezes the number of kept proposals, so the exported RPN "did not
generalize to smaller shapes" (fixed upstream with `torch.clamp` and `narrow` while tracing).

Source: https://github.com/facebookresearch/detectron2/pull/2419
"""
from typing import List, Tuple

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-32"


def cat(tensors: List[torch.Tensor], dim: int = 0):
    assert isinstance(tensors, (list, tuple))
    if len(tensors) == 1:
        return tensors[0]
    return torch.cat(tensors, dim)


def find_top_rpn_proposals(
    proposals: List[torch.Tensor],
    pred_objectness_logits: List[torch.Tensor],
    image_sizes: List[Tuple[int, int]],
    pre_nms_topk: int,
):
    num_images = len(image_sizes)
    device = proposals[0].device

    # 1. Select top-k anchor for every level and every image
    topk_scores = []  # #lvl Tensor, each of shape N x topk
    topk_proposals = []
    level_ids = []  # #lvl Tensor, each of shape (topk,)
    batch_idx = torch.arange(num_images, device=device)
    for level_id, (proposals_i, logits_i) in enumerate(zip(proposals, pred_objectness_logits)):
        Hi_Wi_A = logits_i.shape[1]
        num_proposals_i = min(pre_nms_topk, Hi_Wi_A)

        # sort is faster than topk (https://github.com/pytorch/pytorch/issues/22812)
        logits_i, idx = logits_i.sort(descending=True, dim=1)
        topk_scores_i = logits_i[batch_idx, :num_proposals_i]
        topk_idx = idx[batch_idx, :num_proposals_i]

        # each is N x topk
        topk_proposals_i = proposals_i[batch_idx[:, None], topk_idx]  # N x topk x 4

        topk_proposals.append(topk_proposals_i)
        topk_scores.append(topk_scores_i)
        level_ids.append(torch.full((num_proposals_i,), level_id, dtype=torch.int64, device=device))

    # 2. Concat all levels together
    topk_scores = cat(topk_scores, dim=1)
    topk_proposals = cat(topk_proposals, dim=1)
    level_ids = cat(level_ids, dim=0)
    return topk_scores, topk_proposals, level_ids


class RPN(nn.Module):
    def __init__(self, in_channels=8, num_anchors=3, pre_nms_topk=200):
        super().__init__()
        self.down = nn.Conv2d(in_channels, in_channels, 3, stride=2, padding=1)
        self.conv = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.objectness_logits = nn.Conv2d(in_channels, num_anchors, 1)
        self.anchor_deltas = nn.Conv2d(in_channels, num_anchors * 4, 1)
        self.pre_nms_topk = pre_nms_topk

    def forward(self, x):
        features = [x, self.down(x)]
        pred_objectness_logits, pred_anchor_deltas = [], []
        for f in features:
            t = torch.relu(self.conv(f))
            pred_objectness_logits.append(self.objectness_logits(t).permute(0, 2, 3, 1).flatten(1))
            d = self.anchor_deltas(t)
            pred_anchor_deltas.append(
                d.view(d.shape[0], -1, 4, d.shape[-2], d.shape[-1]).permute(0, 3, 4, 1, 2).flatten(1, -2)
            )
        image_sizes = [(x.shape[-2], x.shape[-1]) for _ in range(x.shape[0])]
        return find_top_rpn_proposals(
            pred_anchor_deltas, pred_objectness_logits, image_sizes, self.pre_nms_topk
        )


def make_model():
    return RPN().eval()


def example_inputs():
    return (torch.randn(1, 8, 16, 16),)


def other_inputs():
    return [(torch.randn(1, 8, 24, 20),), (torch.randn(1, 8, 8, 12),)]


def probe_inputs():
    return other_inputs()
