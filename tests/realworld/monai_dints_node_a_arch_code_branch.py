"""MONAI DiNTS (medical segmentation NAS): `DiNTS.forward` branches on entries of the tensor attribute
`self.node_a` (`if self.node_a[0][d]:`) and `TopologySearch.forward` iterates
`self.arch_code_a[blk_idx].data.cpu().numpy()` with `if activation:`; the dynamo export stops asking for
torch.cond ("Dynamic control flow is not supported").

Source: https://github.com/pytorch/pytorch/issues/123972
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-12"


class Cell(nn.Module):
    def __init__(self, c_prev, c, rate, n_ops=2):
        super().__init__()
        if rate == -1:
            self.preprocess = nn.Conv2d(c_prev, c, 3, stride=2, padding=1)
        elif rate == 1:
            self.preprocess = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True), nn.Conv2d(c_prev, c, 1))
        else:
            self.preprocess = nn.Identity() if c_prev == c else nn.Conv2d(c_prev, c, 1)
        self.ops = nn.ModuleList([nn.Identity(), nn.Sequential(nn.ReLU(), nn.Conv2d(c, c, 3, padding=1), nn.InstanceNorm2d(c, affine=True))])

    def forward(self, x, weight):
        x = self.preprocess(x)
        out = 0.0
        for idx, _op in enumerate(self.ops):
            out = out + _op(x) * weight[idx]
        return out


class TopologySearch(nn.Module):
    def __init__(self, num_blocks=2, num_depths=3, filter_nums=(8, 16, 32)):
        super().__init__()
        self.num_blocks, self.num_depths = num_blocks, num_depths
        self.arch_code2in = [(i + 1) // 3 - 1 + (i + 1) % 3 for i in range(3 * num_depths - 2)]
        self.arch_code2ops = ([-1, 0, 1] * num_depths)[1:-1]
        self.arch_code2out = [m for m in range(num_depths) for _ in range(3)][1:-1]
        self.arch_code_a = torch.ones((num_blocks, len(self.arch_code2out)))
        self.cell_tree = nn.ModuleDict()
        for blk_idx in range(num_blocks):
            for res_idx in range(len(self.arch_code2out)):
                if self.arch_code_a[blk_idx, res_idx] == 1:
                    self.cell_tree[str((blk_idx, res_idx))] = Cell(
                        filter_nums[self.arch_code2in[res_idx]], filter_nums[self.arch_code2out[res_idx]], self.arch_code2ops[res_idx])
        self.log_alpha_c = nn.Parameter(torch.zeros(num_blocks, len(self.arch_code2out), 2).normal_(1, 0.01))
        self.log_alpha_a = nn.Parameter(torch.zeros(num_blocks, len(self.arch_code2out)).normal_(0, 0.01))

    def forward(self, x):
        arch_code_prob_a = torch.sigmoid(self.log_alpha_a)
        inputs = x
        for blk_idx in range(self.num_blocks):
            outputs = [0.0] * self.num_depths
            for res_idx, activation in enumerate(self.arch_code_a[blk_idx].data.cpu().numpy()):
                if activation:
                    _w = F.softmax(self.log_alpha_c[blk_idx, res_idx], dim=-1)
                    outputs[self.arch_code2out[res_idx]] += (
                        self.cell_tree[str((blk_idx, res_idx))](inputs[self.arch_code2in[res_idx]], weight=_w)
                        * arch_code_prob_a[blk_idx, res_idx]
                    )
            inputs = outputs
        return inputs


class DiNTS(nn.Module):
    def __init__(self, dints_space, in_channels=1, num_classes=4, filter_nums=(8, 16, 32)):
        super().__init__()
        self.dints_space = dints_space
        self.num_blocks, self.num_depths = dints_space.num_blocks, dints_space.num_depths
        self.node_a = torch.ones((self.num_blocks + 1, self.num_depths))
        self.stem_down, self.stem_up = nn.ModuleDict(), nn.ModuleDict()
        for res_idx in range(self.num_depths):
            self.stem_down[str(res_idx)] = nn.Sequential(
                nn.Upsample(scale_factor=1 / (2**res_idx), mode="bilinear", align_corners=True),
                nn.Conv2d(in_channels, filter_nums[res_idx], 3, padding=1, bias=False))
            self.stem_up[str(res_idx)] = nn.Sequential(
                nn.ReLU(), nn.Conv2d(filter_nums[res_idx], filter_nums[max(res_idx - 1, 0)], 3, padding=1, bias=False),
                nn.Upsample(scale_factor=2 ** (res_idx != 0), mode="bilinear", align_corners=True))
        self.stem_finals = nn.Conv2d(filter_nums[0], num_classes, 1)

    def forward(self, x: torch.Tensor):
        inputs = []
        for d in range(self.num_depths):
            _mod_w = self.stem_down[str(d)]
            x_out = _mod_w.forward(x)
            if self.node_a[0][d]:
                inputs.append(x_out)
            else:
                inputs.append(torch.zeros_like(x_out))

        outputs = self.dints_space(inputs)

        blk_idx = self.num_blocks - 1
        start = False
        _temp: torch.Tensor = torch.empty(0)
        for res_idx in range(self.num_depths - 1, -1, -1):
            _mod_up = self.stem_up[str(res_idx)]
            if start:
                _temp = _mod_up.forward(outputs[res_idx] + _temp)
            elif self.node_a[blk_idx + 1][res_idx]:
                start = True
                _temp = _mod_up.forward(outputs[res_idx])
        prediction = self.stem_finals(_temp)
        return prediction


def make_model():
    return DiNTS(TopologySearch()).eval()


def example_inputs():
    return (torch.randn(2, 1, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 1, 40, 24),), (torch.randn(1, 1, 16, 48),)]


def probe_inputs():
    return other_inputs()
