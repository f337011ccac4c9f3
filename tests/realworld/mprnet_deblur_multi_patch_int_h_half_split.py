"""MPRNet (multi-stage deblurring) splits the input into 2 and 4 patches with `int(H/2)` / `int(W/2)`
computed from `x3_img.size(2)`/`size(3)`, runs the patch encoders, and re-joins the patch features with
torch.cat. The user exported the official Deblurring MPRNet with dynamic batch/height/width; the report
says the ONNX export failed ("dynamic shapes ... Could not guard on data-dependent expression") and they
fell back to PyTorch FP16.

Source: https://github.com/AnkitBharadva/RWIS/blob/57d449ece52a131cdcb0caf73e1f7eb1387541ef/OPTIMIZATION_COMPLETE.md
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x3_img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-78"


def conv(in_channels, out_channels, kernel_size, bias=False, stride = 1):
    return nn.Conv2d(
        in_channels, out_channels, kernel_size,
        padding=(kernel_size//2), bias=bias, stride = stride)


class CALayer(nn.Module):
    def __init__(self, channel, reduction=16, bias=False):
        super(CALayer, self).__init__()
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.conv_du = nn.Sequential(
                nn.Conv2d(channel, channel // reduction, 1, padding=0, bias=bias),
                nn.ReLU(inplace=True),
                nn.Conv2d(channel // reduction, channel, 1, padding=0, bias=bias),
                nn.Sigmoid()
        )

    def forward(self, x):
        y = self.avg_pool(x)
        y = self.conv_du(y)
        return x * y


class CAB(nn.Module):
    def __init__(self, n_feat, kernel_size, reduction, bias, act):
        super(CAB, self).__init__()
        self.CA = CALayer(n_feat, reduction, bias=bias)
        self.body = nn.Sequential(conv(n_feat, n_feat, kernel_size, bias=bias), act,
                                  conv(n_feat, n_feat, kernel_size, bias=bias))

    def forward(self, x):
        res = self.body(x)
        res = self.CA(res)
        res += x
        return res


class SAM(nn.Module):
    def __init__(self, n_feat, kernel_size, bias):
        super(SAM, self).__init__()
        self.conv1 = conv(n_feat, n_feat, kernel_size, bias=bias)
        self.conv2 = conv(n_feat, 3, kernel_size, bias=bias)
        self.conv3 = conv(3, n_feat, kernel_size, bias=bias)

    def forward(self, x, x_img):
        x1 = self.conv1(x)
        img = self.conv2(x) + x_img
        x2 = torch.sigmoid(self.conv3(img))
        x1 = x1*x2
        x1 = x1+x
        return x1, img


class Encoder(nn.Module):
    def __init__(self, n_feat, kernel_size, reduction, act, bias, scale_unetfeats):
        super(Encoder, self).__init__()
        self.encoder_level1 = CAB(n_feat, kernel_size, reduction, bias=bias, act=act)
        self.encoder_level2 = CAB(n_feat+scale_unetfeats, kernel_size, reduction, bias=bias, act=act)
        self.down12 = nn.Sequential(nn.Upsample(scale_factor=0.5, mode='bilinear', align_corners=False),
                                    nn.Conv2d(n_feat, n_feat+scale_unetfeats, 1, stride=1, padding=0, bias=False))

    def forward(self, x):
        enc1 = self.encoder_level1(x)
        x = self.down12(enc1)
        enc2 = self.encoder_level2(x)
        return [enc1, enc2]


class Decoder(nn.Module):
    def __init__(self, n_feat, kernel_size, reduction, act, bias, scale_unetfeats):
        super(Decoder, self).__init__()
        self.decoder_level1 = CAB(n_feat, kernel_size, reduction, bias=bias, act=act)
        self.decoder_level2 = CAB(n_feat+scale_unetfeats, kernel_size, reduction, bias=bias, act=act)
        self.skip_attn1 = CAB(n_feat, kernel_size, reduction, bias=bias, act=act)
        self.up21 = nn.Sequential(nn.Upsample(scale_factor=2, mode='bilinear', align_corners=False),
                                  nn.Conv2d(n_feat+scale_unetfeats, n_feat, 1, stride=1, padding=0, bias=False))

    def forward(self, outs):
        enc1, enc2 = outs
        dec2 = self.decoder_level2(enc2)
        x = self.up21(dec2) + self.skip_attn1(enc1)
        dec1 = self.decoder_level1(x)
        return [dec1, dec2]


class MPRNet(nn.Module):
    def __init__(self, in_c=3, out_c=3, n_feat=16, scale_unetfeats=8, kernel_size=3, reduction=4, bias=False):
        super(MPRNet, self).__init__()
        act = nn.PReLU()
        self.shallow_feat1 = nn.Sequential(conv(in_c, n_feat, kernel_size, bias=bias), CAB(n_feat, kernel_size, reduction, bias=bias, act=act))
        self.shallow_feat2 = nn.Sequential(conv(in_c, n_feat, kernel_size, bias=bias), CAB(n_feat, kernel_size, reduction, bias=bias, act=act))
        self.shallow_feat3 = nn.Sequential(conv(in_c, n_feat, kernel_size, bias=bias), CAB(n_feat, kernel_size, reduction, bias=bias, act=act))
        self.stage1_encoder = Encoder(n_feat, kernel_size, reduction, act, bias, scale_unetfeats)
        self.stage1_decoder = Decoder(n_feat, kernel_size, reduction, act, bias, scale_unetfeats)
        self.stage2_encoder = Encoder(n_feat, kernel_size, reduction, act, bias, scale_unetfeats)
        self.stage2_decoder = Decoder(n_feat, kernel_size, reduction, act, bias, scale_unetfeats)
        self.sam12 = SAM(n_feat, kernel_size=1, bias=bias)
        self.sam23 = SAM(n_feat, kernel_size=1, bias=bias)
        self.concat12 = conv(n_feat*2, n_feat, kernel_size, bias=bias)
        self.concat23 = conv(n_feat*2, n_feat, kernel_size, bias=bias)
        self.tail = conv(n_feat, out_c, kernel_size, bias=bias)

    def forward(self, x3_img):
        # Original-resolution Image for Stage 3
        H = x3_img.size(2)
        W = x3_img.size(3)

        # Two Patches for Stage 2
        x2top_img  = x3_img[:,:,0:int(H/2),:]
        x2bot_img  = x3_img[:,:,int(H/2):H,:]

        # Four Patches for Stage 1
        x1ltop_img = x2top_img[:,:,:,0:int(W/2)]
        x1rtop_img = x2top_img[:,:,:,int(W/2):W]
        x1lbot_img = x2bot_img[:,:,:,0:int(W/2)]
        x1rbot_img = x2bot_img[:,:,:,int(W/2):W]

        ## Stage 1
        x1ltop = self.shallow_feat1(x1ltop_img)
        x1rtop = self.shallow_feat1(x1rtop_img)
        x1lbot = self.shallow_feat1(x1lbot_img)
        x1rbot = self.shallow_feat1(x1rbot_img)

        feat1_ltop = self.stage1_encoder(x1ltop)
        feat1_rtop = self.stage1_encoder(x1rtop)
        feat1_lbot = self.stage1_encoder(x1lbot)
        feat1_rbot = self.stage1_encoder(x1rbot)

        feat1_top = [torch.cat((k,v), 3) for k,v in zip(feat1_ltop,feat1_rtop)]
        feat1_bot = [torch.cat((k,v), 3) for k,v in zip(feat1_lbot,feat1_rbot)]

        res1_top = self.stage1_decoder(feat1_top)
        res1_bot = self.stage1_decoder(feat1_bot)

        x2top_samfeats, stage1_img_top = self.sam12(res1_top[0], x2top_img)
        x2bot_samfeats, stage1_img_bot = self.sam12(res1_bot[0], x2bot_img)
        stage1_img = torch.cat([stage1_img_top, stage1_img_bot],2)

        ## Stage 2
        x2top  = self.shallow_feat2(x2top_img)
        x2bot  = self.shallow_feat2(x2bot_img)
        x2top_cat = self.concat12(torch.cat([x2top, x2top_samfeats], 1))
        x2bot_cat = self.concat12(torch.cat([x2bot, x2bot_samfeats], 1))
        feat2_top = self.stage2_encoder(x2top_cat)
        feat2_bot = self.stage2_encoder(x2bot_cat)
        feat2 = [torch.cat((k,v), 2) for k,v in zip(feat2_top,feat2_bot)]
        res2 = self.stage2_decoder(feat2)
        x3_samfeats, stage2_img = self.sam23(res2[0], x3_img)

        ## Stage 3 (ORSNet trimmed to the concat + tail)
        x3     = self.shallow_feat3(x3_img)
        x3_cat = self.concat23(torch.cat([x3, x3_samfeats], 1))
        stage3_img = self.tail(x3_cat)

        return [stage3_img+x3_img, stage2_img, stage1_img]


def make_model():
    return MPRNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(2, 3, 48, 32),), (torch.randn(1, 3, 40, 64),)]


def probe_inputs():
    return other_inputs()
