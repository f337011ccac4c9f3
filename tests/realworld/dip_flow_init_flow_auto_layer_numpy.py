"""DIP (Deep Inverse Patchmatch) optical flow exported with an `init_flow` input: `inference` picks the number
of pyramid levels from the flow magnitude, `auto_layer = int(auto_layer.ceil().cpu().numpy())`, and the ONNX
model's output does not match PyTorch's.

Source: https://github.com/zihuazheng/DIP/issues/11
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"image1": {2: "height", 3: "width"}, "image2": {2: "height", 3: "width"},
           "init_flow": {2: "height", 3: "width"}}
BLIND = "domains-25"


class UpdateBlock(nn.Module):
    def __init__(self, hidden_dim, context_dim, rate=4):
        super().__init__()
        self.conv = nn.Conv2d(hidden_dim + context_dim + 2 * 16 + 2, hidden_dim, 3, padding=1)
        self.mask = nn.Conv2d(hidden_dim, 9 * rate * rate, 1)
        self.flow_head = nn.Conv2d(hidden_dim, 2, 3, padding=1)

    def forward(self, net, inp, corrs, flow):
        net = torch.tanh(self.conv(torch.cat([net, inp, corrs, flow], dim=1)))
        return net, 0.25 * self.mask(net), self.flow_head(net)


class DIP(nn.Module):
    def __init__(self, max_offset=192, test_mode=True):
        super().__init__()
        self.max_offset = max_offset
        self.test_mode = test_mode
        self.hidden_dim = 16
        self.context_dim = 16
        self.fnet = nn.Sequential(nn.Conv2d(3, 32, 7, stride=2, padding=3), nn.ReLU(),
                                  nn.Conv2d(32, 32, 3, stride=2, padding=1))
        self.corr = nn.Conv2d(64, 32, 1)
        self.update_block = UpdateBlock(self.hidden_dim, self.context_dim)

    def upsample_flow(self, flow, mask, rate=4):
        N, _, H, W = flow.shape
        mask = mask.view(N, 1, 9, rate, rate, H, W)
        mask = torch.softmax(mask, dim=2)
        up_flow = F.unfold(rate * flow, [3, 3], padding=1)
        up_flow = up_flow.view(N, 2, 9, 1, 1, H, W)
        up_flow = torch.sum(mask * up_flow, dim=2)
        up_flow = up_flow.permute(0, 1, 4, 2, 5, 3)
        return up_flow.reshape(N, 2, rate * H, rate * W)

    def build_pyramid(self, fmap1, fmap2, cnet, max_layers=5, min_width=40):
        py_fmap1, py_fmap2, py_cnet = [fmap1], [fmap2], [cnet]
        curr_fmap1, curr_fmap2, curr_cnet = fmap1, fmap2, cnet
        for i in range(max_layers - 1):
            if (curr_fmap1.shape[2] < min_width) and (curr_fmap1.shape[3] < min_width):
                break
            curr_fmap1 = F.avg_pool2d(curr_fmap1, 2, stride=2)
            curr_fmap2 = F.avg_pool2d(curr_fmap2, 2, stride=2)
            curr_cnet = F.avg_pool2d(curr_cnet, 2, stride=2)
            py_fmap1.append(curr_fmap1)
            py_fmap2.append(curr_fmap2)
            py_cnet.append(curr_cnet)
        return py_fmap1, py_fmap2, py_cnet

    def upflow(self, flow, targetMap, mode='bilinear'):
        new_size = (targetMap.shape[2], targetMap.shape[3])
        factor = 1.0 * targetMap.shape[2] / flow.shape[2]
        return factor * F.interpolate(flow, size=new_size, mode=mode, align_corners=True)

    def inference(self, image1, image2, iters=2, max_layers=3, init_flow=None):
        image1 = 2 * (image1 / 255.0) - 1.0
        image2 = 2 * (image2 / 255.0) - 1.0
        max_layers = 3
        max_offset = 256
        auto_layer = 3
        if init_flow is not None:
            mag = torch.norm(init_flow, dim=1)
            max_offset = torch.max(mag)
            auto_layer = max_offset / 32
            auto_layer = int(auto_layer.ceil().cpu().numpy())
            if auto_layer < max_layers:
                max_layers = auto_layer

        fmap1, fmap2 = self.fnet(image1), self.fnet(image2)
        min_width = 40
        py_fmap1, py_fmap2, py_cnet = self.build_pyramid(fmap1, fmap2, fmap1, max_layers=max_layers, min_width=min_width)
        n_levels = len(py_fmap1)

        s_fmap1 = py_fmap1[n_levels - 1]
        new_size = (s_fmap1.shape[2], s_fmap1.shape[3])
        scale = s_fmap1.shape[2] / (init_flow.shape[2] * 1.0)
        s_flow = scale * F.interpolate(init_flow, size=new_size, mode='bilinear', align_corners=True)

        for i in range(n_levels):
            curr_fmap1 = py_fmap1[n_levels - i - 1]
            curr_fmap2 = py_fmap2[n_levels - i - 1]
            curr_cnet = py_cnet[n_levels - i - 1]
            net, inp = torch.split(curr_cnet, [self.hidden_dim, self.context_dim], dim=1)
            net = torch.tanh(net)
            inp = torch.relu(inp)
            if i > 0:
                s_flow = self.upflow(flow_up, curr_fmap1)
            for itr in range(iters):
                out_corrs = self.corr(torch.cat([curr_fmap1, curr_fmap2], dim=1))
                net, up_mask, delta_flow = self.update_block(net, inp, out_corrs, s_flow)
                s_flow = s_flow + delta_flow
                flow_up = self.upsample_flow(s_flow, up_mask, rate=4)
        return flow_up

    def forward(self, image1, image2, init_flow):
        if self.test_mode and init_flow is not None:
            return self.inference(image1, image2, init_flow=init_flow)


def make_model():
    return DIP().eval()


def _pair(h, w, mag):
    return (torch.rand(1, 3, h, w) * 255, torch.rand(1, 3, h, w) * 255,
            torch.randn(1, 2, h, w).clamp(-1, 1) * mag)


def example_inputs():
    return _pair(256, 320, 40.0)     # max |flow| ~ 50 px -> 2 pyramid levels


def other_inputs():
    return [_pair(320, 384, 20.0), _pair(192, 352, 150.0)]


def probe_inputs():
    return other_inputs()
