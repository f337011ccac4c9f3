"""MediaPipePyTorch fork (BlazePalm hand/palm detector): to get an end-to-end ONNX model the author
moved the post-processing into `forward` -- score-threshold mask per image (`_tensors_to_detections`),
the BlazeFace weighted NMS (`argsort`, `while len(remaining) > 0`, `if len(overlapping) > 1`,
`torch.stack(faces) if len(faces) > 0 else ...`) and the ROI rotation -- and the export got stuck there
("tried to make PalmDetection ONNX, got stuck on argsort"); the later face detector export drops the
NMS for a single `torch.max` detection with batch 1 assumed.

Source: https://github.com/K4S4B4/MediaPipePyTorch/commit/8eca03cb9e4d60c3259ee2e00ad390fb9c8975d6
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-49"


def intersect(box_a, box_b):
    A = box_a.size(0)
    B = box_b.size(0)
    max_xy = torch.min(box_a[:, 2:].unsqueeze(1).expand(A, B, 2),
                       box_b[:, 2:].unsqueeze(0).expand(A, B, 2))
    min_xy = torch.max(box_a[:, :2].unsqueeze(1).expand(A, B, 2),
                       box_b[:, :2].unsqueeze(0).expand(A, B, 2))
    inter = torch.clamp((max_xy - min_xy), min=0)
    return inter[:, :, 0] * inter[:, :, 1]


def jaccard(box_a, box_b):
    inter = intersect(box_a, box_b)
    area_a = ((box_a[:, 2]-box_a[:, 0]) *
              (box_a[:, 3]-box_a[:, 1])).unsqueeze(1).expand_as(inter)
    area_b = ((box_b[:, 2]-box_b[:, 0]) *
              (box_b[:, 3]-box_b[:, 1])).unsqueeze(0).expand_as(inter)
    union = area_a + area_b - inter
    return inter / union


def overlap_similarity(box, other_boxes):
    return jaccard(box.unsqueeze(0), other_boxes).squeeze(0)


class BlazePalm(nn.Module):
    """Stand-in backbone (three levels at strides 8/16/32 of a 256x256 image, 2944 anchors)."""

    def __init__(self, ch=16):
        super().__init__()
        self.num_anchors = 2944
        self.num_coords = 18
        self.score_clipping_thresh = 100.0
        self.x_scale = self.y_scale = self.h_scale = self.w_scale = 256.0
        self.min_score_thresh = 0.75
        self.min_suppression_threshold = 0.3
        self.num_keypoints = 7
        self.kp1, self.kp2 = 0, 2
        self.theta0 = np.pi/2
        self.dscale = 2.6
        self.dy = -0.5

        self.backbone1 = nn.Sequential(
            nn.Conv2d(3, ch, 3, 2, 0), nn.ReLU(True), nn.Conv2d(ch, ch, 3, 2, 1), nn.ReLU(True),
            nn.Conv2d(ch, ch, 3, 2, 1), nn.ReLU(True))
        self.backbone2 = nn.Sequential(nn.Conv2d(ch, ch, 3, 2, 1), nn.ReLU(True))
        self.backbone3 = nn.Sequential(nn.Conv2d(ch, ch, 3, 2, 1), nn.ReLU(True))
        self.classifier_32 = nn.Conv2d(ch, 2, 1, bias=True)
        self.classifier_16 = nn.Conv2d(ch, 2, 1, bias=True)
        self.classifier_8 = nn.Conv2d(ch, 6, 1, bias=True)
        self.regressor_32 = nn.Conv2d(ch, 36, 1, bias=True)
        self.regressor_16 = nn.Conv2d(ch, 36, 1, bias=True)
        self.regressor_8 = nn.Conv2d(ch, 108, 1, bias=True)
        with torch.no_grad():  # stand-in for trained weights: confident anchors, palm-sized boxes
            for c in (self.classifier_32, self.classifier_16, self.classifier_8):
                c.weight.mul_(30.0)
                c.bias.zero_()
            for r in (self.regressor_32, self.regressor_16, self.regressor_8):
                r.bias.view(-1, 18)[:, 2:4] = 100.0
        anchors = []
        for size, per in ((32, 2), (16, 2), (8, 6)):
            for y in range(size):
                for x in range(size):
                    anchors += [[(x + 0.5) / size, (y + 0.5) / size, 1.0, 1.0]] * per
        self.anchors = torch.tensor(anchors, dtype=torch.float32)  # load_anchors("anchors_palm.npy")

    def _decode_boxes(self, raw_boxes, anchors):
        boxes = torch.zeros_like(raw_boxes)
        x_center = raw_boxes[..., 0] / self.x_scale * anchors[:, 2] + anchors[:, 0]
        y_center = raw_boxes[..., 1] / self.y_scale * anchors[:, 3] + anchors[:, 1]
        w = raw_boxes[..., 2] / self.w_scale * anchors[:, 2]
        h = raw_boxes[..., 3] / self.h_scale * anchors[:, 3]
        boxes[..., 0] = y_center - h / 2.
        boxes[..., 1] = x_center - w / 2.
        boxes[..., 2] = y_center + h / 2.
        boxes[..., 3] = x_center + w / 2.
        for k in range(self.num_keypoints):
            offset = 4 + k*2
            boxes[..., offset] = raw_boxes[..., offset] / self.x_scale * anchors[:, 2] + anchors[:, 0]
            boxes[..., offset + 1] = raw_boxes[..., offset + 1] / self.y_scale * anchors[:, 3] + anchors[:, 1]
        return boxes

    def _tensors_to_detections(self, raw_box_tensor, raw_score_tensor, anchors):
        assert raw_box_tensor.shape[1] == self.num_anchors
        detection_boxes = self._decode_boxes(raw_box_tensor, anchors)
        thresh = self.score_clipping_thresh
        raw_score_tensor = raw_score_tensor.clamp(-thresh, thresh)
        detection_scores = raw_score_tensor.sigmoid().squeeze(dim=-1)
        mask = detection_scores >= self.min_score_thresh
        output_detections = []
        for i in range(raw_box_tensor.shape[0]):
            boxes = detection_boxes[i, mask[i]]
            scores = detection_scores[i, mask[i]].unsqueeze(dim=-1)
            output_detections.append(torch.cat((boxes, scores), dim=-1))
        return output_detections

    def _weighted_non_max_suppression(self, detections):
        if len(detections) == 0: return []
        output_detections = []
        remaining = torch.argsort(detections[:, self.num_coords], descending=True)
        while len(remaining) > 0:
            detection = detections[remaining[0]]
            first_box = detection[:4]
            other_boxes = detections[remaining, :4]
            ious = overlap_similarity(first_box, other_boxes)
            mask = ious > self.min_suppression_threshold
            overlapping = remaining[mask]
            remaining = remaining[~mask]
            weighted_detection = detection.clone()
            if len(overlapping) > 1:
                coordinates = detections[overlapping, :self.num_coords]
                scores = detections[overlapping, self.num_coords:self.num_coords+1]
                total_score = scores.sum()
                weighted = (coordinates * scores).sum(dim=0) / total_score
                weighted_detection[:self.num_coords] = weighted
                weighted_detection[self.num_coords] = total_score / len(overlapping)
            output_detections.append(weighted_detection)
        return output_detections

    def detection2roi(self, detection):
        xc = (detection[:,1] + detection[:,3]) / 2
        yc = (detection[:,0] + detection[:,2]) / 2
        scale = (detection[:,3] - detection[:,1])
        yc += self.dy * scale
        scale *= self.dscale
        x0 = detection[:,4+2*self.kp1]
        y0 = detection[:,4+2*self.kp1+1]
        x1 = detection[:,4+2*self.kp2]
        y1 = detection[:,4+2*self.kp2+1]
        theta = torch.atan2(y0-y1, x0-x1) - self.theta0
        return xc, yc, scale, theta

    def forward(self, x):
        x = x[:,:,:,[2, 1, 0]] # BRG to RGB
        x = x.permute(0,3,1,2).float() / 255.
        b = x.shape[0]
        x = F.pad(x, (0, 1, 0, 1), "constant", 0)
        x = self.backbone1(x)           # (b, c, 32, 32)
        y = self.backbone2(x)           # (b, c, 16, 16)
        z = self.backbone3(y)           # (b, c, 8, 8)

        c1 = self.classifier_8(z).permute(0, 2, 3, 1).reshape(b, -1, 1)
        c2 = self.classifier_16(y).permute(0, 2, 3, 1).reshape(b, -1, 1)
        c3 = self.classifier_32(x).permute(0, 2, 3, 1).reshape(b, -1, 1)
        c = torch.cat((c3, c2, c1), dim=1)  # (b, 2944, 1)
        r1 = self.regressor_8(z).permute(0, 2, 3, 1).reshape(b, -1, 18)
        r2 = self.regressor_16(y).permute(0, 2, 3, 1).reshape(b, -1, 18)
        r3 = self.regressor_32(x).permute(0, 2, 3, 1).reshape(b, -1, 18)
        r = torch.cat((r3, r2, r1), dim=1)  # (b, 2944, 18)

        # 3. Postprocess the raw predictions:
        detections = self._tensors_to_detections(r, c, self.anchors)

        # 4. Non-maximum suppression to remove overlapping detections:
        filtered_detections = []
        for i in range(len(detections)):
            faces = self._weighted_non_max_suppression(detections[i])
            faces = torch.stack(faces) if len(faces) > 0 else torch.zeros((0, self.num_coords+1))
            filtered_detections.append(faces)

        # denormalize
        detections = filtered_detections[0]
        detections[:, 0] = detections[:, 0] * 256
        detections[:, 1] = detections[:, 1] * 256
        detections[:, 2] = detections[:, 2] * 256
        detections[:, 3] = detections[:, 3] * 256
        detections[:, 4::2] = detections[:, 4::2] * 256
        detections[:, 5::2] = detections[:, 5::2] * 256

        # calc xc, yc, scale, theta
        xc, yc, scale, theta = self.detection2roi(detections)

        # find rotated bbox of the hand
        points = torch.tensor([[-1, -1, 1, 1],
                               [-1, 1, -1, 1]], device=scale.device).view(1,2,4)
        points = points * scale.view(-1,1,1)/2
        theta = theta.view(-1, 1, 1)
        R = torch.cat((
            torch.cat((torch.cos(theta), -torch.sin(theta)), 2),
            torch.cat((torch.sin(theta), torch.cos(theta)), 2),
            ), 1)
        center = torch.cat((xc.view(-1,1,1), yc.view(-1,1,1)), 1)
        points = R @ points + center
        return points


def make_model():
    return BlazePalm().eval()


def _image(b):
    return torch.randint(0, 256, (b, 256, 256, 3), dtype=torch.uint8)


def example_inputs():
    return (_image(2),)


def other_inputs():
    return [(_image(3),), (_image(1),)]


def probe_inputs():
    return other_inputs()
