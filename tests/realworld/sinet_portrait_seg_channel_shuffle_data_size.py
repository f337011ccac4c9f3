"""SINet (extremely light-weight portrait segmentation, clovaai/ext_portrait_segmentation) as packaged for Qualcomm
AI Hub: its S2module shuffles channels with `batchsize, num_channels, height, width = x.data.size()` and
`x.view(batchsize, groups, channels_per_group, height, width)`; the AI Hub wrapper find-and-replaces `.data.size()`
with `.shape` in SINet.py before exporting, "as tracing treats this as a constant, but does not treat .shape as a
constant", so the exported graph keeps the export-time batch in its Reshape.

Source: https://github.com/quic/ai-hub-models/blob/main/qai_hub_models/models/sinet/model.py
"""
import torch
import torch.nn as nn

CLASS = "views"
FAMILY = "shape_math"
DYNAMIC = {"input": {0: "batch"}}
BLIND = "domains-48"

BN_moment = 0.1


def channel_shuffle(x, groups):
    batchsize, num_channels, height, width = x.data.size()

    channels_per_group = num_channels // groups

    # reshape
    x = x.view(batchsize, groups,
               channels_per_group, height, width)

    # transpose
    # - contiguous() required if transpose() is used before view().
    x = torch.transpose(x, 1, 2).contiguous()

    # flatten
    x = x.view(batchsize, -1, height, width)

    return x


class CBR(nn.Module):
    def __init__(self, nIn, nOut, kSize, stride=1):
        super().__init__()
        padding = int((kSize - 1) / 2)
        self.conv = nn.Conv2d(nIn, nOut, (kSize, kSize), stride=stride, padding=(padding, padding), bias=False)
        self.bn = nn.BatchNorm2d(nOut, eps=1e-03, momentum=BN_moment)
        self.act = nn.PReLU(nOut)

    def forward(self, input):
        output = self.conv(input)
        output = self.bn(output)
        output = self.act(output)
        return output


class BR(nn.Module):
    def __init__(self, nOut):
        super().__init__()
        self.bn = nn.BatchNorm2d(nOut, eps=1e-03, momentum=BN_moment)
        self.act = nn.PReLU(nOut)

    def forward(self, input):
        output = self.bn(input)
        output = self.act(output)
        return output


class C(nn.Module):
    def __init__(self, nIn, nOut, kSize, stride=1, group=1):
        super().__init__()
        padding = int((kSize - 1) / 2)
        self.conv = nn.Conv2d(nIn, nOut, (kSize, kSize), stride=stride,
                              padding=(padding, padding), bias=False, groups=group)

    def forward(self, input):
        output = self.conv(input)
        return output


class S2block(nn.Module):
    def __init__(self, nIn, nOut, config):
        super().__init__()
        kSize = config[0]
        avgsize = config[1]

        self.resolution_down = False
        if avgsize > 1:
            self.resolution_down = True
            self.down_res = nn.AvgPool2d(avgsize, avgsize)
            self.up_res = nn.UpsamplingBilinear2d(scale_factor=avgsize)
            self.avgsize = avgsize

        padding = int((kSize - 1) / 2)
        self.conv = nn.Sequential(
            nn.Conv2d(nIn, nIn, kernel_size=(kSize, kSize), stride=1,
                      padding=(padding, padding), groups=nIn, bias=False),
            nn.BatchNorm2d(nIn, eps=1e-03, momentum=BN_moment))
        self.act_conv1x1 = nn.Sequential(
            nn.PReLU(nIn),
            nn.Conv2d(nIn, nOut, kernel_size=1, stride=1, bias=False),
        )
        self.bn = nn.BatchNorm2d(nOut, eps=1e-03, momentum=BN_moment)

    def forward(self, input):
        if self.resolution_down:
            input = self.down_res(input)
        output = self.conv(input)
        output = self.act_conv1x1(output)
        if self.resolution_down:
            output = self.up_res(output)
        return self.bn(output)


class S2module(nn.Module):
    def __init__(self, nIn, nOut, add=True, config=[[3, 1], [5, 1]]):
        super().__init__()
        group_n = len(config)
        n = int(nOut / group_n)
        n1 = nOut - group_n * n

        self.c1 = C(nIn, n, 1, 1, group=group_n)

        for i in range(group_n):
            var_name = 'd{}'.format(i + 1)
            if i == 0:
                self.__dict__["_modules"][var_name] = S2block(n, n + n1, config[i])
            else:
                self.__dict__["_modules"][var_name] = S2block(n, n, config[i])

        self.BR = BR(nOut)
        self.add = add
        self.group_n = group_n

    def forward(self, input):
        # reduce
        output1 = self.c1(input)
        output1 = channel_shuffle(output1, self.group_n)

        for i in range(self.group_n):
            var_name = 'd{}'.format(i + 1)
            result_d = self.__dict__["_modules"][var_name](output1)
            if i == 0:
                combine = result_d
            else:
                combine = torch.cat([combine, result_d], 1)

        # if residual version
        if self.add:
            combine = input + combine
        output = self.BR(combine)
        return output


class SINet(nn.Module):
    # trimmed: encoder levels inlined (p=2, q=2), RUM-style decoder kept
    def __init__(self, config, classes=2, dim1=16, dim2=48, dim3=96):
        super().__init__()
        self.level1 = CBR(3, 12, 3, 2)
        self.level2_0 = CBR(12, dim1, 3, 2)
        self.level2 = nn.ModuleList([S2module(dim1, dim2, config=config[0], add=False),
                                     S2module(dim2, dim2, config=config[1])])
        self.BR2 = BR(dim2 + dim1)
        self.level3_0 = CBR(dim2 + dim1, dim2, 3, 2)
        self.level3 = nn.ModuleList([S2module(dim2, dim3, config=config[2], add=False),
                                     S2module(dim3, dim3, config=config[3])])
        self.BR3 = BR(dim3 + dim2)
        self.enc_classifier = C(dim3 + dim2, classes, 1, 1)

        self.up = nn.UpsamplingBilinear2d(scale_factor=2)
        self.bn_3 = nn.BatchNorm2d(classes, eps=1e-03)
        self.level2_C = CBR(dim2, classes, 1, 1)
        self.bn_2 = nn.BatchNorm2d(classes, eps=1e-03)
        self.classifier = nn.Sequential(
            nn.UpsamplingBilinear2d(scale_factor=2),
            nn.Conv2d(classes, classes, 3, 1, 1, bias=False))

    def forward(self, input):
        output1 = self.level1(input)
        output2_0 = self.level2_0(output1)
        for i, layer in enumerate(self.level2):
            if i == 0:
                output2 = layer(output2_0)
            else:
                output2 = layer(output2)

        output3_0 = self.level3_0(self.BR2(torch.cat([output2_0, output2], 1)))
        for i, layer in enumerate(self.level3):
            if i == 0:
                output3 = layer(output3_0)
            else:
                output3 = layer(output3)

        output3_cat = self.BR3(torch.cat([output3_0, output3], 1))
        Enc_final = self.enc_classifier(output3_cat)  # 1/8

        Dnc_stage1 = self.bn_3(self.up(Enc_final))  # 1/4
        stage1_confidence = torch.max(nn.Softmax2d()(Dnc_stage1), dim=1)[0]
        b, c, h, w = Dnc_stage1.size()

        stage1_gate = (1 - stage1_confidence).unsqueeze(1).expand(b, c, h, w)

        Dnc_stage2_0 = self.level2_C(output2)  # 2h 2w
        Dnc_stage2 = self.bn_2(self.up(Dnc_stage2_0 * stage1_gate + (Dnc_stage1)))  # 4h 4w

        classifier = self.classifier(Dnc_stage2)
        return classifier


def make_model():
    config = [[[3, 1], [5, 1]], [[3, 1], [3, 1]], [[5, 1], [3, 2]], [[5, 2], [3, 4]]]
    return SINet(config, classes=2).eval()


def example_inputs():
    return (torch.randn(1, 3, 224, 224),)


def other_inputs():
    return [(torch.randn(3, 3, 224, 224),), (torch.randn(2, 3, 224, 224),)]


def probe_inputs():
    return other_inputs()
