"""CondLaneNet head (lanedet CondLaneHead.forward_test): per image, `ctdet_decode` moves the NMS'd heatmap to NumPy
(`.detach().cpu().numpy()`, `np.where(heat_nms > thr)`) and builds a Python list of seed dicts, `parse_pos` turns them
back into a tensor with `torch.from_numpy(np.array(poses, np.long))`, and the dynamic mask head convolves with
`groups=num_insts`; the reporter's torch.save/torch.jit.trace of the whole net failed and the maintainer says
CondLaneNet is not supported for ONNX export.

Source: https://github.com/Turoad/lanedet/issues/52
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"img": {0: "batch"}}
BLIND = "domains-47"


def parse_dynamic_params(params, channels, weight_nums, bias_nums, out_channels=1, mask=True):
    assert params.dim() == 2
    num_insts = params.size(0)
    num_layers = len(weight_nums)
    params_splits = list(torch.split_with_sizes(params, weight_nums + bias_nums, dim=1))
    weight_splits = params_splits[:num_layers]
    bias_splits = params_splits[num_layers:]
    if mask:
        bias_splits[-1] = bias_splits[-1] - 2.19
    for l in range(num_layers):
        weight_splits[l] = weight_splits[l].reshape(num_insts * out_channels, -1, 1, 1)
        bias_splits[l] = bias_splits[l].reshape(num_insts * out_channels)
    return weight_splits, bias_splits


def compute_locations(h, w, stride, device):
    shifts_x = torch.arange(0, w * stride, step=stride, dtype=torch.float32, device=device)
    shifts_y = torch.arange(0, h * stride, step=stride, dtype=torch.float32, device=device)
    shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
    locations = torch.stack((shift_x.reshape(-1), shift_y.reshape(-1)), dim=1) + stride // 2
    return locations


class DynamicMaskHead(nn.Module):
    def __init__(self, weight_nums, bias_nums):
        super().__init__()
        self.weight_nums, self.bias_nums = weight_nums, bias_nums

    def forward(self, x, mask_head_params, num_ins, idx=0, is_mask=True):
        N, _, H, W = x.size()
        locations = compute_locations(x.size(2), x.size(3), stride=1, device='cpu')
        locations = locations.unsqueeze(0).permute(0, 2, 1).contiguous().float().view(1, 2, H, W)
        locations = locations.repeat(N, 1, 1, 1).to(x.device)
        x = torch.cat([locations, x], dim=1)
        mask_head_inputs = []
        for idx in range(N):
            mask_head_inputs.append(x[idx:idx + 1, ...].repeat(1, num_ins[idx], 1, 1))
        mask_head_inputs = torch.cat(mask_head_inputs, 1)
        num_insts = sum(num_ins)
        mask_head_inputs = mask_head_inputs.reshape(1, -1, H, W)
        weights, biases = parse_dynamic_params(mask_head_params, 1, self.weight_nums, self.bias_nums, mask=is_mask)
        x = mask_head_inputs
        for i, (w, b) in enumerate(zip(weights, biases)):
            x = F.conv2d(x, w, bias=b, stride=1, padding=0, groups=num_insts)
        return x.view(1, -1, H, W)


class CondLaneHead(nn.Module):
    def __init__(self, in_ch=16, branch_ch=8, w_mask=32):
        super().__init__()
        self.num_classes = 1
        self.num_mask_params = (branch_ch + 2) + 1
        self.num_gen_params = 2 * self.num_mask_params
        self.hm = nn.Conv2d(in_ch, 1, 1)
        self.params = nn.Conv2d(in_ch, self.num_gen_params, 1)
        self.mask_branch = nn.Sequential(nn.Conv2d(in_ch, branch_ch, 3, padding=1), nn.ReLU())
        self.mask_head = DynamicMaskHead([branch_ch + 2], [1])
        self.reg_head = DynamicMaskHead([branch_ch + 2], [1])
        self.mlp = nn.Sequential(nn.Conv1d(w_mask, 16, 1), nn.ReLU(), nn.Conv1d(16, 2, 1))

    def ctdet_decode(self, heat, thr=0.1):
        def _nms(heat, kernel=3):
            pad = (kernel - 1) // 2
            hmax = nn.functional.max_pool2d(heat, (kernel, kernel), stride=1, padding=pad)
            keep = (hmax == heat).float()
            return heat * keep

        def _format(heat, inds):
            ret = []
            for y, x, c in zip(inds[0], inds[1], inds[2]):
                ret.append({'coord': [x, y], 'id_class': c + 1, 'score': heat[y, x, c]})
            return ret

        heat_nms = _nms(heat)
        heat_nms = heat_nms.permute(1, 2, 0).detach().cpu().numpy()
        inds = np.where(heat_nms > thr)
        seeds = _format(heat_nms, inds)
        return seeds

    def forward_test(self, f_hm, f_mask, hm_thr=0.5):
        def parse_pos(seeds, batchsize, num_classes, h, w, device):
            pos_list = [[p['coord'], p['id_class'] - 1] for p in seeds]
            poses = []
            for p in pos_list:
                [c, r], label = p
                pos = label * h * w + r * w + c
                poses.append(pos)
            poses = torch.from_numpy(np.array(poses, np.long)).long().to(device).unsqueeze(1)
            return poses

        m_batchsize = f_mask.size()[0]
        h_hm, w_hm = f_hm.size()[2:]
        h_mask, w_mask = f_mask.size()[2:]
        hms = torch.clamp(self.hm(f_hm).sigmoid(), min=1e-4, max=1 - 1e-4)
        params = self.params(f_hm).view(m_batchsize, self.num_classes, -1, h_hm, w_hm)
        mask_branchs = self.mask_branch(f_mask)
        params = params.permute(0, 1, 3, 4, 2).contiguous().view(m_batchsize, -1, self.num_gen_params)
        batch_size, num_classes, h, w = hms.size()
        out_masks, out_regs, out_ranges = [], [], []
        for idx, (hm, param, mask_branch) in enumerate(zip(hms, params, mask_branchs)):
            mask_branch = mask_branch.unsqueeze(0)
            seeds = self.ctdet_decode(hm, thr=hm_thr)
            pos_tensor = parse_pos(seeds, batch_size, num_classes, h, w, hm.device)
            pos_tensor = pos_tensor.expand(-1, self.num_gen_params)
            num_ins = [pos_tensor.size()[0]]
            mask_params = param[:, :self.num_mask_params].gather(0, pos_tensor[:, :self.num_mask_params])
            masks = self.mask_head(mask_branch, mask_params, num_ins, idx)
            reg_params = param[:, self.num_mask_params:].gather(0, pos_tensor[:, self.num_mask_params:])
            regs = self.reg_head(mask_branch, reg_params, num_ins, idx)
            feat_range = masks.permute(0, 1, 3, 2).view(sum(num_ins), w_mask, h_mask)
            feat_range = self.mlp(feat_range)
            out_masks.append(masks[0])
            out_regs.append(regs[0])
            out_ranges.append(feat_range)
        return torch.cat(out_masks), torch.cat(out_regs), torch.cat(out_ranges), hms


class CondLaneNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(16, 16, 3, stride=4, padding=1), nn.ReLU())
        self.head = CondLaneHead()

    def forward(self, img):
        f_mask = self.stem(img)
        f_hm = self.down(f_mask)
        return self.head.forward_test(f_hm, f_mask)


def make_model():
    return CondLaneNet().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 128),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 128),), (torch.randn(1, 3, 64, 128),)]


def probe_inputs():
    return other_inputs()
