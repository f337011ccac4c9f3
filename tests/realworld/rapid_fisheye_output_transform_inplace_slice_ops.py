"""RAPiD (rotation-aware people detection in overhead fisheye images) export model: `output_transform` decodes the
YOLO-style head with in-place ops on slices of the permuted raw output (`raw[..., 0:2].sigmoid_()`,
`raw[..., 0].add_(x_shift).mul_(imgw / nW)`, `raw[..., 2:4].exp_().mul_(anchors)`, ...). The exported ONNX model
ran but its detections were wrong ("there was a bug generating the initial onnx model"); the maintainer's
"onnx export bugfix #26" rewrote these as out-of-place assignments.

Source: https://github.com/duanzhiihao/RAPiD/issues/26
"""
import torch
import torch.nn as nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-16"


class TinyBackboneAndBranches(nn.Module):
    """Stand-in for Darknet53 + the three YOLOBranch heads: 18 = 3 anchors x 6 channels at strides 8/16/32."""

    def __init__(self):
        super().__init__()
        self.s8 = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.1), nn.Conv2d(16, 32, 3, 2, 1),
                                nn.LeakyReLU(0.1), nn.Conv2d(32, 32, 3, 2, 1), nn.LeakyReLU(0.1))
        self.s16 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.LeakyReLU(0.1))
        self.s32 = nn.Sequential(nn.Conv2d(64, 64, 3, 2, 1), nn.LeakyReLU(0.1))
        self.head_S = nn.Conv2d(32, 18, 1)
        self.head_M = nn.Conv2d(64, 18, 1)
        self.head_L = nn.Conv2d(64, 18, 1)

    def forward(self, x):
        small = self.s8(x)
        medium = self.s16(small)
        large = self.s32(medium)
        return self.head_S(small), self.head_M(medium), self.head_L(large)


class RAPiD(nn.Module):
    def __init__(self, input_hw=(256, 256)):
        super().__init__()
        self.net = TinyBackboneAndBranches()
        self.strides = [8, 16, 32]  # S, M, L

        # Anchors
        anchors = [
            [[18.7807, 33.4659], [28.8912, 61.7536], [48.6849, 68.3897]],  # S
            [[45.0668, 101.4673], [63.0952, 113.5382], [81.3909, 134.4554]],  # M
            [[91.7364, 144.9949], [137.5189, 178.4791], [194.4429, 250.7985]]  # L
        ]
        self.angle_range = 360.0
        self.input_hw = input_hw
        self._build_branch_infos(anchors)

    def _build_branch_infos(self, anchors):
        imgh, imgw = self.input_hw
        assert (imgh % self.strides[-1] == 0) and (imgw % self.strides[-1] == 0)

        branch_infos = []
        for i, strd in enumerate(self.strides):
            # check image size is multiple of stride
            assert (imgh % strd == 0) and (imgw % strd == 0)
            # feature dimension
            nH, nW = imgh // strd, imgw // strd
            # mesh grid
            y_shift = torch.arange(nH, dtype=torch.float).view(1, 1, nH, 1)
            x_shift = torch.arange(nW, dtype=torch.float).view(1, 1, 1, nW)
            # anchors
            anch = torch.Tensor(anchors[i]).reshape(1, 3, 1, 1, 2)
            # stride, h dim, w dim, h arange, w arange
            info = (strd, nH, nW, y_shift, x_shift, anch)
            branch_infos.append(info)
        self._branch_infos = branch_infos

    def forward(self, x, labels=None):
        assert x.shape[2:4] == self.input_hw

        detect_S, detect_M, detect_L = self.net(x)

        if labels is None:
            # testing
            assert not self.training
            bboxes = torch.cat([
                self.output_transform(detect_S, 0),  # S
                self.output_transform(detect_M, 1),  # M
                self.output_transform(detect_L, 2)  # L
            ], dim=1)
            return bboxes
        else:
            raise NotImplementedError()

    def output_transform(self, raw: torch.Tensor, branch_index=None):
        """ Transform the network output into bounding boxes in image space """
        assert branch_index is not None

        device = raw.device
        # stride, h dim, w dim, h arange, w arange, anchors
        s, nH, nW, y_shift, x_shift, anchors = self._branch_infos[branch_index]
        nA = anchors.shape[1]  # number of anchors, should be 3
        nCH = 6  # number of channels, 6=(x,y,w,h,angle,conf)
        nB = raw.shape[0]  # batch size
        assert raw.shape == (nB, nA*nCH, nH, nW)

        raw = raw.view(nB, nA, nCH, nH, nW)
        raw = raw.permute(0, 1, 3, 4, 2).contiguous()
        # now shape(nB, nA, nH, nW, nCH), meaning (nB x nA x nH x nW) objects

        # transform xy into image space
        raw[..., 0:2].sigmoid_()  # x,y offsets
        imgh, imgw = self.input_hw
        y_shift, x_shift = y_shift.to(device=device), x_shift.to(device=device)
        raw[..., 0].add_(x_shift).mul_(imgw / nW)  # x in image space
        raw[..., 1].add_(y_shift).mul_(imgh / nH)  # y in image space

        # transform wh into image space
        anchors = anchors.to(device=device)
        raw[..., 2:4].exp_().mul_(anchors)  # (nB, 3, nH, nW, 2) * (1, 3, 1, 1, 2)

        # angle and confidence score
        raw[..., 4:6].sigmoid_()
        raw[..., 4].mul_(self.angle_range).sub_(self.angle_range/2)  # angle from 0~1 to -180~180

        bboxes = raw.view(nB, nA*nH*nW, nCH)
        return bboxes


def make_model():
    return RAPiD(input_hw=(256, 256)).eval()


def example_inputs():
    return (torch.rand(1, 3, 256, 256),)


def other_inputs():
    return [(torch.rand(2, 3, 256, 256),), (torch.rand(3, 3, 256, 256),)]


def probe_inputs():
    return other_inputs()
