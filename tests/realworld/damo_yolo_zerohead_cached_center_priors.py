"""DAMO-YOLO ZeroHead (GFocal-style head): in eval it builds the per-level center priors from the feature
sizes with `int(w)`/`int(h)` and `.repeat(batch_size, 1, 1)`, caches them on the module keyed by
`self.feat_size[0] != xin[0].shape`, and multiplies the integral distances by `self.mlvl_priors[..., 2, None]`;
exported with dynamic_axes on batch/height/width, that last Mul keeps the export-time shape.

Source: https://github.com/tinyvision/DAMO-YOLO/issues/93
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-26"


def distance2bbox(points, distance, max_shape=None):
    """Decode distance prediction to bounding box.
    """
    x1 = points[..., 0] - distance[..., 0]
    y1 = points[..., 1] - distance[..., 1]
    x2 = points[..., 0] + distance[..., 2]
    y2 = points[..., 1] + distance[..., 3]
    return torch.stack([x1, y1, x2, y2], -1)


def multi_apply(func, *args, **kwargs):
    map_results = map(func, *args, **kwargs)
    return tuple(map(list, zip(*map_results)))


class Scale(nn.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(scale, dtype=torch.float))

    def forward(self, x):
        return x * self.scale


def ConvBNAct(c1, c2, k):
    return nn.Sequential(nn.Conv2d(c1, c2, k, 1, k // 2, bias=False), nn.BatchNorm2d(c2), nn.ReLU(inplace=True))


class Integral(nn.Module):
    def __init__(self, reg_max=16):
        super(Integral, self).__init__()
        self.reg_max = reg_max
        self.register_buffer('project',
                             torch.linspace(0, self.reg_max, self.reg_max + 1))

    def forward(self, x):
        b, hw, _, _ = x.size()
        x = x.reshape(b * hw * 4, self.reg_max + 1)
        y = self.project.type_as(x).unsqueeze(1)
        x = torch.matmul(x, y).reshape(b, hw, 4)
        return x


class ZeroHead(nn.Module):
    def __init__(self, num_classes=4, in_channels=(16, 32, 64), feat_channels=16, reg_max=12, strides=[8, 16, 32]):
        self.num_classes = num_classes
        self.strides = strides
        self.cls_out_channels = num_classes + 1
        self.reg_max = reg_max
        self.feat_size = [torch.zeros(4) for _ in strides]
        super(ZeroHead, self).__init__()
        self.integral = Integral(self.reg_max)
        self.cls_convs = nn.ModuleList([nn.ModuleList([ConvBNAct(c, feat_channels, 1)]) for c in in_channels])
        self.reg_convs = nn.ModuleList([nn.ModuleList([ConvBNAct(c, feat_channels, 1)]) for c in in_channels])
        self.gfl_cls = nn.ModuleList([nn.Conv2d(feat_channels, self.cls_out_channels, 3, padding=1) for _ in strides])
        self.gfl_reg = nn.ModuleList([nn.Conv2d(feat_channels, 4 * (self.reg_max + 1), 3, padding=1) for _ in strides])
        self.scales = nn.ModuleList([Scale(1.0) for _ in self.strides])

    def forward(self, xin, labels=None, imgs=None):
        # prepare priors for label assignment and bbox decode
        if self.feat_size[0] != xin[0].shape:
            mlvl_priors_list = [
                self.get_single_level_center_priors(xin[i].shape[0],
                                                    xin[i].shape[-2:],
                                                    stride,
                                                    dtype=torch.float32,
                                                    device=xin[0].device)
                for i, stride in enumerate(self.strides)
            ]
            self.mlvl_priors = torch.cat(mlvl_priors_list, dim=1)
            self.feat_size[0] = xin[0].shape

        # forward for bboxes and classification prediction
        cls_scores, bbox_preds = multi_apply(
            self.forward_single,
            xin,
            self.cls_convs,
            self.reg_convs,
            self.gfl_cls,
            self.gfl_reg,
            self.scales,
        )
        cls_scores = torch.cat(cls_scores, dim=1)[:, :, :self.num_classes]
        bbox_preds = torch.cat(bbox_preds, dim=1)
        # batch bbox decode
        bbox_preds = self.integral(bbox_preds) * self.mlvl_priors[..., 2, None]
        bbox_preds = distance2bbox(self.mlvl_priors[..., :2], bbox_preds)
        return cls_scores, bbox_preds

    def forward_single(self, x, cls_convs, reg_convs, gfl_cls, gfl_reg, scale):
        cls_feat = x
        reg_feat = x
        for cls_conv, reg_conv in zip(cls_convs, reg_convs):
            cls_feat = cls_conv(cls_feat)
            reg_feat = reg_conv(reg_feat)
        bbox_pred = scale(gfl_reg(reg_feat)).float()
        N, C, H, W = bbox_pred.size()
        bbox_pred = F.softmax(bbox_pred.reshape(N, 4, self.reg_max + 1, H, W), dim=2)
        cls_score = gfl_cls(cls_feat).sigmoid()
        cls_score = cls_score.flatten(start_dim=2).permute(0, 2, 1)  # N, h*w, self.num_classes+1
        bbox_pred = bbox_pred.flatten(start_dim=3).permute(0, 3, 1, 2)  # N, h*w, 4, self.reg_max+1
        return cls_score, bbox_pred

    def get_single_level_center_priors(self, batch_size, featmap_size, stride,
                                       dtype, device):
        h, w = featmap_size
        x_range = (torch.arange(0, int(w), dtype=dtype,
                                device=device)) * stride
        y_range = (torch.arange(0, int(h), dtype=dtype,
                                device=device)) * stride

        x = x_range.repeat(h, 1)
        y = y_range.unsqueeze(-1).repeat(1, w)

        y = y.flatten()
        x = x.flatten()
        strides = x.new_full((x.shape[0], ), stride)
        priors = torch.stack([x, y, strides, strides], dim=-1)

        return priors.unsqueeze(0).repeat(batch_size, 1, 1)


class DamoYolo(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU(),
                                  nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())
        self.down1 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.down2 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU())
        self.head = ZeroHead()

    def forward(self, x):
        p3 = self.stem(x)
        p4 = self.down1(p3)
        p5 = self.down2(p4)
        return self.head([p3, p4, p5])


def make_model():
    return DamoYolo().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 128),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 160),), (torch.randn(3, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
