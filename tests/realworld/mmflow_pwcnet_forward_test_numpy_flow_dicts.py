"""MMFlow PWC-Net optical flow exported by calling the estimator directly (`torch.onnx.export(model, imgs)`):
`forward` defaults to `test_mode=True`, and the decoder's `forward_test` resizes the finest flow, moves it to
NumPy (`.cpu().data.numpy() * self.flow_div`) and returns a list of `dict(flow=ndarray)` per image, so the export
stops with "RuntimeError: Only tuples, lists and Variables are supported as JIT inputs/outputs ...". Trimmed to a
2-level pyramid; mmcv's Correlation op replaced by a small torch cost volume.

Source: https://github.com/open-mmlab/mmflow/issues/148
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "outputs"
FAMILY = "numpy_interop"
DYNAMIC = {"imgs": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-14"


def coords_grid(flow):
    B, _, H, W = flow.shape
    xx = torch.arange(0, W, device=flow.device, requires_grad=False)
    yy = torch.arange(0, H, device=flow.device, requires_grad=False)
    coords = torch.meshgrid(yy, xx)
    coords = torch.stack(coords[::-1], dim=0).float()
    grid = coords[None].repeat(B, 1, 1, 1) + flow
    grid[:, 0, ...] = grid[:, 0, ...] * 2. / max(W - 1, 1) - 1.
    grid[:, 1, ...] = grid[:, 1, ...] * 2. / max(H - 1, 1) - 1.
    grid = grid.permute(0, 2, 3, 1)
    return grid


def correlation(f1, f2, d=1):
    f2 = F.pad(f2, (d, d, d, d))
    H, W = f1.shape[2:]
    return torch.cat([(f1 * f2[:, :, i:i + H, j:j + W]).mean(1, keepdim=True)
                      for i in range(2 * d + 1) for j in range(2 * d + 1)], 1)


class PWCModule(nn.Module):
    def __init__(self, in_channels, up_flow):
        super().__init__()
        self.dense_net = nn.Sequential(nn.Conv2d(in_channels, 16, 3, padding=1), nn.LeakyReLU(0.1))
        self.predict_layer = nn.Conv2d(16, 2, 3, padding=1)
        self.up_flow = up_flow
        if up_flow:
            self.upflow_layer = nn.ConvTranspose2d(2, 2, 4, 2, 1)
            self.upfeat_layer = nn.ConvTranspose2d(16, 2, 4, 2, 1)

    def forward(self, x):
        feat = self.dense_net(x)
        flow = self.predict_layer(feat)
        upflow = None
        upfeat = None
        if self.up_flow:
            upflow = self.upflow_layer(flow)
            upfeat = self.upfeat_layer(feat)
        return flow, feat, upflow, upfeat


class PWCNet(nn.Module):
    def __init__(self, flow_div=20.):
        super().__init__()
        self.in_channels = 3
        self.encoder = nn.ModuleDict({"level2": nn.Conv2d(3, 8, 3, 4, 1), "level3": nn.Conv2d(8, 8, 3, 2, 1)})
        self.flow_levels = ["level2", "level3"]
        self.start_level, self.end_level = "level3", "level2"
        self.flow_div = flow_div
        self.multiplier = {lv: flow_div * 2 ** (-int(lv[-1])) for lv in self.flow_levels}
        self.decoders = nn.ModuleDict({"level3": PWCModule(9, True), "level2": PWCModule(9 + 8 + 2 + 2, False)})

    def encode(self, img):
        f2 = self.encoder["level2"](img)
        return {"level2": f2, "level3": self.encoder["level3"](f2)}

    def warp(self, feat, flow):
        return F.grid_sample(feat, coords_grid(flow), mode='bilinear', padding_mode='zeros', align_corners=True)

    def forward(self, imgs, test_mode=True):
        H, W = imgs.shape[2:]
        in_channels = self.in_channels
        feat1, feat2 = self.encode(imgs[:, :in_channels, ...]), self.encode(imgs[:, in_channels:, ...])
        flow_pred = dict()
        upflow = None
        upfeat = None
        for level in self.flow_levels[::-1]:
            _feat1, _feat2 = feat1[level], feat2[level]
            if level == self.start_level:
                corr_feat = correlation(_feat1, _feat2)
            else:
                warp_feat = self.warp(_feat2, upflow * self.multiplier[level])
                corr_feat_ = correlation(_feat1, warp_feat)
                corr_feat = torch.cat((corr_feat_, _feat1, upflow, upfeat), dim=1)
            flow, feat, upflow, upfeat = self.decoders[level](corr_feat)
            flow_pred[level] = flow
        flow_result = flow_pred[self.end_level]
        # resize flow to the size of images after augmentation.
        flow_result = F.interpolate(flow_result, size=(H, W), mode='bilinear', align_corners=False)
        # reshape [2, H, W] to [H, W, 2]
        flow_result = flow_result.permute(0, 2, 3, 1).cpu().data.numpy() * self.flow_div
        # unravel batch dim,
        flow_result = list(flow_result)
        flow_result = [dict(flow=f) for f in flow_result]
        return flow_result


def make_model():
    return PWCNet().eval()


def example_inputs():
    return (torch.randn(2, 6, 64, 96),)


def other_inputs():
    return [(torch.randn(3, 6, 96, 64),), (torch.randn(1, 6, 32, 128),)]


def probe_inputs():
    return other_inputs()
