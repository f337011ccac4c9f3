"""ALIKE keypoint decoding (DKD.detect_keypoints): after a max-pool NMS of the score map, each image's keypoints
are `mask.nonzero()` and, `if len(indices) > self.n_limit:`, sorted by score with `kpts_sc.sort(descending=True)`
and cut to `n_limit`; the reporter's ONNX graph has a TopK whose K is the data-dependent candidate count (TensorRT:
"only supports input K as an initializer"), so the keypoint post-processing could not be deployed.

Source: https://github.com/NVIDIA/TensorRT/issues/2276
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-40"


def simple_nms(scores, nms_radius: int):
    """ Fast Non-maximum suppression to remove nearby points """
    assert (nms_radius >= 0)

    def max_pool(x):
        return torch.nn.functional.max_pool2d(x, kernel_size=nms_radius * 2 + 1, stride=1, padding=nms_radius)

    zeros = torch.zeros_like(scores)
    max_mask = scores == max_pool(scores)

    for _ in range(2):
        supp_mask = max_pool(max_mask.float()) > 0
        supp_scores = torch.where(supp_mask, zeros, scores)
        new_max_mask = supp_scores == max_pool(supp_scores)
        max_mask = max_mask | (new_max_mask & (~supp_mask))
    return torch.where(max_mask, scores, zeros)


class DKD(nn.Module):
    def __init__(self, radius=2, top_k=-1, scores_th=0.2, n_limit=40):
        super().__init__()
        self.radius = radius
        self.top_k = top_k
        self.scores_th = scores_th
        self.n_limit = n_limit

    def detect_keypoints(self, scores_map, sub_pixel=False):
        b, c, h, w = scores_map.shape
        scores_nograd = scores_map.detach()
        nms_scores = simple_nms(scores_nograd, 2)

        # remove border
        nms_scores[:, :, :self.radius + 1, :] = 0
        nms_scores[:, :, :, :self.radius + 1] = 0
        nms_scores[:, :, h - self.radius:, :] = 0
        nms_scores[:, :, :, w - self.radius:] = 0

        # detect keypoints without grad
        if self.top_k > 0:
            topk = torch.topk(nms_scores.view(b, -1), self.top_k)
            indices_keypoints = topk.indices  # B x top_k
        else:
            if self.scores_th > 0:
                masks = nms_scores > self.scores_th
                if masks.sum() == 0:
                    th = scores_nograd.reshape(b, -1).mean(dim=1)  # th = self.scores_th
                    masks = nms_scores > th.reshape(b, 1, 1, 1)
            else:
                th = scores_nograd.reshape(b, -1).mean(dim=1)  # th = self.scores_th
                masks = nms_scores > th.reshape(b, 1, 1, 1)
            masks = masks.reshape(b, -1)

            indices_keypoints = []  # list, B x (any size)
            scores_view = scores_nograd.reshape(b, -1)
            for mask, scores in zip(masks, scores_view):
                indices = mask.nonzero(as_tuple=False)[:, 0]
                if len(indices) > self.n_limit:
                    kpts_sc = scores[indices]
                    sort_idx = kpts_sc.sort(descending=True)[1]
                    sel_idx = sort_idx[:self.n_limit]
                    indices = indices[sel_idx]
                indices_keypoints.append(indices)

        keypoints = []
        kptscores = []
        for b_idx in range(b):
            indices_kpt = indices_keypoints[b_idx]  # one dimension vector, say its size is M
            keypoints_xy_nms = torch.stack([indices_kpt % w, torch.div(indices_kpt, w, rounding_mode='trunc')], dim=1)  # Mx2
            keypoints_xy = keypoints_xy_nms / keypoints_xy_nms.new_tensor([w - 1, h - 1]) * 2 - 1  # (w,h) -> (-1~1,-1~1)
            kptscore = torch.nn.functional.grid_sample(scores_map[b_idx].unsqueeze(0),
                                                       keypoints_xy.view(1, 1, -1, 2),
                                                       mode='bilinear', align_corners=True)[0, 0, 0, :]  # CxN
            keypoints.append(keypoints_xy)
            kptscores.append(kptscore)
        return keypoints, kptscores


class ALikeScoreHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, dim, 3, padding=1)
        self.score_head = nn.Conv2d(dim, 1, 1)
        self.dkd = DKD(radius=2, top_k=-1, scores_th=0.2, n_limit=40)

    def forward(self, img):
        feats = torch.relu(self.conv1(img))
        scores_map = torch.sigmoid(self.score_head(feats))
        keypoints, kptscores = self.dkd.detect_keypoints(scores_map)
        return keypoints[0], kptscores[0]


def make_model():
    return ALikeScoreHead().eval()


def example_inputs():
    return (torch.randn(1, 3, 24, 32),)


def other_inputs():
    return [(torch.randn(1, 3, 64, 48),), (torch.randn(1, 3, 16, 20),)]


def probe_inputs():
    return other_inputs()
