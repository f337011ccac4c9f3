"""bubbliiiing yolov4-tiny-pytorch: the box decoding (`DecodeBox`) run on the head output before NMS; it computes
`stride_h = self.img_size[1] / input_height` in Python, builds `FloatTensor(scaled_anchors)` and
`torch.Tensor([stride_w, stride_h] * 2)` from those Python floats, allocates `pred_boxes = FloatTensor(prediction[..., :4].shape)`
and fills it through `.data`; the reporter asks how to export it to ONNX and the reply rewrites DecodeBox
(`torch.scalar_tensor` strides, anchors as a tensor) so that it exports.

Source: https://github.com/bubbliiiing/yolov4-tiny-pytorch/issues/19
"""
import numpy as np
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "size", 3: "size"}}
BLIND = "domains-41"


class DecodeBox(nn.Module):
    def __init__(self, anchors, num_classes, img_size):
        super(DecodeBox, self).__init__()
        self.anchors = anchors
        self.num_anchors = len(anchors)
        self.num_classes = num_classes
        self.bbox_attrs = 5 + num_classes
        self.img_size = img_size

    def forward(self, input):
        batch_size = input.size(0)
        input_height = input.size(2)
        input_width = input.size(3)

        stride_h = self.img_size[1] / input_height
        stride_w = self.img_size[0] / input_width
        scaled_anchors = [(anchor_width / stride_w, anchor_height / stride_h) for anchor_width, anchor_height in self.anchors]

        prediction = input.view(batch_size, self.num_anchors,
                                self.bbox_attrs, input_height, input_width).permute(0, 1, 3, 4, 2).contiguous()

        x = torch.sigmoid(prediction[..., 0])
        y = torch.sigmoid(prediction[..., 1])
        w = prediction[..., 2]
        h = prediction[..., 3]
        conf = torch.sigmoid(prediction[..., 4])
        pred_cls = torch.sigmoid(prediction[..., 5:])

        FloatTensor = torch.cuda.FloatTensor if x.is_cuda else torch.FloatTensor
        LongTensor = torch.cuda.LongTensor if x.is_cuda else torch.LongTensor

        grid_x = torch.linspace(0, input_width - 1, input_width).repeat(input_width, 1).repeat(
            batch_size * self.num_anchors, 1, 1).view(x.shape).type(FloatTensor)
        grid_y = torch.linspace(0, input_height - 1, input_height).repeat(input_height, 1).t().repeat(
            batch_size * self.num_anchors, 1, 1).view(y.shape).type(FloatTensor)

        anchor_w = FloatTensor(scaled_anchors).index_select(1, LongTensor([0]))
        anchor_h = FloatTensor(scaled_anchors).index_select(1, LongTensor([1]))
        anchor_w = anchor_w.repeat(batch_size, 1).repeat(1, 1, input_height * input_width).view(w.shape)
        anchor_h = anchor_h.repeat(batch_size, 1).repeat(1, 1, input_height * input_width).view(h.shape)

        pred_boxes = FloatTensor(prediction[..., :4].shape)
        pred_boxes[..., 0] = x.data + grid_x
        pred_boxes[..., 1] = y.data + grid_y
        pred_boxes[..., 2] = torch.exp(w.data) * anchor_w
        pred_boxes[..., 3] = torch.exp(h.data) * anchor_h

        _scale = torch.Tensor([stride_w, stride_h] * 2).type(FloatTensor)
        output = torch.cat((pred_boxes.view(batch_size, -1, 4) * _scale,
                            conf.view(batch_size, -1, 1), pred_cls.view(batch_size, -1, self.num_classes)), -1)
        return output.data


class YoloTinyHead(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        anchors = np.array([[81, 82], [135, 169], [344, 319]])
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 4, stride=4), nn.LeakyReLU(0.1), nn.Conv2d(16, 32, 8, stride=8))
        self.yolo_head = nn.Conv2d(32, 3 * (5 + num_classes), 1)
        self.yolo_decode = DecodeBox(anchors, num_classes, (416, 416))

    def forward(self, x):
        return self.yolo_decode(self.yolo_head(self.backbone(x)))


def make_model():
    return YoloTinyHead().eval()


def example_inputs():
    return (torch.randn(1, 3, 416, 416),)


def other_inputs():
    return [(torch.randn(2, 3, 320, 320),), (torch.randn(1, 3, 608, 608),)]


def probe_inputs():
    return other_inputs()
