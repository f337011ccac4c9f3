"""facenet-pytorch MTCNN face detector, first stage: `detect_face` builds the image pyramid with
`minl = min(h, w)` and a `while minl >= 12:` loop over the image size, resizes the batch to
`(int(h * scale + 1), int(w * scale + 1))` per scale, runs PNet and keeps the boxes with
`generateBoundingBox` (mask.nonzero()); users asking how to convert MTCNN to ONNX hit the pyramid
(an empty `scales` list ends in `torch.cat(): expected a non-empty list of Tensors`).

Source: https://github.com/timesler/facenet-pytorch/issues/200
"""
import torch
from torch import nn
from torch.nn.functional import interpolate

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"imgs": {1: "height", 2: "width"}}
BLIND = "domains-35"


class PNet(nn.Module):
    """MTCNN PNet."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 10, kernel_size=3)
        self.prelu1 = nn.PReLU(10)
        self.pool1 = nn.MaxPool2d(2, 2, ceil_mode=True)
        self.conv2 = nn.Conv2d(10, 16, kernel_size=3)
        self.prelu2 = nn.PReLU(16)
        self.conv3 = nn.Conv2d(16, 32, kernel_size=3)
        self.prelu3 = nn.PReLU(32)
        self.conv4_1 = nn.Conv2d(32, 2, kernel_size=1)
        self.softmax4_1 = nn.Softmax(dim=1)
        self.conv4_2 = nn.Conv2d(32, 4, kernel_size=1)

    def forward(self, x):
        x = self.conv1(x)
        x = self.prelu1(x)
        x = self.pool1(x)
        x = self.conv2(x)
        x = self.prelu2(x)
        x = self.conv3(x)
        x = self.prelu3(x)
        a = self.conv4_1(x)
        a = self.softmax4_1(a)
        b = self.conv4_2(x)
        return b, a


def imresample(img, sz):
    im_data = interpolate(img, size=sz, mode="area")
    return im_data


def generateBoundingBox(reg, probs, scale, thresh):
    stride = 2
    cellsize = 12

    reg = reg.permute(1, 0, 2, 3)

    mask = probs >= thresh
    mask_inds = mask.nonzero()
    image_inds = mask_inds[:, 0]
    score = probs[mask]
    reg = reg[:, mask].permute(1, 0)
    bb = mask_inds[:, 1:].type(reg.dtype).flip(1)
    q1 = ((stride * bb + 1) / scale).floor()
    q2 = ((stride * bb + cellsize - 1 + 1) / scale).floor()
    boundingbox = torch.cat([q1, q2, score.unsqueeze(1), reg], dim=1)
    return boundingbox, image_inds


class MTCNNFirstStage(nn.Module):
    def __init__(self, min_face_size=20, thresholds=(0.6, 0.7, 0.7), factor=0.709):
        super().__init__()
        self.pnet = PNet()
        self.min_face_size = min_face_size
        self.thresholds = thresholds
        self.factor = factor

    def forward(self, imgs):
        minsize, threshold, factor = self.min_face_size, self.thresholds, self.factor
        imgs = imgs.permute(0, 3, 1, 2).type(torch.float32)

        h, w = imgs.shape[2:4]
        m = 12.0 / minsize
        minl = min(h, w)
        minl = minl * m

        # Create scale pyramid
        scale_i = m
        scales = []
        while minl >= 12:
            scales.append(scale_i)
            scale_i = scale_i * factor
            minl = minl * factor

        # First stage
        boxes = []
        image_inds = []
        for scale in scales:
            im_data = imresample(imgs, (int(h * scale + 1), int(w * scale + 1)))
            im_data = (im_data - 127.5) * 0.0078125
            reg, probs = self.pnet(im_data)

            boxes_scale, image_inds_scale = generateBoundingBox(reg, probs[:, 1], scale, threshold[0])
            boxes.append(boxes_scale)
            image_inds.append(image_inds_scale)

        boxes = torch.cat(boxes, dim=0)
        image_inds = torch.cat(image_inds, dim=0)
        return boxes, image_inds


def make_model():
    return MTCNNFirstStage().eval()


def example_inputs():
    return (torch.rand(1, 64, 80, 3) * 255,)


def other_inputs():
    return [(torch.rand(1, 96, 72, 3) * 255,), (torch.rand(1, 48, 120, 3) * 255,)]


def probe_inputs():
    return other_inputs()
