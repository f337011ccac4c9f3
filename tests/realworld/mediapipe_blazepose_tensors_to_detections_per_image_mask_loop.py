"""MediaPipePyTorch BlazePose detector with the post-processing moved into the exported graph:
`_tensors_to_detections` decodes the boxes against the anchors, thresholds the scores and then,
"because each image from the batch can have a different number of detections", loops
`for i in range(raw_box_tensor.shape[0])` and keeps `detection_boxes[i, mask[i]]`, returning a Python
list with one variable-length tensor per image. The ONNX port (commit "onnxできたぞ") had to replace
the per-image loop with `detection_boxes[0, mask[0]]` (batch 1 only) to get an ONNX file at all.

Source: https://github.com/K4S4B4/MediaPipePyTorch/commit/563e7819dbdca5e040f8943ff1fa990a0d0bcb78
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-78"


class BlazeBlock(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, skip_proj=False):
        super(BlazeBlock, self).__init__()
        self.stride = stride
        self.kernel_size = kernel_size
        self.channel_pad = out_channels - in_channels
        if stride == 2:
            self.max_pool = nn.MaxPool2d(kernel_size=stride, stride=stride)
            padding = 0
        else:
            padding = (kernel_size - 1) // 2
        self.convs = nn.Sequential(
            nn.Conv2d(in_channels=in_channels, out_channels=in_channels,
                      kernel_size=kernel_size, stride=stride, padding=padding,
                      groups=in_channels, bias=True),
            nn.Conv2d(in_channels=in_channels, out_channels=out_channels,
                      kernel_size=1, stride=1, padding=0, bias=True),
        )
        if skip_proj:
            self.skip_proj = nn.Conv2d(in_channels=in_channels, out_channels=out_channels,
                                       kernel_size=1, stride=1, padding=0, bias=True)
        else:
            self.skip_proj = None
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        if self.stride == 2:
            if self.kernel_size == 3:
                h = F.pad(x, (0, 2, 0, 2), "constant", 0)
            else:
                h = F.pad(x, (1, 2, 1, 2), "constant", 0)
            x = self.max_pool(x)
        else:
            h = x
        if self.skip_proj is not None:
            x = self.skip_proj(x)
        elif self.channel_pad > 0:
            x = F.pad(x, (0, 0, 0, 0, 0, self.channel_pad), "constant", 0)
        return self.act(self.convs(h) + x)


class BlazePose(nn.Module):
    def __init__(self):
        super(BlazePose, self).__init__()
        self.num_classes = 1
        self.num_anchors = 896
        self.num_coords = 12
        self.score_clipping_thresh = 100.0
        self.x_scale = 128.0
        self.y_scale = 128.0
        self.h_scale = 128.0
        self.w_scale = 128.0
        self.min_score_thresh = 0.75
        self.num_keypoints = 4

        self.backbone1 = nn.Sequential(
            nn.Conv2d(in_channels=3, out_channels=48, kernel_size=5, stride=1, padding=2, bias=True),
            nn.ReLU(inplace=True),
            BlazeBlock(48, 64, 5, 2, skip_proj=True),
            BlazeBlock(64, 96, 5, 2, skip_proj=True),
            BlazeBlock(96, 128, 5, 2, skip_proj=True),
            BlazeBlock(128, 128, 5),
        )
        self.backbone2 = nn.Sequential(
            BlazeBlock(128, 256, 5, 2, skip_proj=True),
            BlazeBlock(256, 256, 5),
        )
        self.classifier_8 = nn.Conv2d(128, 2, 1, bias=True)
        self.classifier_16 = nn.Conv2d(256, 6, 1, bias=True)
        self.regressor_8 = nn.Conv2d(128, 24, 1, bias=True)
        self.regressor_16 = nn.Conv2d(256, 72, 1, bias=True)
        # anchors_pose.npy: (896, 4) x_center, y_center, w, h
        anchors = np.random.RandomState(0).uniform(0.0, 1.0, size=(896, 4)).astype(np.float32)
        self.register_buffer("anchors", torch.tensor(anchors))

    def forward(self, x):
        b = x.shape[0]      # batch size, needed for reshaping later
        x = self.backbone1(x)
        h = self.backbone2(x)

        c1 = self.classifier_8(x)
        c1 = c1.permute(0, 2, 3, 1)
        c1 = c1.reshape(b, -1, 1)
        c2 = self.classifier_16(h)
        c2 = c2.permute(0, 2, 3, 1)
        c2 = c2.reshape(b, -1, 1)
        raw_score_tensor = torch.cat((c1, c2), dim=1)

        r1 = self.regressor_8(x)
        r1 = r1.permute(0, 2, 3, 1)
        r1 = r1.reshape(b, -1, 12)
        r2 = self.regressor_16(h)
        r2 = r2.permute(0, 2, 3, 1)
        r2 = r2.reshape(b, -1, 12)
        raw_box_tensor = torch.cat((r1, r2), dim=1)

        # 3. Postprocess the raw predictions:
        return self._tensors_to_detections(raw_box_tensor, raw_score_tensor, self.anchors)

    def _tensors_to_detections(self, raw_box_tensor, raw_score_tensor, anchors):
        assert raw_box_tensor.ndimension() == 3
        assert raw_box_tensor.shape[1] == self.num_anchors
        assert raw_box_tensor.shape[2] == self.num_coords
        assert raw_score_tensor.ndimension() == 3
        assert raw_score_tensor.shape[1] == self.num_anchors
        assert raw_score_tensor.shape[2] == self.num_classes
        assert raw_box_tensor.shape[0] == raw_score_tensor.shape[0]

        detection_boxes = self._decode_boxes(raw_box_tensor, anchors)

        thresh = self.score_clipping_thresh
        raw_score_tensor = raw_score_tensor.clamp(-thresh, thresh)
        detection_scores = raw_score_tensor.sigmoid().squeeze(dim=-1)

        mask = detection_scores >= self.min_score_thresh

        # Because each image from the batch can have a different number of
        # detections, process them one at a time using a loop.
        output_detections = []
        for i in range(raw_box_tensor.shape[0]):
            boxes = detection_boxes[i, mask[i]]
            scores = detection_scores[i, mask[i]].unsqueeze(dim=-1)
            output_detections.append(torch.cat((boxes, scores), dim=-1))

        return output_detections

    def _decode_boxes(self, raw_boxes, anchors):
        boxes = torch.zeros_like(raw_boxes)

        x_center = raw_boxes[..., 0] / self.x_scale * anchors[:, 2] + anchors[:, 0]
        y_center = raw_boxes[..., 1] / self.y_scale * anchors[:, 3] + anchors[:, 1]
        w = raw_boxes[..., 2] / self.w_scale * anchors[:, 2]
        h = raw_boxes[..., 3] / self.h_scale * anchors[:, 3]

        boxes[..., 0] = y_center - h / 2.  # ymin
        boxes[..., 1] = x_center - w / 2.  # xmin
        boxes[..., 2] = y_center + h / 2.  # ymax
        boxes[..., 3] = x_center + w / 2.  # xmax

        for k in range(self.num_keypoints):
            offset = 4 + k*2
            keypoint_x = raw_boxes[..., offset    ] / self.x_scale * anchors[:, 2] + anchors[:, 0]
            keypoint_y = raw_boxes[..., offset + 1] / self.y_scale * anchors[:, 3] + anchors[:, 1]
            boxes[..., offset    ] = keypoint_x
            boxes[..., offset + 1] = keypoint_y

        return boxes


def make_model():
    model = BlazePose().eval()
    with torch.no_grad():  # stand-in for blazepose.pth: some anchors score above min_score_thresh
        model.classifier_8.bias.fill_(1.0)
        model.classifier_16.bias.fill_(1.0)
    return model


def example_inputs():
    return (torch.rand(2, 3, 128, 128) * 2 - 1,)


def other_inputs():
    return [(torch.rand(3, 3, 128, 128) * 2 - 1,), (torch.rand(1, 3, 128, 128) * 2 - 1,)]


def probe_inputs():
    return other_inputs()
