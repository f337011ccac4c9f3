"""TransFuser (CARLA driving agent, LidarCenterNet): forward decodes the CenterNet BEV head's top-100
boxes, then loops over `bboxes.detach().cpu().numpy()` and rotates each box into the ego frame with NumPy
(`np.linalg.inv`, `np.array`, `np.cos`/`np.sin`, `R @ bbox[i]`) before turning the arrays back into
tensors with `torch.from_numpy`; tt-forge-models replaced the NumPy arrays and ops with torch ones because
they made the model fail under tt-xla's torch.compile path.

Source: https://github.com/tenstorrent/tt-forge-models/pull/330
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {}  # the agent runs one frame at a time (get_bboxes asserts a single sample); new values only
BLIND = "domains-56"


def get_lidar_to_bevimage_transform():
    T = np.array([[0, -1, 16], [-1, 0, 32], [0, 0, 1]], dtype=np.float32)
    T[:2, :] *= 8

    return T


def gather_feat(feat, ind, mask=None):
    dim = feat.size(2)
    ind = ind.unsqueeze(2).repeat(1, 1, dim)
    feat = feat.gather(1, ind)
    return feat


def transpose_and_gather_feat(feat, ind):
    feat = feat.permute(0, 2, 3, 1).contiguous()
    feat = feat.view(feat.size(0), -1, feat.size(3))
    feat = gather_feat(feat, ind)
    return feat


def get_local_maximum(heat, kernel=3):
    pad = (kernel - 1) // 2
    hmax = F.max_pool2d(heat, kernel, stride=1, padding=pad)
    keep = (hmax == heat).float()
    return heat * keep


def get_topk_from_heatmap(scores, k=20):
    batch, _, height, width = scores.size()
    topk_scores, topk_inds = torch.topk(scores.view(batch, -1), k)
    topk_clses = topk_inds // (height * width)
    topk_inds = topk_inds % (height * width)
    topk_ys = topk_inds // width
    topk_xs = (topk_inds % width).int().float()

    return topk_scores, topk_inds, topk_clses, topk_ys, topk_xs


class TransfuserBackbone(nn.Module):
    # stands in for the image + LiDAR ResNet fusion backbone: BEV feature map (stride 4) and a 512-d fused vector
    def __init__(self):
        super().__init__()
        self.image_encoder = nn.Sequential(nn.Conv2d(3, 32, 3, 4, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.lidar_encoder = nn.Sequential(nn.Conv2d(3, 64, 3, 2, 1), nn.ReLU(), nn.Conv2d(64, 64, 3, 2, 1))
        self.fuse = nn.Linear(32 + 64 + 1, 512)

    def forward(self, rgb, lidar_bev, ego_vel):
        image_features = self.image_encoder(rgb).flatten(1)
        bev = self.lidar_encoder(lidar_bev)
        fused_features = self.fuse(torch.cat([image_features, bev.mean((2, 3)), ego_vel], dim=1))
        return [bev], image_features, fused_features


class LidarCenterNetHead(nn.Module):
    def __init__(self, in_channel=64, feat_channel=64, num_classes=1):
        super().__init__()
        self.num_classes = num_classes
        self.heatmap_head = self._build_head(in_channel, feat_channel, num_classes)
        self.wh_head = self._build_head(in_channel, feat_channel, 2)
        self.offset_head = self._build_head(in_channel, feat_channel, 2)
        self.num_dir_bins = 12
        self.yaw_class_head = self._build_head(in_channel, feat_channel, self.num_dir_bins)
        self.yaw_res_head = self._build_head(in_channel, feat_channel, 1)
        self.velocity_head = self._build_head(in_channel, feat_channel, 1)
        self.brake_head = self._build_head(in_channel, feat_channel, 2)

    def _build_head(self, in_channel, feat_channel, out_channel):
        layer = nn.Sequential(
            nn.Conv2d(in_channel, feat_channel, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(feat_channel, out_channel, kernel_size=1),
        )
        return layer

    def forward(self, feats):
        return self.forward_single(feats)

    def forward_single(self, feat):
        center_heatmap_pred = self.heatmap_head(feat).sigmoid()
        wh_pred = self.wh_head(feat)
        offset_pred = self.offset_head(feat)
        yaw_class_pred = self.yaw_class_head(feat)
        yaw_res_pred = self.yaw_res_head(feat)
        velocity_pred = self.velocity_head(feat)
        brake_pred = self.brake_head(feat)
        return (center_heatmap_pred, wh_pred, offset_pred, yaw_class_pred, yaw_res_pred,
                velocity_pred, brake_pred)

    def class2angle(self, angle_cls, angle_res, limit_period=True):
        angle_per_class = 2 * np.pi / float(self.num_dir_bins)
        angle_center = angle_cls.float() * angle_per_class
        angle = angle_center + angle_res
        if limit_period:
            angle = torch.where(angle > math.pi, angle - 2 * math.pi, angle)
        return angle

    def get_bboxes(self, center_heatmap_preds, wh_preds, offset_preds, yaw_class_preds,
                   yaw_res_preds, velocity_preds, brake_preds):
        assert len(center_heatmap_preds) == len(wh_preds) == len(offset_preds) == 1

        batch_det_bboxes, batch_labels = self.decode_heatmap(
            center_heatmap_preds, wh_preds, offset_preds, yaw_class_preds, yaw_res_preds,
            velocity_preds, brake_preds, k=100, kernel=3,
        )

        det_results = [tuple(bs) for bs in zip(batch_det_bboxes, batch_labels)]
        return det_results

    def decode_heatmap(self, center_heatmap_pred, wh_pred, offset_pred, yaw_class_pred,
                       yaw_res_pred, velocity_pred, brake_pred, k=100, kernel=3):
        center_heatmap_pred = get_local_maximum(center_heatmap_pred, kernel=3)
        *batch_dets, topk_ys, topk_xs = get_topk_from_heatmap(center_heatmap_pred, k=100)
        batch_scores, batch_index, batch_topk_labels = batch_dets

        wh = transpose_and_gather_feat(wh_pred, batch_index)
        offset = transpose_and_gather_feat(offset_pred, batch_index)
        yaw_class = transpose_and_gather_feat(yaw_class_pred, batch_index)
        yaw_res = transpose_and_gather_feat(yaw_res_pred, batch_index)
        velocity = transpose_and_gather_feat(velocity_pred, batch_index)
        brake = transpose_and_gather_feat(brake_pred, batch_index)
        brake = torch.argmax(brake, -1)
        velocity = velocity[..., 0]

        yaw_class = torch.argmax(yaw_class, -1)
        yaw = self.class2angle(yaw_class, yaw_res.squeeze(2))

        topk_xs = topk_xs + offset[..., 0]
        topk_ys = topk_ys + offset[..., 1]

        ratio = 4.0

        batch_bboxes = torch.stack([topk_xs, topk_ys, wh[..., 0], wh[..., 1], yaw, velocity, brake], dim=2)
        batch_bboxes = torch.cat((batch_bboxes, batch_scores[..., None]), dim=-1)
        batch_bboxes[:, :, :4] *= ratio

        return batch_bboxes, batch_topk_labels


class LidarCenterNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.pred_len = 4
        self.use_target_point_image = True
        self.gru_concat_target_point = True
        self._model = TransfuserBackbone()
        self.head = LidarCenterNetHead()
        self.join = nn.Sequential(
            nn.Linear(512, 256), nn.ReLU(inplace=True),
            nn.Linear(256, 128), nn.ReLU(inplace=True),
            nn.Linear(128, 64), nn.ReLU(inplace=True),
        )
        gru_hidden_size = 64
        self.decoder = nn.GRUCell(input_size=4, hidden_size=gru_hidden_size)
        self.output = nn.Linear(gru_hidden_size, 3)

    def forward_gru(self, z, target_point):
        z = self.join(z)
        output_wp = list()
        x = torch.zeros(size=(z.shape[0], 2), dtype=z.dtype).to(z.device)
        target_point = target_point.clone()
        target_point[:, 1] *= -1

        for _ in range(self.pred_len):
            if self.gru_concat_target_point:
                x_in = torch.cat([x, target_point], dim=1)

            z = self.decoder(x_in, z)
            dx = self.output(z)
            x = dx[:, :2] + x
            output_wp.append(x[:, :2])

        pred_wp = torch.stack(output_wp, dim=1)
        pred_wp[:, :, 0] = pred_wp[:, :, 0] - 1.3
        return pred_wp, None, None, None, None

    def forward(self, rgb=None, lidar_bev=None, target_point=None, target_point_image=None, ego_vel=None):
        if self.use_target_point_image:
            lidar_bev = torch.cat((lidar_bev, target_point_image), dim=1)
        features, image_features_grid, fused_features = self._model(rgb, lidar_bev, ego_vel)

        pred_wp, _, _, _, _ = self.forward_gru(fused_features, target_point)

        preds = self.head(features[0])
        results = self.head.get_bboxes(preds[0], preds[1], preds[2], preds[3], preds[4], preds[5], preds[6])
        bboxes, _ = results[0]
        rotated_bboxes = []
        for bbox in bboxes.detach().cpu().numpy():
            bbox = self.get_bbox_local_metric(bbox)
            rotated_bboxes.append(bbox)
        tensor_bboxes = []
        for arr, scale, score in rotated_bboxes:
            tensor_bboxes.append((torch.from_numpy(arr), torch.tensor(scale), torch.tensor(score)))
        return pred_wp, tensor_bboxes

    def get_bbox_local_metric(self, bbox):
        x, y, w, h, yaw, speed, brake, confidence = bbox
        w = w / 2 / 8
        h = h / 2 / 8

        T = get_lidar_to_bevimage_transform()
        T_inv = np.linalg.inv(T)
        center = np.array([x, y, 1.0])
        center_old_coordinate_sys = T_inv @ center
        center_old_coordinate_sys = center_old_coordinate_sys + np.array([1.3, 0.0, 2.5])
        center_old_coordinate_sys[1] = -center_old_coordinate_sys[1]

        bbox = np.array([[-h, -w, 1], [-h, w, 1], [h, w, 1], [h, -w, 1], [0, 0, 1], [0, h * speed * 0.5, 1]])

        R = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])

        for point_index in range(bbox.shape[0]):
            bbox[point_index] = R @ bbox[point_index]
            bbox[point_index] = bbox[point_index] + np.array(
                [center_old_coordinate_sys[0], center_old_coordinate_sys[1], 0]
            )

        return bbox, brake, confidence


def make_model():
    return LidarCenterNet().eval()


def _inputs(b=1):
    # rgb, lidar BEV (2 channels + target-point image), target point (x, y), ego velocity
    return (torch.randn(b, 3, 40, 88), torch.randn(b, 2, 64, 64), torch.randn(b, 2) * 10,
            torch.rand(b, 1, 64, 64), torch.rand(b, 1) * 5)


def example_inputs():
    return _inputs()


def other_inputs():
    return [_inputs(), _inputs()]


def probe_inputs():
    return other_inputs()
