"""MMSegmentation EncoderDecoder sliding-window test mode (`test_cfg=dict(mode='slide', crop_size, stride)`):
the number of tiles is computed from the image size (`h_grids = max(h_img - h_crop + h_stride - 1, 0) // h_stride + 1`),
each crop is segmented, padded back into the full map with `F.pad(..., int(x1), int(preds.shape[3] - x2), ...)`,
and the overlap counter is cast to a NumPy constant "while exporting to ONNX"; the PR makes slide inference
exportable at the export size only (tile loop and count_mat are frozen to it).

Source: https://github.com/open-mmlab/mmsegmentation/pull/90
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-31"


def resize(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class FCNHead(nn.Module):
    def __init__(self, in_channels=16, channels=16, num_classes=5):
        super().__init__()
        self.convs = nn.Sequential(nn.Conv2d(in_channels, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU())
        self.conv_seg = nn.Conv2d(channels, num_classes, 1)

    def forward(self, x):
        return self.conv_seg(self.convs(x))


class EncoderDecoder(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.num_classes = num_classes
        self.align_corners = False
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.decode_head = FCNHead(16, 16, num_classes)
        self.test_cfg = dict(mode='slide', crop_size=(32, 32), stride=(24, 24))

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

    def forward(self, img):
        seg_logit = self.slide_inference(img, None, rescale=False)
        return F.softmax(seg_logit, dim=1)


def make_model():
    return EncoderDecoder().eval()


def example_inputs():
    return (torch.randn(1, 3, 56, 72),)


def other_inputs():
    return [(torch.randn(2, 3, 80, 48),), (torch.randn(1, 3, 40, 100),)]


def probe_inputs():
    return other_inputs()
