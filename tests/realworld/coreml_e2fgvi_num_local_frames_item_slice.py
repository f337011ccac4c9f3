"""E2FGVI video inpainting (InpaintGenerator) traced for Core ML: `forward(masked_frames, num_local_frames)` takes
the number of local frames as an int, which `torch.jit.trace` rejects, so the user passes a tensor and writes
`l_t = num_local_frames.item()`; `l_t` then slices the local frames (`masked_frames[:, :l_t, ...]`) and splits the
encoder features into local and reference frames, so the traced graph keeps the value seen at trace time.
(SPyNet, the deformable feature propagation and the focal transformer are reduced to small convs.)

Source: https://github.com/apple/coremltools/issues/1520
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"masked_frames": {1: "frames", 3: "height", 4: "width"}}
BLIND = "domains-35"


class Encoder(nn.Module):
    def __init__(self):
        super(Encoder, self).__init__()
        self.layers = nn.Sequential(
            nn.Conv2d(3, 32, kernel_size=3, stride=2, padding=1),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(32, 32, kernel_size=3, stride=2, padding=1),
            nn.LeakyReLU(0.2, inplace=True))

    def forward(self, x):
        return self.layers(x)


class TinySPyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(6, 2, 3, padding=1)

    def forward(self, ref, supp):
        return self.conv(torch.cat([ref, supp], 1))


class BidirectionalPropagation(nn.Module):
    def __init__(self, channel):
        super().__init__()
        self.conv = nn.Conv2d(4, channel, 3, padding=1)

    def forward(self, x, flows_backward, flows_forward):
        b, n, c, h, w = x.size()
        flow = torch.cat([flows_forward, flows_backward], dim=2).mean(1)
        return x + self.conv(flow).unsqueeze(1)


class InpaintGenerator(nn.Module):
    def __init__(self):
        super(InpaintGenerator, self).__init__()
        self.encoder = Encoder()
        self.decoder = nn.Sequential(
            nn.Upsample(scale_factor=4, mode='bilinear', align_corners=True),
            nn.Conv2d(32, 3, kernel_size=3, stride=1, padding=1))
        self.feat_prop_module = BidirectionalPropagation(32)
        self.update_spynet = TinySPyNet()

    def forward_bidirect_flow(self, masked_local_frames):
        b, l_t, c, h, w = masked_local_frames.size()

        # compute forward and backward flows of masked frames
        masked_local_frames = F.interpolate(masked_local_frames.view(
            -1, c, h, w),
                                            scale_factor=1 / 4,
                                            mode='bilinear',
                                            align_corners=True,
                                            recompute_scale_factor=True)
        masked_local_frames = masked_local_frames.view(b, l_t, c, h // 4,
                                                       w // 4)
        mlf_1 = masked_local_frames[:, :-1, :, :, :].reshape(
            -1, c, h // 4, w // 4)
        mlf_2 = masked_local_frames[:, 1:, :, :, :].reshape(
            -1, c, h // 4, w // 4)
        pred_flows_forward = self.update_spynet(mlf_1, mlf_2)
        pred_flows_backward = self.update_spynet(mlf_2, mlf_1)

        pred_flows_forward = pred_flows_forward.view(b, l_t - 1, 2, h // 4,
                                                     w // 4)
        pred_flows_backward = pred_flows_backward.view(b, l_t - 1, 2, h // 4,
                                                       w // 4)

        return pred_flows_forward, pred_flows_backward

    def forward(self, masked_frames, num_local_frames):
        l_t = num_local_frames.item()
        b, t, ori_c, ori_h, ori_w = masked_frames.size()

        # normalization before feeding into the flow completion module
        masked_local_frames = (masked_frames[:, :l_t, ...] + 1) / 2
        pred_flows = self.forward_bidirect_flow(masked_local_frames)

        # extracting features and performing the feature propagation on local features
        enc_feat = self.encoder(masked_frames.view(b * t, ori_c, ori_h, ori_w))
        _, c, h, w = enc_feat.size()
        local_feat = enc_feat.view(b, t, c, h, w)[:, :l_t, ...]
        ref_feat = enc_feat.view(b, t, c, h, w)[:, l_t:, ...]
        local_feat = self.feat_prop_module(local_feat, pred_flows[0],
                                           pred_flows[1])
        enc_feat = torch.cat((local_feat, ref_feat), dim=1)

        # decode frames from features
        output = self.decoder(enc_feat.view(b * t, c, h, w))
        output = torch.tanh(output)
        return output, pred_flows[0], pred_flows[1]


def make_model():
    return InpaintGenerator().eval()


def example_inputs():
    return (torch.randn(1, 8, 3, 32, 48), torch.tensor([5]))


def other_inputs():
    return [(torch.randn(1, 10, 3, 48, 32), torch.tensor([3])),
            (torch.randn(1, 6, 3, 24, 40), torch.tensor([4]))]


def probe_inputs():
    return other_inputs()
