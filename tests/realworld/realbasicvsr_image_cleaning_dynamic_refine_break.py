"""RealBasicVSR (real-world video super-resolution) traced for deployment: before super-resolving, the
network cleans the frames up to 3 times and stops early `if torch.mean(torch.abs(residues)) <
self.dynamic_refine_thres: break`; the report ("Torch.jit.trace get the wrong model") is about tracing
this network, which freezes the number of cleaning passes and cannot follow the data-dependent break.
(mmedit's RealBasicVSRNet forward kept as written; the BasicVSR propagation network behind it reduced to a
per-frame conv + x4 pixel-shuffle upsampler.)

Source: https://github.com/ckkelvinchan/RealBasicVSR/issues/70
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"lqs": {0: "batch", 1: "frames", 3: "height", 4: "width"}}
BLIND = "domains-56"


class ResidualBlockNoBN(nn.Module):
    def __init__(self, mid_channels=64, res_scale=1.0):
        super().__init__()
        self.res_scale = res_scale
        self.conv1 = nn.Conv2d(mid_channels, mid_channels, 3, 1, 1, bias=True)
        self.conv2 = nn.Conv2d(mid_channels, mid_channels, 3, 1, 1, bias=True)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.conv2(self.relu(self.conv1(x)))
        return identity + out * self.res_scale


class ResidualBlocksWithInputConv(nn.Module):
    def __init__(self, in_channels, out_channels=64, num_blocks=30):
        super().__init__()
        main = [nn.Conv2d(in_channels, out_channels, 3, 1, 1, bias=True),
                nn.LeakyReLU(negative_slope=0.1, inplace=True)]
        main += [ResidualBlockNoBN(mid_channels=out_channels) for _ in range(num_blocks)]
        self.main = nn.Sequential(*main)

    def forward(self, feat):
        return self.main(feat)


class BasicVSRNet(nn.Module):
    """Stand-in for the BasicVSR propagation network: frames folded into the batch, x4 upsampling."""

    def __init__(self, mid_channels=64, num_blocks=30):
        super().__init__()
        self.body = ResidualBlocksWithInputConv(3, mid_channels, num_blocks)
        self.upsample = nn.Sequential(nn.Conv2d(mid_channels, 3 * 16, 3, 1, 1), nn.PixelShuffle(4))
        self.img_upsample = nn.Upsample(scale_factor=4, mode='bilinear', align_corners=False)

    def forward(self, lrs):
        n, t, c, h, w = lrs.size()
        lr = lrs.view(-1, c, h, w)
        out = self.upsample(self.body(lr)) + self.img_upsample(lr)
        return out.view(n, t, c, 4 * h, 4 * w)


class RealBasicVSRNet(nn.Module):
    def __init__(self, mid_channels=64, num_propagation_blocks=20, num_cleaning_blocks=20,
                 dynamic_refine_thres=255, is_sequential_cleaning=False):
        super().__init__()
        self.dynamic_refine_thres = dynamic_refine_thres / 255.
        self.is_sequential_cleaning = is_sequential_cleaning

        # image cleaning module
        self.image_cleaning = nn.Sequential(
            ResidualBlocksWithInputConv(3, mid_channels, num_cleaning_blocks),
            nn.Conv2d(mid_channels, 3, 3, 1, 1, bias=True),
        )

        # BasicVSR
        self.basicvsr = BasicVSRNet(mid_channels, num_propagation_blocks)

    def forward(self, lqs, return_lqs=False):
        n, t, c, h, w = lqs.size()

        for _ in range(0, 3):  # at most 3 cleaning, determined empirically
            if self.is_sequential_cleaning:
                residues = []
                for i in range(0, t):
                    residue_i = self.image_cleaning(lqs[:, i, :, :, :])
                    lqs[:, i, :, :, :] += residue_i
                    residues.append(residue_i)
                residues = torch.stack(residues, dim=1)
            else:  # time -> batch, then apply cleaning at once
                lqs = lqs.view(-1, c, h, w)
                residues = self.image_cleaning(lqs)
                lqs = (lqs + residues).view(n, t, c, h, w)

            # determine whether to continue cleaning
            if torch.mean(torch.abs(residues)) < self.dynamic_refine_thres:
                break

        # Super-resolution (BasicVSR)
        outputs = self.basicvsr(lqs)

        if return_lqs:
            return outputs, lqs
        else:
            return outputs


def make_model():
    return RealBasicVSRNet(mid_channels=16, num_propagation_blocks=2, num_cleaning_blocks=2).eval()


def example_inputs():
    return (torch.rand(1, 5, 3, 32, 48),)


def other_inputs():
    return [(torch.rand(2, 3, 3, 40, 32),), (torch.rand(1, 7, 3, 24, 24),)]


def probe_inputs():
    return other_inputs()
