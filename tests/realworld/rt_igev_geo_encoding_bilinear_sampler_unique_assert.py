"""RT-IGEV stereo (IGEV-YOLO8's `transform_RTIGEV.py` exports `IGEVStereo` with dynamic batch/height/width): the
group-wise cost volume asserts on sizes (`assert C % num_groups == 0`, `assert cost.shape == (B, num_groups, H, W)`)
and every lookup of `Combined_Geo_Encoding_Volume` goes through `bilinear_sampler`, which checks
`assert torch.unique(ygrid).numel() == 1 and H == 1`; the export prints a TracerWarning for each of these checks.

Source: https://github.com/wupuhuiqianren/IGEV-YOLO8/issues/6
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "tensor_data"
DYNAMIC = {"image1": {0: "batch", 2: "height", 3: "width"}, "image2": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-53"


def bilinear_sampler(img, coords, mode='bilinear', mask=False):
    """ Wrapper for grid_sample, uses pixel coordinates """
    H, W = img.shape[-2:]
    xgrid, ygrid = coords.split([1,1], dim=-1)
    xgrid = 2*xgrid/(W-1) - 1
    assert torch.unique(ygrid).numel() == 1 and H == 1 # This is a stereo problem
    grid = torch.cat([xgrid, ygrid], dim=-1)
    img = F.grid_sample(img, grid, align_corners=True)
    return img


def groupwise_correlation(fea1, fea2, num_groups):
    B, C, H, W = fea1.shape
    assert C % num_groups == 0
    channels_per_group = C // num_groups
    cost = (fea1 * fea2).view([B, num_groups, channels_per_group, H, W]).mean(dim=2)
    assert cost.shape == (B, num_groups, H, W)
    return cost


def build_gwc_volume(refimg_fea, targetimg_fea, maxdisp, num_groups):
    B, C, H, W = refimg_fea.shape
    volume = refimg_fea.new_zeros([B, num_groups, maxdisp, H, W])
    for i in range(maxdisp):
        if i > 0:
            volume[:, :, i, :, i:] = groupwise_correlation(refimg_fea[:, :, :, i:], targetimg_fea[:, :, :, :-i],
                                                           num_groups)
        else:
            volume[:, :, i, :, :] = groupwise_correlation(refimg_fea, targetimg_fea, num_groups)
    volume = volume.contiguous()
    return volume


def disparity_regression(prob, maxdisp, interval):
    assert len(prob.shape) == 4
    disp_values = torch.arange(0, maxdisp, interval, dtype=prob.dtype, device=prob.device)
    disp_values = disp_values.view(1, maxdisp//interval, 1, 1)
    return torch.sum(prob * disp_values, 1, keepdim=True)


class Combined_Geo_Encoding_Volume:
    def __init__(self, geo_volume, num_levels=2, radius=4):
        self.num_levels = num_levels
        self.radius = radius
        self.geo_volume_pyramid = []
        b, c, d, h, w = geo_volume.shape
        geo_volume = geo_volume.permute(0, 3, 4, 1, 2).reshape(b*h*w, c, 1, d)
        self.geo_volume_pyramid.append(geo_volume)
        for i in range(self.num_levels-1):
            geo_volume = F.avg_pool2d(geo_volume, [1,2], stride=[1,2])
            self.geo_volume_pyramid.append(geo_volume)

    def __call__(self, disp, coords):
        r = self.radius
        b, _, h, w = disp.shape
        out_pyramid = []
        dx = torch.linspace(-r, r, 2*r+1)
        dx = dx.view(1, 1, 2*r+1, 1).to(disp.device)
        for i in range(self.num_levels):
            geo_volume = self.geo_volume_pyramid[i]
            x0 = dx + disp.reshape(b*h*w, 1, 1, 1) / 2**i
            y0 = torch.zeros_like(x0)
            disp_lvl = torch.cat([x0,y0], dim=-1)
            geo_volume = bilinear_sampler(geo_volume, disp_lvl)
            geo_volume = geo_volume.view(b, h, w, -1)
            out_pyramid.append(geo_volume)
        out = torch.cat(out_pyramid, dim=-1)
        return out.permute(0, 3, 1, 2).contiguous().float()


class IGEVStereo(nn.Module):
    def __init__(self, max_disp=48, corr_radius=4, corr_levels=2):
        super().__init__()
        self.max_disp, self.corr_radius, self.corr_levels = max_disp, corr_radius, corr_levels
        self.feature = nn.Sequential(nn.Conv2d(3, 32, 7, stride=4, padding=3), nn.ReLU())  # stand-in, 1/4 scale
        self.cost_agg = nn.Conv3d(8, 8, 3, padding=1)
        self.classifier = nn.Conv3d(8, 1, 3, padding=1)
        self.update_block = nn.Conv2d(corr_levels * 8 * (2 * corr_radius + 1) + 1, 1, 3, padding=1)  # stand-in

    def forward(self, image1, image2, iters=2):
        match_left, match_right = self.feature(image1), self.feature(image2)
        gwc_volume = build_gwc_volume(match_left, match_right, self.max_disp//4, 8)
        geo_encoding_volume = self.cost_agg(gwc_volume)
        prob = F.softmax(self.classifier(geo_encoding_volume).squeeze(1), dim=1)
        init_disp = disparity_regression(prob, self.max_disp//4, 1)

        geo_fn = Combined_Geo_Encoding_Volume(geo_encoding_volume.float(), radius=self.corr_radius,
                                              num_levels=self.corr_levels)
        b, c, h, w = match_left.shape
        coords = torch.arange(w).float().to(match_left.device).reshape(1,1,w,1).repeat(b, h, 1, 1)
        disp = init_disp
        for itr in range(iters):
            disp = disp.detach()
            geo_feat = geo_fn(disp, coords)
            delta_disp = self.update_block(torch.cat([geo_feat, disp], dim=1))
            disp = disp + delta_disp
        return disp


def make_model():
    return IGEVStereo().eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 96) * 255, torch.rand(1, 3, 64, 96) * 255)


def other_inputs():
    return [(torch.rand(2, 3, 96, 128) * 255, torch.rand(2, 3, 96, 128) * 255),
            (torch.rand(3, 3, 64, 160) * 255, torch.rand(3, 3, 64, 160) * 255)]


def probe_inputs():
    return other_inputs()
