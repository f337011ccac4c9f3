"""TCMonoDepth (temporally consistent video depth), small model TCSmallNet: its ShuffleNetV2 encoder's
`ShuffleV2Block.channel_shuffle` reads `batchsize, num_channels, height, width = x.data.size()` and reshapes with
`x.reshape(batchsize * num_channels // 2, 2, height * width)` / `x.reshape(2, -1, num_channels // 2, height, width)`;
the report exported the large model fine but got wrong results from the exported small model (the sizes read through
`.data` are not recorded by the tracer, so the export-time batch/height/width stay in the graph).

Source: https://github.com/yu-li/TCMonoDepth/issues/13
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-51"


class ShuffleV2Block(nn.Module):
    def __init__(self, inp, oup, mid_channels, *, ksize, stride, dilate=1, first=False):
        super(ShuffleV2Block, self).__init__()
        self.stride = stride
        self.first = first
        pad = ksize // 2 * dilate
        outputs = oup - inp
        self.branch_main = nn.Sequential(
            nn.Conv2d(inp, mid_channels, 1, 1, 0, bias=False), nn.BatchNorm2d(mid_channels), nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, mid_channels, ksize, stride, pad, dilation=dilate, groups=mid_channels, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.Conv2d(mid_channels, outputs, 1, 1, 0, bias=False), nn.BatchNorm2d(outputs), nn.ReLU(inplace=True),
        )
        if first:
            self.branch_proj = nn.Sequential(
                nn.Conv2d(inp, inp, ksize, stride, pad, groups=inp, bias=False), nn.BatchNorm2d(inp),
                nn.Conv2d(inp, inp, 1, 1, 0, bias=False), nn.BatchNorm2d(inp), nn.ReLU(inplace=True),
            )
        else:
            self.branch_proj = None

    def forward(self, old_x):
        if not self.first:
            x_proj, x = self.channel_shuffle(old_x)
            return torch.cat((x_proj, self.branch_main(x)), 1)
        else:
            x_proj = old_x
            x = old_x
            return torch.cat((self.branch_proj(x_proj), self.branch_main(x)), 1)

    def channel_shuffle(self, x):
        batchsize, num_channels, height, width = x.data.size()
        assert (num_channels % 4 == 0)
        x = x.reshape(batchsize * num_channels // 2, 2, height * width)
        x = x.permute(1, 0, 2)
        x = x.reshape(2, -1, num_channels // 2, height, width)
        return x[0], x[1]


class ShuffleNetV2(nn.Module):
    # trimmed: 2 stages of 2 blocks each (the original has [4, 8, 4])
    def __init__(self, stage_out_channels=(-1, 24, 48, 96)):
        super(ShuffleNetV2, self).__init__()
        input_channel = stage_out_channels[1]
        self.first_conv = nn.Sequential(nn.Conv2d(3, input_channel, 3, 2, 1, bias=False),
                                        nn.BatchNorm2d(input_channel), nn.ReLU(inplace=True))
        stages = []
        for idxstage in range(2):
            output_channel = stage_out_channels[idxstage + 2]
            blocks = [ShuffleV2Block(input_channel, output_channel, mid_channels=output_channel // 2, ksize=3,
                                     stride=2, first=True),
                      ShuffleV2Block(output_channel // 2, output_channel, mid_channels=output_channel // 2, ksize=3,
                                     stride=1)]
            stages.append(nn.Sequential(*blocks))
            input_channel = output_channel
        self.stage1, self.stage2 = stages

    def forward(self, x):
        r1 = self.first_conv(x)
        r2 = self.stage1(r1)
        r3 = self.stage2(r2)
        return r1, r2, r3


class DecoderBlock(nn.Module):
    def __init__(self, low_channels, high_channels, output_channels):
        super(DecoderBlock, self).__init__()
        self.skip_conv = nn.Sequential(nn.Conv2d(low_channels, high_channels // 4, kernel_size=1, bias=False),
                                       nn.BatchNorm2d(high_channels // 4), nn.ReLU(inplace=True))
        self.last_conv = nn.Sequential(nn.Conv2d(high_channels + high_channels // 4, output_channels, 3, padding=1),
                                       nn.BatchNorm2d(output_channels), nn.ReLU(inplace=True))

    def forward(self, x_low, x_high):
        x_low = self.skip_conv(x_low)
        x_high = F.interpolate(x_high, size=x_low.size()[2:], mode="bilinear", align_corners=False)
        return self.last_conv(torch.cat((x_high, x_low), dim=1))


class TCSmallNet(nn.Module):
    def __init__(self):
        super(TCSmallNet, self).__init__()
        self.encoder = ShuffleNetV2()
        self.decoder2 = DecoderBlock(48, 96, 48)
        self.decoder1 = DecoderBlock(24, 48, 24)
        self.final = nn.Conv2d(24, 1, kernel_size=3, padding=1, stride=1)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, image):
        image = image / 255.0
        r1, r2, r3 = self.encoder(image)
        d1 = self.decoder1(r1, self.decoder2(r2, r3))
        p = self.relu(self.final(d1))
        depth = F.interpolate(p, scale_factor=2, mode='bilinear', align_corners=False)
        return depth


def make_model():
    return TCSmallNet().eval()


def example_inputs():
    return (torch.rand(1, 3, 96, 128) * 255.0,)


def other_inputs():
    return [(torch.rand(2, 3, 64, 160) * 255.0,), (torch.rand(1, 3, 128, 96) * 255.0,)]


def probe_inputs():
    return other_inputs()
