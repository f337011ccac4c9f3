"""ProPainter video inpainting, image propagation stage: BidirectionalPropagation(learnable=False) splits the
clip into per-frame lists with `for i in range(0, t)` and propagates backward/forward in Python loops over the
frame indices (`if i == 0: ... else: flow_warp(...)`), and flow_warp normalizes with `max(w - 1, 1)`; the
reporter spent three days on ONNX export and blames the network's many conditional statements (plus
deform_conv2d, not used in this non-learnable stage) for tracing not capturing the whole data flow.

Source: https://github.com/sczhou/ProPainter/issues/98
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {
    "masked_frames": {1: "time", 3: "height", 4: "width"},
    "flows_forward": {1: "time_m1", 3: "height", 4: "width"},
    "flows_backward": {1: "time_m1", 3: "height", 4: "width"},
    "masks": {1: "time", 3: "height", 4: "width"},
}
BLIND = "domains-23"


def flow_warp(x, flow, interpolation='bilinear', padding_mode='zeros', align_corners=True):
    if x.size()[-2:] != flow.size()[1:3]:
        raise ValueError(f'The spatial sizes of input ({x.size()[-2:]}) and '
                         f'flow ({flow.size()[1:3]}) are not the same.')
    _, _, h, w = x.size()
    # create mesh grid
    device = flow.device
    grid_y, grid_x = torch.meshgrid(torch.arange(0, h, device=device), torch.arange(0, w, device=device))
    grid = torch.stack((grid_x, grid_y), 2).type_as(x)  # (w, h, 2)
    grid.requires_grad = False

    grid_flow = grid + flow
    # scale grid_flow to [-1,1]
    grid_flow_x = 2.0 * grid_flow[:, :, :, 0] / max(w - 1, 1) - 1.0
    grid_flow_y = 2.0 * grid_flow[:, :, :, 1] / max(h - 1, 1) - 1.0
    grid_flow = torch.stack((grid_flow_x, grid_flow_y), dim=3)
    output = F.grid_sample(x, grid_flow, mode=interpolation, padding_mode=padding_mode, align_corners=align_corners)
    return output


def length_sq(x):
    return torch.sum(torch.square(x), dim=1, keepdim=True)


def fbConsistencyCheck(flow_fw, flow_bw, alpha1=0.01, alpha2=0.5):
    flow_bw_warped = flow_warp(flow_bw, flow_fw.permute(0, 2, 3, 1))  # wb(wf(x))
    flow_diff_fw = flow_fw + flow_bw_warped  # wf + wb(wf(x))
    mag_sq_fw = length_sq(flow_fw) + length_sq(flow_bw_warped)  # |wf| + |wb(wf(x))|
    occ_thresh_fw = alpha1 * mag_sq_fw + alpha2
    fb_valid_fw = (length_sq(flow_diff_fw) < occ_thresh_fw).to(flow_fw)
    return fb_valid_fw


class BidirectionalPropagation(nn.Module):
    def __init__(self, channel, learnable=True):
        super(BidirectionalPropagation, self).__init__()
        self.channel = channel
        self.prop_list = ['backward_1', 'forward_1']
        self.learnable = learnable  # the learnable (deform_conv2d) branch is not built here

    def binary_mask(self, mask, th=0.1):
        mask[mask>th] = 1
        mask[mask<=th] = 0
        return mask.to(mask)

    def forward(self, x, flows_forward, flows_backward, mask, interpolation='bilinear'):
        b, t, c, h, w = x.shape
        feats, masks = {}, {}
        feats['input'] = [x[:, i, :, :, :] for i in range(0, t)]
        masks['input'] = [mask[:, i, :, :, :] for i in range(0, t)]

        prop_list = ['backward_1', 'forward_1']
        cache_list = ['input'] +  prop_list

        for p_i, module_name in enumerate(prop_list):
            feats[module_name] = []
            masks[module_name] = []

            if 'backward' in module_name:
                frame_idx = range(0, t)
                frame_idx = frame_idx[::-1]
                flow_idx = frame_idx
                flows_for_prop = flows_forward
                flows_for_check = flows_backward
            else:
                frame_idx = range(0, t)
                flow_idx = range(-1, t - 1)
                flows_for_prop = flows_backward
                flows_for_check = flows_forward

            for i, idx in enumerate(frame_idx):
                feat_current = feats[cache_list[p_i]][idx]
                mask_current = masks[cache_list[p_i]][idx]

                if i == 0:
                    feat_prop = feat_current
                    mask_prop = mask_current
                else:
                    flow_prop = flows_for_prop[:, flow_idx[i], :, :, :]
                    flow_check = flows_for_check[:, flow_idx[i], :, :, :]
                    flow_vaild_mask = fbConsistencyCheck(flow_prop, flow_check)
                    feat_warped = flow_warp(feat_prop, flow_prop.permute(0, 2, 3, 1), interpolation)

                    mask_prop_valid = flow_warp(mask_prop, flow_prop.permute(0, 2, 3, 1))
                    mask_prop_valid = self.binary_mask(mask_prop_valid)

                    union_vaild_mask = self.binary_mask(mask_current*flow_vaild_mask*(1-mask_prop_valid))
                    feat_prop = union_vaild_mask * feat_warped + (1-union_vaild_mask) * feat_current
                    # update mask
                    mask_prop = self.binary_mask(mask_current*(1-(flow_vaild_mask*(1-mask_prop_valid))))

                feats[module_name].append(feat_prop)
                masks[module_name].append(mask_prop)

            if 'backward' in module_name:
                feats[module_name] = feats[module_name][::-1]
                masks[module_name] = masks[module_name][::-1]

        outputs_b = torch.stack(feats['backward_1'], dim=1).view(-1, c, h, w)
        outputs_f = torch.stack(feats['forward_1'], dim=1).view(-1, c, h, w)
        masks_f = torch.stack(masks['forward_1'], dim=1)
        outputs = outputs_f
        return outputs_b.view(b, -1, c, h, w), outputs_f.view(b, -1, c, h, w), \
               outputs.view(b, -1, c, h, w), masks_f


class InpaintGenerator(nn.Module):
    def __init__(self):
        super(InpaintGenerator, self).__init__()
        self.img_prop_module = BidirectionalPropagation(3, learnable=False)

    def img_propagation(self, masked_frames, completed_flows, masks, interpolation='nearest'):
        _, _, prop_frames, updated_masks = self.img_prop_module(masked_frames, completed_flows[0], completed_flows[1], masks, interpolation)
        return prop_frames, updated_masks


class ImgPropagationExport(nn.Module):
    # export wrapper around model.img_propagation(masked_frames, pred_flows_bi, masks_dilated, 'nearest')
    def __init__(self):
        super().__init__()
        self.model = InpaintGenerator()

    def forward(self, masked_frames, flows_forward, flows_backward, masks):
        return self.model.img_propagation(masked_frames, (flows_forward, flows_backward), masks, 'nearest')


def make_model():
    return ImgPropagationExport().eval()


def _inputs(b, t, h, w):
    masks = (torch.rand(b, t, 1, h, w) > 0.5).float()
    return (torch.randn(b, t, 3, h, w) * (1 - masks), torch.randn(b, t - 1, 2, h, w) * 2,
            torch.randn(b, t - 1, 2, h, w) * 2, masks)


def example_inputs():
    return _inputs(1, 5, 24, 32)


def other_inputs():
    return [_inputs(1, 7, 32, 40), _inputs(2, 3, 16, 24)]


def probe_inputs():
    return other_inputs()
