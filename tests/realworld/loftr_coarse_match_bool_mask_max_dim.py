"""LoFTR's dual-softmax coarse matching thresholds the confidence matrix, keeps mutual nearest neighbours as a
bool mask and then takes `mask_v, all_j_ids = mask.max(dim=2)` on that bool mask. The loftr2onnx export port
comments this line out and replaces it with `mask.int().max(dim=2)` so the exported model runs in
onnxruntime (max/argmax over a bool tensor becomes ReduceMax/ArgMax on tensor(bool), which onnxruntime
rejects). This is the code before that workaround.

Source: https://github.com/oooooha/loftr2onnx/blob/8cd837acd29ec2668b52bc62240b854c01dfa9aa/loftr/utils/coarse_matching.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"feat_c0": {0: "batch", 1: "l"}, "feat_c1": {0: "batch", 1: "s"}}
BLIND = "operators-44"


class CoarseMatching(nn.Module):
    def __init__(self, thr=0.2, temperature=0.1):
        super().__init__()
        self.thr = thr
        self.temperature = temperature

    @torch.no_grad()
    def forward(self, feat_c0, feat_c1):
        # normalize
        feat_c0, feat_c1 = map(lambda feat: feat / feat.shape[-1]**.5,
                               [feat_c0, feat_c1])
        sim_matrix = torch.einsum("nlc,nsc->nls", feat_c0,
                                  feat_c1) / self.temperature
        conf_matrix = F.softmax(sim_matrix, 1) * F.softmax(sim_matrix, 2)
        return self.get_coarse_match(conf_matrix)

    def get_coarse_match(self, conf_matrix):
        # 1. confidence thresholding
        mask = conf_matrix > self.thr

        # 2. mutual nearest
        mask = mask \
            * (conf_matrix == conf_matrix.max(dim=2, keepdim=True)[0]) \
            * (conf_matrix == conf_matrix.max(dim=1, keepdim=True)[0])

        # 3. find all valid coarse matches
        # this only works when at most one `True` in each row
        mask_v, all_j_ids = mask.max(dim=2)
        return mask_v, all_j_ids


def make_model():
    return CoarseMatching().eval()


def _feats(n, l, s, c=32):
    base = torch.randn(n, max(l, s), c) * 3
    return base[:, :l] + 0.1 * torch.randn(n, l, c), base[:, :s] + 0.1 * torch.randn(n, s, c)


def example_inputs():
    return _feats(2, 48, 40)


def other_inputs():
    return [_feats(3, 60, 64), _feats(1, 30, 36)]


def probe_inputs():
    return other_inputs()
