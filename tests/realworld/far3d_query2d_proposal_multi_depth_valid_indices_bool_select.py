"""Far3D (long-range camera 3D detection) head: `FarHead.build_query2d_proposal` lifts the 2D detector's boxes to
3D queries; with multi-depth proposals it takes the top-k depth bins per box, keeps the extra depths only for boxes
whose best bin passes `range_min_bin` (computed in forward with `torch.tensor([range_min])` ... `.item()`) and grows
the proposal set with boolean selections (`bboxes_extra[valid_indices.repeat(topk-1)]`, `topk_indices[:, 1:][valid_indices]`,
`img2lidars_extra[valid_indices.repeat(topk - 1)]`), so the number of 3D queries depends on the predicted depths.
NVIDIA DL4AGX's far3d-trt patch rewrites this for ONNX export ("this causes errors in onnx export" at
`valid_indices = topk_indices[:, 0] >= ...`) and exports with multi-depth proposals off. The camera-matrix inverse is passed in precomputed, as in DL4AGX's export.

Source: https://github.com/NVIDIA/DL4AGX/blob/410f43d66c2052c6d1c8ee8e11e78e34a4b68d35/AV-Solutions/far3d-trt/patch/far3d.patch
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pred_bboxes": {1: "num_boxes"}}
BLIND = "domains-58"


class FarHead(nn.Module):
    def __init__(self, num_cams=2, embed_dims=32, num_depth_bins=16):
        super().__init__()
        self.num_cams = num_cams
        self.pc_range = nn.Parameter(torch.tensor([-60.0, -60.0, -5.0, 60.0, 60.0, 5.0]), requires_grad=False)
        self.add_multi_depth_proposal = True
        self.multi_depth_config = dict(topk=3, range_min=5)
        self.depthnet_config = dict(depth_min=1e-3, depth_max=80.0, num_depth_bins=num_depth_bins)
        self.query_embedding = nn.Sequential(nn.Linear(3, embed_dims), nn.ReLU(), nn.Linear(embed_dims, embed_dims))
        self.cls_branch = nn.Linear(embed_dims, 10)

    def _convert_bin_depth_to_specific(self, pred_indices, mode='LID', inverse=False):
        depth_min, depth_max, num_bins = [self.depthnet_config.get(key) for key in ['depth_min', 'depth_max', 'num_depth_bins']]
        if mode == 'LID':
            bin_size = 2 * (depth_max - depth_min) / (num_bins * (1 + num_bins))
            if not inverse:     # bin -> depth
                depth = depth_min + bin_size / 8 * (torch.square(pred_indices / 0.5 + 1) - 1)
                return depth
            else:               # depth -> nearest bin
                indices = -0.5 + 0.5 * torch.sqrt(1 + 8 * (pred_indices - depth_min) / bin_size)
                indices = indices.type(torch.int64)
                return indices

    @torch.no_grad()
    def build_query2d_proposal(self, pred_bbox_list, pred_depth, data, bn, padHW, input_depth_logits=False):
        B, N = bn
        pad_h, pad_w = padHW
        eps = 1e-5
        depth_downsample = int(pad_h / pred_depth.shape[1])

        # bbox list to (sum(Mi), 2)
        bbox_nums = [len(bbox) for bbox in pred_bbox_list]  # BN values
        bboxes = torch.cat(pred_bbox_list, dim=0).float()   # gather boxes together
        if sum(bbox_nums) == 0:  # no effective 2d proposal
            return None, None
        # obtain corresponding depth
        depth_list = []
        h_max, w_max = pred_depth.shape[1:3]
        for ith, pred_bbox in enumerate(pred_bbox_list):
            if bbox_nums[ith] != 0:
                cur_depthmap = pred_depth[ith].flatten(0, 1)     # shape (HW, 1) or (HW, D)
                cur_center2d = (pred_bbox[:, :2] / depth_downsample).round().long()      # first w then h
                cur_center2d[cur_center2d < 0] = 0
                cur_center2d[:, 0][cur_center2d[:, 0] >= w_max] = w_max - 1
                cur_center2d[:, 1][cur_center2d[:, 1] >= h_max] = h_max - 1

                cur_center2d = cur_center2d.flip(dims=(-1, ))   # to obtain depth, obtain (h, w)
                cur_center2d_ = cur_center2d[:, 0] * (pad_w/depth_downsample) + cur_center2d[:, 1]
                if input_depth_logits:
                    cur_depth = torch.gather(cur_depthmap, 0, cur_center2d_.long().unsqueeze(1)
                                             .repeat(1, cur_depthmap.shape[1]))  # (Mi, D)
                else:
                    cur_depth = torch.gather(cur_depthmap, 0, cur_center2d_.long().unsqueeze(1))  # (Mi, 1)
                depth_list.append(cur_depth)
        depths = torch.cat(depth_list, dim=0)  # (M, 1) or (M, D)
        if self.add_multi_depth_proposal:
            range_min = self.multi_depth_config.get('range_min', -1)
            if input_depth_logits and self.multi_depth_config.get('topk', -1) != -1:
                # generate multi proposals by topk depth logits
                topk = self.multi_depth_config.get('topk')
                range_min_bin = self._convert_bin_depth_to_specific(torch.tensor([range_min]), inverse=True).item()
                topk_values, topk_indices = torch.topk(depths, topk, dim=1)  # (M, K)
                valid_indices = topk_indices[:, 0] >= range_min_bin          # (M)
                bboxes_extra = bboxes.repeat(topk-1, 1)
                bboxes = torch.cat([bboxes, bboxes_extra[valid_indices.repeat(topk-1)]], dim=0) # (M', 4)
                depths_extra = topk_indices[:, 1:][valid_indices]   # (M, topk-1)
                depths_extra = depths_extra.transpose(1, 0).flatten().unsqueeze(-1)     # (M*(topk-1), 1)
                depths = torch.cat([topk_indices[:, 0:1], depths_extra], dim=0)

        # convert bin to float depth
        depths = self._convert_bin_depth_to_specific(depths)

        # (u,v), d -> (ud,vd,d,1)
        coords = torch.cat([bboxes[:, :2], depths], dim=1)     # (M, 3), order is (w, h, d)
        coords = torch.cat((coords, torch.ones_like(coords[..., :1])), -1)      # (M, 4)
        coords[..., :2] = coords[..., :2] * torch.maximum(coords[..., 2:3], torch.ones_like(coords[..., 2:3]) * eps)
        coords = coords.unsqueeze(-1)  # (M, 4, 1)

        # img2lidar array build
        # upstream: img2lidars = data['lidar2img'].inverse(); the inverse is taken outside the model here, as in
        # DL4AGX's export, so that torch.inverse (no ONNX mapping) does not hide the failure this case is about
        img2lidars = data['img2lidars']  # (B, N, 4, 4)
        img2lidars = img2lidars.view(B*N, 1, 4, 4) # (BN, 1, 4, 4)
        img2lidars_ = torch.cat([img2lidars[kth].repeat(num, 1, 1) for kth, num in enumerate(bbox_nums)], dim=0)    # (M, 4, 4)
        if self.add_multi_depth_proposal:
            if input_depth_logits and self.multi_depth_config.get('topk', -1) != -1:
                img2lidars_extra = img2lidars_.repeat(topk - 1, 1, 1)
                img2lidars_extra = img2lidars_extra[valid_indices.repeat(topk - 1)]
                img2lidars_ = torch.cat([img2lidars_, img2lidars_extra], dim=0)

        # matmul and normalize 3d coords
        coords3d = torch.matmul(img2lidars_, coords).squeeze(-1)[..., :3]    # (M, 3)
        coords3d[..., 0:1] = (coords3d[..., 0:1] - self.pc_range[0]) / (self.pc_range[3] - self.pc_range[0])
        coords3d[..., 1:2] = (coords3d[..., 1:2] - self.pc_range[1]) / (self.pc_range[4] - self.pc_range[1])
        coords3d[..., 2:3] = (coords3d[..., 2:3] - self.pc_range[2]) / (self.pc_range[5] - self.pc_range[2])
        if B == 1:
            new_reference_points = coords3d.unsqueeze(0)    # (B, M, 3)
        else:
            raise NotImplementedError
        return new_reference_points, None

    def forward(self, pred_bboxes, pred_depth, img2lidars):
        # pred_bboxes: (N, M, 4) 2D proposals (cx, cy, w, h) per camera; pred_depth: (N, H, W, D) depth logits
        pred_bbox_list = [b for b in pred_bboxes]
        reference_points2d, _ = self.build_query2d_proposal(
            pred_bbox_list, pred_depth.softmax(-1), dict(img2lidars=img2lidars), (1, self.num_cams), (64, 128),
            input_depth_logits=True)
        query = self.query_embedding(reference_points2d)
        return self.cls_branch(query), reference_points2d


def make_model():
    return FarHead().eval()


def _inputs(m):
    boxes = torch.rand(2, m, 4) * torch.tensor([128.0, 64.0, 20.0, 20.0])
    l2i = torch.eye(4).repeat(1, 2, 1, 1)
    l2i[..., :3, :3] += 0.1 * torch.randn(1, 2, 3, 3)
    return boxes, torch.randn(2, 16, 32, 16) * 3, l2i.inverse()


def example_inputs():
    return _inputs(6)


def other_inputs():
    return [_inputs(9), _inputs(4)]


def probe_inputs():
    return other_inputs()
