"""PTLFlow RAPIDFlow (coarse-to-fine optical flow) exported for deployment: every pyramid level resizes the
hidden state and the flow with `upsample2d_as`, which only interpolates `if inputs.shape[-2] != h or
inputs.shape[-1] != w`, and `rescale_flow` turns the size ratios into Python floats
(`float(width_im / flow.size(3))`); the README says the conversion needs those "conditions and operations that
may change according to the input size" removed, and the TensorRT commit replaces `upsample2d_as` by plain
`F.interpolate(..., [x1.shape[-2], x1.shape[-1]])` calls. (NeXt1D encoders, correlation lookup and convex
upsampling reduced to a few convs; simple_io path: images (B, 2, 3, H, W) in, flow out.)

Source: https://github.com/hmorimitsu/ptlflow/commit/cbded989eccc5d40325c648aaa6b0e85e56e69c7
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"inputs": {0: "batch", 3: "height", 4: "width"}}
BLIND = "domains-56"


def upsample2d_as(inputs, target_as, mode="bilinear"):
    _, _, h, w = target_as.size()
    if inputs.shape[-2] != h or inputs.shape[-1] != w:
        inputs = F.interpolate(inputs, [h, w], mode=mode, align_corners=True)
    return inputs


def rescale_flow(flow, width_im, height_im, to_local=True):
    if to_local:
        u_scale = float(flow.size(3) / width_im)
        v_scale = float(flow.size(2) / height_im)
    else:
        u_scale = float(width_im / flow.size(3))
        v_scale = float(height_im / flow.size(2))

    u, v = flow.chunk(2, dim=1)
    u = u * u_scale
    v = v * v_scale

    return torch.cat([u, v], dim=1)


class RAPIDFlowLite(nn.Module):
    def __init__(self, chs=16, net_chs=16, inp_chs=16, iters=2):
        super().__init__()
        self.net_chs, self.inp_chs, self.iters = net_chs, inp_chs, iters
        self.fnet = nn.ModuleList([nn.Conv2d(3, chs, 3, stride=s, padding=1) for s in (32, 16, 8)])
        self.cnet = nn.ModuleList([nn.Conv2d(3, net_chs + inp_chs, 3, stride=s, padding=1) for s in (32, 16, 8)])
        self.upnet_layer = nn.Conv2d(2 * net_chs, net_chs, 1)
        self.update = nn.Conv2d(2 * chs + net_chs + inp_chs + 2, net_chs + 2, 3, padding=1)

    def forward(self, inputs):
        images = inputs
        x1_raw = images[:, 0]
        x2_raw = images[:, 1]
        b, _, height_im, width_im = x1_raw.size()

        x_pyramid = [f(torch.cat([x1_raw, x2_raw], 0)) for f in self.fnet]
        x1_pyramid = [x[:b] for x in x_pyramid]
        x2_pyramid = [x[b:] for x in x_pyramid]
        cnet_pyramid = [c(x1_raw) for c in self.cnet]

        b_size, _, h_x1, w_x1 = x1_pyramid[0].size()
        flow = torch.zeros(b_size, 2, h_x1, w_x1, dtype=x1_raw.dtype, device=x1_raw.device)

        net = None
        for l, (x1, x2, cnet) in enumerate(zip(x1_pyramid, x2_pyramid, cnet_pyramid)):
            net_tmp, inp = torch.split(cnet, [self.net_chs, self.inp_chs], dim=1)
            inp = torch.relu(inp)
            if net is None:
                net = torch.tanh(net_tmp)
            else:
                net = upsample2d_as(net, x1, mode="bilinear")
                net_skip = torch.tanh(net_tmp)
                gate = torch.sigmoid(self.upnet_layer(torch.cat([net, net_skip], dim=1)))
                net = gate * net + (1.0 - gate) * net_skip

            if l > 0:
                flow = rescale_flow(flow, x1.shape[-1], x1.shape[-2], to_local=False)
                flow = upsample2d_as(flow, x1, mode="bilinear")

            for k in range(self.iters):
                flow = flow.detach()
                out = self.update(torch.cat([x1, x2, net, inp, flow], dim=1))
                net, flow_res = torch.tanh(out[:, :self.net_chs]), out[:, self.net_chs:]
                flow = flow + flow_res

        out_flow = rescale_flow(flow, width_im, height_im, to_local=False)
        out_flow = upsample2d_as(out_flow, x1_raw, mode="bilinear")
        return out_flow


def make_model():
    return RAPIDFlowLite().eval()


def example_inputs():
    return (torch.randn(1, 2, 3, 128, 192),)


def other_inputs():
    return [(torch.randn(2, 2, 3, 96, 160),), (torch.randn(3, 2, 3, 160, 128),)]


def probe_inputs():
    return other_inputs()
