"""MonoFlex monocular 3D detector head (edge feature fusion): for every image `k` of the batch the truncated-object
edge features are added back with `edge_indice_k = edge_indices[k, :edge_lens[k]]` and
`output_cls[k, :, edge_indice_k[:, 1], edge_indice_k[:, 0]] += edge_cls_output[k, :, :edge_lens[k]]`, a slice whose
end is a tensor value, inside a Python loop over the batch; the reporter names exactly these lines as the PyTorch
operations that block deploying MonoFlex through ONNX to TensorRT.

Source: https://github.com/Yibin122/TensorRT-SMOKE/issues/1
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"images": {0: "batch"}, "edge_indices": {0: "batch"}, "edge_lens": {0: "batch"}}
BLIND = "domains-47"


def sigmoid_hm(hm_features):
    x = hm_features.sigmoid_()
    x = x.clamp(min=1e-4, max=1 - 1e-4)
    return x


class _predictor(nn.Module):
    def __init__(self, in_channels=16, head_conv=16, classes=3, output_width=24, output_height=12):
        super(_predictor, self).__init__()
        self.regression_head_cfg = [['2d_dim'], ['3d_offset']]
        self.regression_channel_cfg = [[4], [2]]
        self.output_width = output_width
        self.output_height = output_height
        self.head_conv = head_conv
        norm_func = nn.BatchNorm2d

        self.class_head = nn.Sequential(
            nn.Conv2d(in_channels, self.head_conv, kernel_size=3, padding=1, bias=False),
            norm_func(self.head_conv), nn.ReLU(inplace=True),
            nn.Conv2d(self.head_conv, classes, kernel_size=1, padding=1 // 2, bias=True),
        )
        self.class_head[-1].bias.data.fill_(- np.log(1 / 0.01 - 1))

        self.reg_features = nn.ModuleList()
        self.reg_heads = nn.ModuleList()
        for idx, regress_head_key in enumerate(self.regression_head_cfg):
            feat_layer = nn.Sequential(nn.Conv2d(in_channels, self.head_conv, kernel_size=3, padding=1, bias=False),
                                       norm_func(self.head_conv), nn.ReLU(inplace=True))
            self.reg_features.append(feat_layer)
            head_channels = self.regression_channel_cfg[idx]
            head_list = nn.ModuleList()
            for key_index, key in enumerate(regress_head_key):
                output_head = nn.Conv2d(self.head_conv, head_channels[key_index], kernel_size=1, padding=1 // 2, bias=True)
                # since the edge fusion is applied to the offset branch, we should save the index of this branch
                if key == '3d_offset': self.offset_index = [idx, key_index]
                head_list.append(output_head)
            self.reg_heads.append(head_list)

        self.enable_edge_fusion = True
        self.trunc_heatmap_conv = nn.Sequential(
            nn.Conv1d(self.head_conv, self.head_conv, kernel_size=3, padding=3 // 2, padding_mode='replicate'),
            nn.BatchNorm1d(self.head_conv), nn.ReLU(inplace=True), nn.Conv1d(self.head_conv, classes, kernel_size=1),
        )
        self.trunc_offset_conv = nn.Sequential(
            nn.Conv1d(self.head_conv, self.head_conv, kernel_size=3, padding=3 // 2, padding_mode='replicate'),
            nn.BatchNorm1d(self.head_conv), nn.ReLU(inplace=True), nn.Conv1d(self.head_conv, 2, kernel_size=1),
        )

    def forward(self, features, edge_indices, edge_lens):
        b, c, h, w = features.shape

        # output classification
        feature_cls = self.class_head[:-1](features)
        output_cls = self.class_head[-1](feature_cls)

        output_regs = []
        # output regression
        for i, reg_feature_head in enumerate(self.reg_features):
            reg_feature = reg_feature_head(features)

            for j, reg_output_head in enumerate(self.reg_heads[i]):
                output_reg = reg_output_head(reg_feature)

                # apply edge feature enhancement
                if self.enable_edge_fusion and i == self.offset_index[0] and j == self.offset_index[1]:
                    # normalize
                    grid_edge_indices = edge_indices.view(b, -1, 1, 2).float()
                    grid_edge_indices[..., 0] = grid_edge_indices[..., 0] / (self.output_width - 1) * 2 - 1
                    grid_edge_indices[..., 1] = grid_edge_indices[..., 1] / (self.output_height - 1) * 2 - 1

                    # apply edge fusion for both offset and heatmap
                    feature_for_fusion = torch.cat((feature_cls, reg_feature), dim=1)
                    edge_features = F.grid_sample(feature_for_fusion, grid_edge_indices, align_corners=True).squeeze(-1)

                    edge_cls_feature = edge_features[:, :self.head_conv, ...]
                    edge_offset_feature = edge_features[:, self.head_conv:, ...]
                    edge_cls_output = self.trunc_heatmap_conv(edge_cls_feature)
                    edge_offset_output = self.trunc_offset_conv(edge_offset_feature)

                    for k in range(b):
                        edge_indice_k = edge_indices[k, :edge_lens[k]]
                        output_cls[k, :, edge_indice_k[:, 1], edge_indice_k[:, 0]] += edge_cls_output[k, :, :edge_lens[k]]
                        output_reg[k, :, edge_indice_k[:, 1], edge_indice_k[:, 0]] += edge_offset_output[k, :, :edge_lens[k]]

                output_regs.append(output_reg)

        output_cls = sigmoid_hm(output_cls)
        output_regs = torch.cat(output_regs, dim=1)
        return output_cls, output_regs


class MonoFlex(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU())  # DOWN_RATIO 4
        self.predictor = _predictor()

    def forward(self, images, edge_indices, edge_lens):
        # edge_indices / edge_len come from each image's targets (B x K x 2, B) in MonoFlex's test loader
        return self.predictor(self.backbone(images), edge_indices, edge_lens)


def _edges(valid_wh, K=2 * (24 + 12)):
    # perimeter pixels of each image's valid (unpadded) region on the 24 x 12 output map, zero padded to K
    idx, lens = torch.zeros(len(valid_wh), K, 2, dtype=torch.long), []
    for n, (vw, vh) in enumerate(valid_wh):
        pts = [(x, 0) for x in range(vw)] + [(vw - 1, y) for y in range(1, vh)]
        pts += [(x, vh - 1) for x in range(vw - 2, -1, -1)] + [(0, y) for y in range(vh - 2, 0, -1)]
        idx[n, :len(pts)] = torch.tensor(pts)
        lens.append(len(pts))
    return idx, torch.tensor(lens)


def make_model():
    return MonoFlex().eval()


def example_inputs():
    return (torch.randn(2, 3, 48, 96), *_edges([(24, 12), (20, 10)]))


def other_inputs():
    return [(torch.randn(3, 3, 48, 96), *_edges([(16, 12), (24, 9), (22, 12)])),
            (torch.randn(1, 3, 48, 96), *_edges([(12, 6)]))]


def probe_inputs():
    return other_inputs()
