"""TopFormer (semantic segmentation): PyramidPoolAgg pools every token-pyramid level to the size of the
coarsest one with `nn.functional.adaptive_avg_pool2d(inp, (H, W))`, H = (H - 1) // stride + 1 read through
`get_shape`. Converting with tools/convert2onnx.py fails with "Unsupported: ONNX export of operator
adaptive_avg_pool2d, output size that are not factor of input size" (a Constant [4 4] output size).

Source: https://github.com/hustvl/TopFormer/issues/38
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-26"


def get_shape(tensor):
    shape = tensor.shape
    if torch.onnx.is_in_onnx_export():
        shape = [i.cpu().numpy() for i in shape]
    return shape


class Conv2d_BN(nn.Sequential):
    def __init__(self, a, b, ks=1, stride=1, pad=0, dilation=1, groups=1, bn_weight_init=1):
        super().__init__()
        self.add_module('c', nn.Conv2d(a, b, ks, stride, pad, dilation, groups, bias=False))
        bn = nn.BatchNorm2d(b)
        nn.init.constant_(bn.weight, bn_weight_init)
        nn.init.constant_(bn.bias, 0)
        self.add_module('bn', bn)


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, ks, stride, expand_ratio, activations=nn.ReLU):
        super().__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(Conv2d_BN(inp, hidden_dim, ks=1))
            layers.append(activations())
        layers.extend([
            Conv2d_BN(hidden_dim, hidden_dim, ks=ks, stride=stride, pad=ks//2, groups=hidden_dim),
            activations(),
            Conv2d_BN(hidden_dim, oup, ks=1)])
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class TokenPyramidModule(nn.Module):
    def __init__(self, cfgs, out_indices, inp_channel=16, activation=nn.ReLU):
        super().__init__()
        self.out_indices = out_indices
        self.stem = nn.Sequential(Conv2d_BN(3, inp_channel, 3, 2, 1), activation())
        self.layers = []
        for i, (k, t, c, s) in enumerate(cfgs):
            layer_name = 'layer{}'.format(i + 1)
            self.add_module(layer_name, InvertedResidual(inp_channel, c, ks=k, stride=s, expand_ratio=t, activations=activation))
            inp_channel = c
            self.layers.append(layer_name)

    def forward(self, x):
        outs = []
        x = self.stem(x)
        for i, layer_name in enumerate(self.layers):
            x = getattr(self, layer_name)(x)
            if i in self.out_indices:
                outs.append(x)
        return outs


class Attention(nn.Module):
    def __init__(self, dim, key_dim, num_heads, attn_ratio=2, activation=nn.ReLU6):
        super().__init__()
        self.num_heads = num_heads
        self.key_dim = key_dim
        self.nh_kd = nh_kd = key_dim * num_heads
        self.d = int(attn_ratio * key_dim)
        self.dh = int(attn_ratio * key_dim) * num_heads
        self.to_q = Conv2d_BN(dim, nh_kd, 1)
        self.to_k = Conv2d_BN(dim, nh_kd, 1)
        self.to_v = Conv2d_BN(dim, self.dh, 1)
        self.proj = nn.Sequential(activation(), Conv2d_BN(self.dh, dim, bn_weight_init=0))

    def forward(self, x):
        B, C, H, W = get_shape(x)
        qq = self.to_q(x).reshape(B, self.num_heads, self.key_dim, H * W).permute(0, 1, 3, 2)
        kk = self.to_k(x).reshape(B, self.num_heads, self.key_dim, H * W)
        vv = self.to_v(x).reshape(B, self.num_heads, self.d, H * W).permute(0, 1, 3, 2)
        attn = torch.matmul(qq, kk).softmax(dim=-1)
        xx = torch.matmul(attn, vv)
        xx = xx.permute(0, 1, 3, 2).reshape(B, self.dh, H, W)
        return self.proj(xx)


class PyramidPoolAgg(nn.Module):
    def __init__(self, stride):
        super().__init__()
        self.stride = stride

    def forward(self, inputs):
        B, C, H, W = get_shape(inputs[-1])
        H = (H - 1) // self.stride + 1
        W = (W - 1) // self.stride + 1
        return torch.cat([nn.functional.adaptive_avg_pool2d(inp, (H, W)) for inp in inputs], dim=1)


class h_sigmoid(nn.Module):
    def __init__(self, inplace=True):
        super(h_sigmoid, self).__init__()
        self.relu = nn.ReLU6(inplace=inplace)

    def forward(self, x):
        return self.relu(x + 3) / 6


class InjectionMultiSum(nn.Module):
    def __init__(self, inp, oup):
        super().__init__()
        self.local_embedding = Conv2d_BN(inp, oup)
        self.global_embedding = Conv2d_BN(inp, oup)
        self.global_act = Conv2d_BN(inp, oup)
        self.act = h_sigmoid()

    def forward(self, x_l, x_g):
        B, C, H, W = x_l.shape
        local_feat = self.local_embedding(x_l)
        sig_act = F.interpolate(self.act(self.global_act(x_g)), size=(H, W), mode='bilinear', align_corners=False)
        global_feat = F.interpolate(self.global_embedding(x_g), size=(H, W), mode='bilinear', align_corners=False)
        return local_feat * sig_act + global_feat


class Topformer(nn.Module):
    def __init__(self, channels=(16, 32, 64, 96), out_channels=(None, 64, 64, 64), c2t_stride=2):
        super().__init__()
        cfgs = [[3, 1, 16, 1], [3, 4, 16, 2], [3, 3, 16, 1], [5, 3, 32, 2], [5, 3, 32, 1],
                [3, 3, 64, 2], [3, 3, 64, 1], [5, 6, 96, 2], [5, 6, 96, 1]]
        self.channels = list(channels)
        self.decode_out_indices = [1, 2, 3]
        self.tpm = TokenPyramidModule(cfgs=cfgs, out_indices=[2, 4, 6, 8])
        self.ppa = PyramidPoolAgg(stride=c2t_stride)
        self.trans = Attention(sum(channels), key_dim=16, num_heads=4)
        self.SIM = nn.ModuleList([nn.Identity() if i not in self.decode_out_indices
                                  else InjectionMultiSum(channels[i], out_channels[i]) for i in range(4)])

    def forward(self, x):
        ouputs = self.tpm(x)
        out = self.ppa(ouputs)
        out = out + self.trans(out)
        xx = out.split(self.channels, dim=1)
        results = []
        for i in range(len(self.channels)):
            if i in self.decode_out_indices:
                results.append(self.SIM[i](ouputs[i], xx[i]))
        return tuple(results)


def make_model():
    return Topformer().eval()


def example_inputs():
    return (torch.randn(1, 3, 224, 288),)


def other_inputs():
    return [(torch.randn(2, 3, 224, 288),), (torch.randn(3, 3, 224, 288),)]


def probe_inputs():
    return other_inputs()
