"""TI edgeai-yolox human-pose (YOLOX-pose) export post-processing: `postprocess_export` keeps the detections whose
obj*cls score passes `conf_thre` (`detections = detections[conf_mask]`) and then skips the image with
`if not detections.size(0): continue` -- an empty check on a data-dependent count; the repo comments that check out
"to avoid onnx export error". torchvision's NMS after it is left out here (no torchvision import).

Source: https://github.com/MT-YRW/edgeai-yolox-MY/blob/d36f85a68580cec7b7ff7692af44351957002d0c/yolox/utils/boxes.py
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-83"


def cxcywh2xyxy_export(cx, cy, w, h):
    # This function is used while exporting ONNX models
    halfw = w / 2
    halfh = h / 2
    xmin = cx - halfw  # top left x
    ymin = cy - halfh  # top left y
    xmax = cx + halfw  # bottom right x
    ymax = cy + halfh  # bottom right y
    return torch.cat((xmin, ymin, xmax, ymax), 2)


def postprocess_export(prediction, num_classes, conf_thre=0.7, nms_thre=0.45, task=None):
    cx, cy, w, h = prediction[..., 0:1], prediction[..., 1:2], prediction[..., 2:3], prediction[..., 3:4]
    box = cxcywh2xyxy_export(cx, cy, w, h)
    prediction[:, :, :4] = box

    output = [None for _ in range(len(prediction))]
    for i, image_pred in enumerate(prediction):

        # If none are remaining => process next image
        if not image_pred.size(0):
            continue
        # Get score and class with highest confidence
        class_conf, class_pred = torch.max(image_pred[:, 5: 5 + num_classes], 1, keepdim=True)
        conf = image_pred[:, 4:5] * class_conf
        conf_mask = (conf.squeeze() >= conf_thre).squeeze()
        # Detections ordered as (x1, y1, x2, y2, obj_conf, class_conf, class_pred)
        tensor_cat_inp = [image_pred[:, :4], conf, class_pred.float()]
        if task == "human_pose":
            tensor_cat_inp.extend([image_pred[:, 6:]])
        detections = torch.cat(tensor_cat_inp, 1)

        detections = detections[conf_mask]
        if not detections.size(0):
            continue
        class_2d_offset = detections[:, -1:] * 4096  # class_2d_offser
        # (torchvision.ops.nms(detections[:, :4] + class_2d_offset, detections[:, 4], nms_thre) follows in the repo)

        if output[i] is None:
            output[i] = detections
        else:
            output[i] = torch.cat((output[i], detections))

    return output


class PostprocessExport(nn.Module):
    def __init__(self, conf_thre=0.7, nms_thre=0.45, num_classes=80, task=None):
        super(PostprocessExport, self).__init__()
        self.conf_thre = conf_thre
        self.nms_thre = nms_thre
        self.num_classes = num_classes
        self.task = task

    def forward(self, prediction):
        return postprocess_export(prediction, self.num_classes, conf_thre=self.conf_thre, nms_thre=self.nms_thre,
                                  task=self.task)


class YOLOXPose(nn.Module):
    def __init__(self, num_classes=1, num_kpts=17, ch=32):
        super().__init__()
        self.stem = nn.Conv2d(3, ch, 3, stride=8, padding=1)
        self.reg = nn.Conv2d(ch, 4, 1)
        self.obj = nn.Conv2d(ch, 1, 1)
        self.cls = nn.Conv2d(ch, num_classes, 1)
        self.kpt = nn.Conv2d(ch, num_kpts * 3, 1)
        self.post = PostprocessExport(conf_thre=0.1, nms_thre=0.45, num_classes=num_classes, task="human_pose")

    def forward(self, x):
        f = torch.relu(self.stem(x))
        out = torch.cat([self.reg(f), self.obj(f).sigmoid(), self.cls(f).sigmoid(), self.kpt(f)], 1)
        prediction = out.flatten(2).permute(0, 2, 1)
        return self.post(prediction)[0]


def make_model():
    return YOLOXPose()


def example_inputs():
    return (torch.randn(1, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 128),), (torch.randn(1, 3, 160, 96),)]


def probe_inputs():
    return other_inputs()
