"""LoFTR (loftr2onnx) fine-level preprocessing: the unfold stride is computed as
`data['hw0_f'][0] // data['hw0_c'][0]` from the feature-map shapes stored in the data dict, and
`F.unfold(..., stride=stride)` raises "TypeError: iteration over a 0-d tensor" when converting to ONNX.

Source: https://github.com/oooooha/loftr2onnx/issues/6
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image0": {2: "height", 3: "width"}, "image1": {2: "height", 3: "width"}}
BLIND = "domains-73"


class FinePreprocess(nn.Module):
    def __init__(self, W=5, d_model_c=32, d_model_f=16):
        super().__init__()
        self.W = W
        self.d_model_f = d_model_f
        self.down_proj = nn.Linear(d_model_c, d_model_f, bias=True)
        self.merge_feat = nn.Linear(2 * d_model_f, d_model_f, bias=True)

    def forward(self, feat_f0, feat_f1, feat_c0, feat_c1, data):
        W = self.W
        stride = data['hw0_f'][0] // data['hw0_c'][0]

        data.update({'W': W})
        # 1. unfold(crop) all local windows
        feat_f0_unfold = F.unfold(feat_f0, kernel_size=(W, W), stride=stride, padding=W//2)
        n, cww, l = feat_f0_unfold.shape  # rearrange 'n (c ww) l -> n l ww c'
        feat_f0_unfold = feat_f0_unfold.view(n, -1, W**2, l).permute(0, 3, 2, 1)
        feat_f1_unfold = F.unfold(feat_f1, kernel_size=(W, W), stride=stride, padding=W//2)
        feat_f1_unfold = feat_f1_unfold.view(n, -1, W**2, l).permute(0, 3, 2, 1)

        # 2. select only the predicted matches
        feat_f0_unfold = feat_f0_unfold[data['b_ids'], data['i_ids']]  # [n, ww, cf]
        feat_f1_unfold = feat_f1_unfold[data['b_ids'], data['j_ids']]

        # option: use coarse-level loftr feature as context: concat and linear
        feat_c_win = self.down_proj(torch.cat([feat_c0[data['b_ids'], data['i_ids']],
                                               feat_c1[data['b_ids'], data['j_ids']]], 0))  # [2n, c]
        feat_cf_win = self.merge_feat(torch.cat([
            torch.cat([feat_f0_unfold, feat_f1_unfold], 0),  # [2n, ww, cf]
            feat_c_win.unsqueeze(1).repeat(1, W**2, 1),  # [2n, ww, cf]
        ], -1))
        feat_f0_unfold, feat_f1_unfold = torch.chunk(feat_cf_win, 2, dim=0)
        return feat_f0_unfold, feat_f1_unfold


class LoFTR(nn.Module):
    def __init__(self):
        super().__init__()
        self.fine_net = nn.Conv2d(1, 16, 3, stride=2, padding=1)      # 1/2 resolution
        self.coarse_net = nn.Conv2d(16, 32, 4, stride=4)               # 1/8 resolution
        self.fine_preprocess = FinePreprocess()

    def forward(self, image0, image1):
        feat_f0, feat_f1 = self.fine_net(image0), self.fine_net(image1)
        feat_c0, feat_c1 = self.coarse_net(feat_f0), self.coarse_net(feat_f1)
        data = {'hw0_c': feat_c0.shape[2:], 'hw1_c': feat_c1.shape[2:],
                'hw0_f': feat_f0.shape[2:], 'hw1_f': feat_f1.shape[2:]}
        feat_c0 = feat_c0.flatten(2).transpose(1, 2)  # n (h w) c
        feat_c1 = feat_c1.flatten(2).transpose(1, 2)

        # coarse matching (dual-softmax, best match in image1 for each coarse cell of image0)
        sim_matrix = torch.einsum("nlc,nsc->nls", feat_c0, feat_c1) / 0.1
        conf_matrix = F.softmax(sim_matrix, 1) * F.softmax(sim_matrix, 2)
        mconf, j_ids = conf_matrix.max(dim=2)
        i_ids = torch.arange(feat_c0.shape[1]).unsqueeze(0).expand_as(j_ids)
        b_ids = torch.arange(feat_c0.shape[0]).unsqueeze(1).expand_as(j_ids)
        data.update({'b_ids': b_ids.reshape(-1), 'i_ids': i_ids.reshape(-1), 'j_ids': j_ids.reshape(-1)})

        feat_f0_unfold, feat_f1_unfold = self.fine_preprocess(feat_f0, feat_f1, feat_c0, feat_c1, data)
        return feat_f0_unfold, feat_f1_unfold, mconf


def make_model():
    return LoFTR().eval()


def example_inputs():
    return (torch.randn(1, 1, 64, 80), torch.randn(1, 1, 64, 80))


def other_inputs():
    return [(torch.randn(1, 1, 48, 96), torch.randn(1, 1, 48, 96)),
            (torch.randn(1, 1, 80, 64), torch.randn(1, 1, 80, 64))]


def probe_inputs():
    return other_inputs()
