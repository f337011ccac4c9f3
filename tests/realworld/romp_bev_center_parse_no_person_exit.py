"""ROMP/BEV monocular 3-D human mesh recovery (simple_romp/bev/model.py): `forward` parses the 3-D center
map (topk + `topk_score > conf_thresh` + `torch.where(mask)`), exits with `if len(center_preds_info_3d[0])==0:
return None` when no person is found, then gathers the camera map at the detected (batch, z, y, x) centers;
`export_model_to_onnx_static()` only gets TracerWarnings ("Using len to get tensor shape might cause the trace
to be incorrect ... silently give incorrect results") for that exit and for `len(cam_params)`.
(HigherResolutionNet trimmed to two strided convs, map size 128 -> 16, 1-D/3-D blocks to single layers;
the output dict trimmed to the two exported maps.)

Source: https://github.com/Arthur151/ROMP/issues/405
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-21"


def get_3Dcoord_maps_halfz(size, z_base):
    range_arr = torch.arange(size, dtype=torch.float32)
    z_len = len(z_base)
    Z_map = z_base.reshape(1, z_len, 1, 1, 1).repeat(1, 1, size, size, 1)
    Y_map = range_arr.reshape(1, 1, size, 1, 1).repeat(1, z_len, 1, size, 1) / size * 2 - 1
    X_map = range_arr.reshape(1, 1, 1, size, 1).repeat(1, z_len, size, 1, 1) / size * 2 - 1
    return torch.cat([Z_map, Y_map, X_map], dim=-1)


def nms(det, pool_func=None):
    maxm = pool_func(det)
    maxm = torch.eq(maxm, det).float()
    return det * maxm


def gather_feature(fmap, index):
    dim = fmap.size(-1)
    index = index.unsqueeze(len(index.shape)).expand(*index.shape, dim)
    return fmap.gather(dim=1, index=index)


class CenterMap3D(object):
    def __init__(self, conf_thresh):
        self.max_person = 64
        self.conf_thresh = conf_thresh
        self.maxpool3d = torch.nn.MaxPool3d(5, 1, (5 - 1) // 2)

    def parse_3dcentermap(self, center_maps):
        center_map_nms = nms(center_maps, pool_func=self.maxpool3d).squeeze(1)
        b, c, h, w = center_map_nms.shape
        K = self.max_person
        topk_scores, topk_inds = torch.topk(center_map_nms.reshape(b, c, -1), K)
        topk_inds = topk_inds % (h * w)
        topk_ys = (topk_inds.long() // w).float()
        topk_xs = (topk_inds % w).int().float()
        topk_score, index = torch.topk(topk_scores.reshape(b, -1), K)
        topk_zs = index.long() // K
        topk_ys = gather_feature(topk_ys.reshape(b, -1, 1), index).reshape(b, K)
        topk_xs = gather_feature(topk_xs.reshape(b, -1, 1), index).reshape(b, K)

        mask = topk_score > self.conf_thresh
        batch_ids = torch.where(mask)[0]
        center_zyxs = torch.stack([topk_zs[mask].long(), topk_ys[mask].long(), topk_xs[mask].long()]).permute((1, 0)).long()
        return [batch_ids, center_zyxs, topk_score[mask]]


def convert_cam_params_to_centermap_coords(cam_params, cam3dmap_anchor):
    center_coords = torch.ones_like(cam_params)
    center_coords[:, 1:] = cam_params[:, 1:].clone()
    cam3dmap_anchors = cam3dmap_anchor.to(cam_params.device)[None]
    scale_num = len(cam3dmap_anchor)
    if len(cam_params) != 0:
        center_coords[:, 0] = torch.argmin(torch.abs(cam_params[:, [0]].repeat(1, scale_num) - cam3dmap_anchors), dim=1).float() / 128 * 2. - 1.
    return center_coords


def denormalize_center(center, size=128):
    center = (center + 1) / 2 * size
    return torch.clamp(center, 1, size - 1).long()


class BEVv1(nn.Module):
    def __init__(self, outmap_size=16, center_thresh=0.1):
        super().__init__()
        self.outmap_size, C = outmap_size, 32
        self.output_cfg = {'NUM_PARAMS_MAP': 24, 'NUM_CENTER_MAP': 1, 'NUM_CAM_MAP': 3}
        self.bv_center_cfg = {'NUM_DEPTH_LEVEL': self.outmap_size // 2}
        self.backbone = nn.Sequential(nn.Conv2d(3, C, 3, 2, 1), nn.BatchNorm2d(C), nn.ReLU(True),
                                      nn.Conv2d(C, C, 3, 2, 1), nn.BatchNorm2d(C), nn.ReLU(True))
        self.position_embeddings = nn.Embedding(self.outmap_size, C, padding_idx=0)
        self.transformer = nn.Sequential(nn.Linear(C, 64), nn.ReLU(inplace=True), nn.Linear(64, self.output_cfg['NUM_PARAMS_MAP']))
        self.cam3dmap_anchor = torch.linspace(8., 0.5, self.bv_center_cfg['NUM_DEPTH_LEVEL'])
        self.register_buffer('coordmap_3d', get_3Dcoord_maps_halfz(self.outmap_size, z_base=self.cam3dmap_anchor))
        self.det_head = nn.Conv2d(C, self.output_cfg['NUM_CENTER_MAP'] + self.output_cfg['NUM_CAM_MAP'], 1)
        self.param_head = nn.Conv2d(C, C, 1)
        self.bv_pre_layers = nn.Sequential(nn.Conv2d(C, 4, 1), nn.BatchNorm2d(4), nn.ReLU(inplace=True))
        self.bv_out_layers = nn.Conv1d((4 + 1 + 3) * self.outmap_size, self.bv_center_cfg['NUM_DEPTH_LEVEL'] * 2, 1)
        self.center_map_refiner = nn.Conv3d(1, 1, 3, 1, 1)
        self.cam_map_refiner = nn.Conv3d(3, 3, 3, 1, 1)
        self.centermap_parser = CenterMap3D(conf_thresh=center_thresh)

    def fv_conditioned_bv_estimation(self, x, center_maps_fv, cam_maps_offset):
        img_feats = self.bv_pre_layers(x)
        summon_feats = torch.cat([center_maps_fv, cam_maps_offset, img_feats], 1).view(img_feats.size(0), -1, self.outmap_size)
        outputs_bv = self.bv_out_layers(summon_feats)
        center_maps_bv = outputs_bv[:, :self.bv_center_cfg['NUM_DEPTH_LEVEL']]
        cam_maps_offset_bv = outputs_bv[:, self.bv_center_cfg['NUM_DEPTH_LEVEL']:]
        center_map_3d = center_maps_fv.repeat(1, self.bv_center_cfg['NUM_DEPTH_LEVEL'], 1, 1) * \
            center_maps_bv.unsqueeze(2).repeat(1, 1, self.outmap_size, 1)
        return center_map_3d, cam_maps_offset_bv

    def coarse2fine_localization(self, x):
        maps_fv = self.det_head(x)
        center_maps_fv = maps_fv[:, :self.output_cfg['NUM_CENTER_MAP']]
        cam_maps_offset = maps_fv[:, self.output_cfg['NUM_CENTER_MAP']:self.output_cfg['NUM_CENTER_MAP'] + self.output_cfg['NUM_CAM_MAP']]
        center_maps_3d, cam_maps_offset_bv = self.fv_conditioned_bv_estimation(x, center_maps_fv, cam_maps_offset)
        center_maps_3d = self.center_map_refiner(center_maps_3d.unsqueeze(1)).squeeze(1)
        cam_maps_3d = self.coordmap_3d + cam_maps_offset.unsqueeze(-1).transpose(4, 1).contiguous()
        cam_maps_3d[:, :, :, :, 2] = cam_maps_3d[:, :, :, :, 2] + cam_maps_offset_bv.unsqueeze(2).contiguous()
        cam_maps_3d = self.cam_map_refiner(cam_maps_3d.unsqueeze(1).transpose(5, 1).squeeze(-1))
        return center_maps_3d, cam_maps_3d, center_maps_fv

    def differentiable_person_feature_sampling(self, feature, pred_czyxs, pred_batch_ids):
        cz, cy, cx = pred_czyxs[:, 0], pred_czyxs[:, 1], pred_czyxs[:, 2]
        position_encoding = self.position_embeddings(cz)
        feature_sampled = feature[pred_batch_ids, :, cy, cx]
        return feature_sampled + position_encoding

    def mesh_parameter_regression(self, fv_f, cams_preds, pred_batch_ids):
        cam_czyx = denormalize_center(convert_cam_params_to_centermap_coords(cams_preds.clone(), self.cam3dmap_anchor), size=self.outmap_size)
        feature_sampled = self.differentiable_person_feature_sampling(fv_f, cam_czyx, pred_batch_ids)
        params_preds = self.transformer(feature_sampled)
        params_preds = torch.cat([cams_preds, params_preds], 1)
        return params_preds, cam_czyx

    @torch.no_grad()
    def forward(self, x):
        x = self.backbone(((x / 255.) - 0.5).permute(0, 3, 1, 2).contiguous())
        center_maps_3d, cam_maps_3d, center_maps_fv = self.coarse2fine_localization(x)

        center_preds_info_3d = self.centermap_parser.parse_3dcentermap(center_maps_3d)
        if len(center_preds_info_3d[0]) == 0:
            print('No person detected!')
            return None
        pred_batch_ids, pred_czyxs, center_confs = center_preds_info_3d
        cams_preds = cam_maps_3d[pred_batch_ids, :, pred_czyxs[:, 0], pred_czyxs[:, 1], pred_czyxs[:, 2]]

        front_view_features = self.param_head(x)
        params_preds, cam_czyx = self.mesh_parameter_regression(front_view_features, cams_preds, pred_batch_ids)
        return center_maps_fv.float(), params_preds.float()


def make_model():
    return BEVv1().eval()


def example_inputs():
    return (torch.rand(1, 64, 64, 3) * 255,)


def other_inputs():
    return [(torch.rand(3, 64, 64, 3) * 255,), (torch.rand(2, 64, 64, 3) * 255,)]


def probe_inputs():
    return other_inputs()
