"""Ultralytics end-to-end detection head (YOLOv10/YOLO26 one-to-one branch) exported with its `postprocess`:
`topk(min(max_det, anchors))` picks the candidates, where `anchors` is the number of grid cells of the input.
The PR clamps the top-k to the available anchors because a small input (imgsz=32 -> 21 anchors) against the
default max_det=300 raised "selected index k out of range"; the clamp is a Python `min` on a shape, so in a
dynamic height/width export it is taken once at export time and a smaller image again asks TopK for more
elements than there are anchors. Reduced to a three-level stride-8/16/32 stem with box and class convs
(one class, its logits spread so that near-tied scores do not reorder the top-k between runtimes).

Source: https://github.com/ultralytics/ultralytics/pull/25771
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-85"


class Conv(nn.Module):
    def __init__(self, c1, c2, k=3, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Detect(nn.Module):
    end2end = True
    max_det = 300
    export = True

    def __init__(self, nc=1, ch=(16, 32, 64)):
        super().__init__()
        self.nc = nc
        self.nl = len(ch)
        self.cv2 = nn.ModuleList(nn.Sequential(Conv(x, 16, 3), nn.Conv2d(16, 4, 1)) for x in ch)
        self.cv3 = nn.ModuleList(nn.Sequential(Conv(x, 16, 3), nn.Conv2d(16, self.nc, 1)) for x in ch)

    def forward(self, x):
        bs = x[0].shape[0]
        box = torch.cat([self.cv2[i](x[i]).view(bs, 4, -1) for i in range(self.nl)], 2)
        cls = torch.cat([self.cv3[i](x[i]).view(bs, self.nc, -1) for i in range(self.nl)], 2)
        y = torch.cat((box, cls.sigmoid()), 1)
        return self.postprocess(y.permute(0, 2, 1), self.max_det, self.nc)

    @staticmethod
    def postprocess(preds: torch.Tensor, max_det: int, nc: int = 80):
        batch_size, anchors, _ = preds.shape  # i.e. shape(16,8400,84)
        boxes, scores = preds.split([4, nc], dim=-1)
        index = scores.amax(dim=-1).topk(min(max_det, anchors))[1].unsqueeze(-1)
        boxes = boxes.gather(dim=1, index=index.repeat(1, 1, 4))
        scores = scores.gather(dim=1, index=index.repeat(1, 1, nc))
        scores, index = scores.flatten(1).topk(min(max_det, anchors))
        i = torch.arange(batch_size)[..., None]  # batch indices
        return torch.cat([boxes[i, index // nc], scores[..., None], (index % nc)[..., None].float()], dim=-1)


class TinyYOLO(nn.Module):
    def __init__(self, nc=1):
        super().__init__()
        self.stem = nn.Sequential(Conv(3, 8, 3, 2), Conv(8, 16, 3, 2), Conv(16, 16, 3, 2))  # P3/8
        self.p4 = Conv(16, 32, 3, 2)  # P4/16
        self.p5 = Conv(32, 64, 3, 2)  # P5/32
        self.detect = Detect(nc=nc, ch=(16, 32, 64))

    def forward(self, x):
        p3 = self.stem(x)
        p4 = self.p4(p3)
        p5 = self.p5(p4)
        return self.detect([p3, p4, p5])


def make_model():
    model = TinyYOLO()
    with torch.no_grad():  # spread the class logits like a trained head (random init keeps all scores near 0.5)
        for seq in model.detect.cv3:
            seq[-1].weight.mul_(300.0)
    return model.eval()


def example_inputs():
    return (torch.rand(1, 3, 160, 192),)  # 20*24 + 10*12 + 5*6 = 630 anchors


def other_inputs():
    return [(torch.rand(2, 3, 96, 96),),   # 144 + 36 + 9 = 189 anchors < max_det
            (torch.rand(1, 3, 64, 128),)]  # 128 + 32 + 8 = 168 anchors


def probe_inputs():
    return other_inputs()
