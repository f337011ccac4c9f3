"""MMSegmentation EncoderDecoder exported with test_cfg mode='slide' (UNet, CHASE_DB1 128x128 crops,
stride 85): `slide_inference` computes `h_grids`/`w_grids` from the image size and loops over the
crops in Python, so the export warns "Converting a tensor to a Python boolean might cause the trace to be
incorrect" and the graph holds one duplicated sub-network per crop of the export size (mode='whole' is fine).

Source: https://github.com/open-mmlab/mmsegmentation/issues/903
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-6"


def resize(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class EncoderDecoder(nn.Module):
    def __init__(self, num_classes=2):
        super().__init__()
        self.num_classes = num_classes
        self.align_corners = False
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, 1, 1), nn.ReLU())
        self.decode_head = nn.Conv2d(16, num_classes, 1)
        self.test_cfg = dict(mode='slide', crop_size=(128, 128), stride=(85, 85))

    def encode_decode(self, img, img_metas):
        x = self.backbone(img)
        out = self.decode_head(x)
        out = resize(input=out, size=img.shape[2:], mode='bilinear', align_corners=self.align_corners)
        return out

    def slide_inference(self, img, img_meta, rescale):
        h_stride, w_stride = self.test_cfg['stride']
        h_crop, w_crop = self.test_cfg['crop_size']
        batch_size, _, h_img, w_img = img.size()
        num_classes = self.num_classes
        h_grids = max(h_img - h_crop + h_stride - 1, 0) // h_stride + 1
        w_grids = max(w_img - w_crop + w_stride - 1, 0) // w_stride + 1
        preds = img.new_zeros((batch_size, num_classes, h_img, w_img))
        count_mat = img.new_zeros((batch_size, 1, h_img, w_img))
        for h_idx in range(h_grids):
            for w_idx in range(w_grids):
                y1 = h_idx * h_stride
                x1 = w_idx * w_stride
                y2 = min(y1 + h_crop, h_img)
                x2 = min(x1 + w_crop, w_img)
                y1 = max(y2 - h_crop, 0)
                x1 = max(x2 - w_crop, 0)
                crop_img = img[:, :, y1:y2, x1:x2]
                crop_seg_logit = self.encode_decode(crop_img, img_meta)
                preds += F.pad(crop_seg_logit,
                               (int(x1), int(preds.shape[3] - x2), int(y1),
                                int(preds.shape[2] - y2)))

                count_mat[:, :, y1:y2, x1:x2] += 1
        assert (count_mat == 0).sum() == 0
        if torch.onnx.is_in_onnx_export():
            # cast count_mat to constant while exporting to ONNX
            count_mat = torch.from_numpy(
                count_mat.cpu().detach().numpy()).to(device=img.device)
        preds = preds / count_mat
        return preds

    def inference(self, img, img_meta, rescale):
        seg_logit = self.slide_inference(img, img_meta, rescale)
        output = F.softmax(seg_logit, dim=1)
        return output

    def forward(self, img):
        return self.inference(img, None, False)


def make_model():
    return EncoderDecoder().eval()


def example_inputs():
    return (torch.randn(1, 3, 160, 160),)


def other_inputs():
    return [(torch.randn(1, 3, 256, 200),), (torch.randn(1, 3, 128, 300),)]


def probe_inputs():
    return other_inputs()
