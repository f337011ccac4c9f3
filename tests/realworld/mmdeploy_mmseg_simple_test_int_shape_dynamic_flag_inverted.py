"""MMDeploy's rewrite of mmseg `EncoderDecoder.simple_test`: the segmentation map is reshaped to 4D with
`shape = [int(_) for _ in shape]` taken when the deploy config IS dynamic (the condition was inverted), so the
exported ONNX model bakes the export-time N, H, W into the final view and fails/mis-shapes on other image sizes
("fix dynamic shape bug in mmseg" flips it to `if not is_dynamic_shape(...)`).

Source: https://github.com/open-mmlab/mmdeploy/pull/57
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-33"


def is_dynamic_shape(deploy_cfg, input_name='input'):
    return bool(deploy_cfg.get('onnx_config', {}).get('dynamic_axes'))


def resize(input, size=None, scale_factor=None, mode='nearest', align_corners=None, warning=True):
    if warning:
        if size is not None and align_corners:
            input_h, input_w = tuple(int(x) for x in input.shape[2:])
            output_h, output_w = tuple(int(x) for x in size)
            if output_h > input_h or output_w > output_h:
                if ((output_h > 1 and output_w > 1 and input_h > 1 and input_w > 1)
                        and (output_h - 1) % (input_h - 1) and (output_w - 1) % (input_w - 1)):
                    warnings.warn('When align_corners=True, the output would more aligned if '
                                  'input size and out size are `x+1` and `out_size` is `nx+1`')
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class EncoderDecoder(nn.Module):
    def __init__(self, num_classes=6, deploy_cfg=None):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.conv_seg = nn.Conv2d(32, num_classes, 1)
        self.align_corners = False
        self.cfg = deploy_cfg

    def extract_feat(self, img):
        return self.backbone(img)

    def _decode_head_forward_test(self, x, img_metas):
        return self.conv_seg(x)

    def forward(self, img, img_metas=None, **kwargs):
        # mmdeploy base_segmentor__forward
        if img_metas is None:
            img_metas = {}
        is_dynamic_flag = is_dynamic_shape(self.cfg)
        # get origin input shape as tensor to support onnx dynamic shape
        img_shape = img.shape[2:]
        if not is_dynamic_flag:
            img_shape = [int(val) for val in img_shape]
        img_metas['img_shape'] = img_shape
        return self.simple_test(img, img_metas, **kwargs)

    def simple_test(self, img, img_meta, **kwargs):
        # mmdeploy encoder_decoder__simple_test
        x = self.extract_feat(img)
        seg_logit = self._decode_head_forward_test(x, img_meta)
        seg_logit = resize(
            input=seg_logit,
            size=img_meta['img_shape'],
            mode='bilinear',
            align_corners=self.align_corners)
        seg_logit = F.softmax(seg_logit, dim=1)
        seg_pred = seg_logit.argmax(dim=1)
        # our inference backend only support 4D output
        shape = seg_pred.shape
        if is_dynamic_shape(self.cfg):
            shape = [int(_) for _ in shape]
        seg_pred = seg_pred.view(shape[0], 1, shape[1], shape[2])
        return seg_pred


def make_model():
    deploy_cfg = dict(onnx_config=dict(
        input_names=['input'], output_names=['output'],
        dynamic_axes={'input': {0: 'batch', 2: 'height', 3: 'width'},
                      'output': {0: 'batch', 2: 'height', 3: 'width'}}))
    return EncoderDecoder(deploy_cfg=deploy_cfg).eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 48, 64),), (torch.randn(3, 3, 96, 80),)]


def probe_inputs():
    return other_inputs()
