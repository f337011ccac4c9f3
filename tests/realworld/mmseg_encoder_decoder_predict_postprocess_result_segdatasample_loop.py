"""mmsegmentation 1.x EncoderDecoder: `forward(inputs, mode='predict')` -> `predict`, which builds
`batch_img_metas = [dict(ori_shape=inputs.shape[2:], ...)] * inputs.shape[0]`, runs whole inference and then
`postprocess_result`, a Python loop over the batch that slices/resizes each image's logits and returns a list
of SegDataSample objects; mmdeploy's "Support mmseg:dev-1.x" PR rewrites `predict` to skip
`postprocess_result` and return the logits tensor.

Source: https://github.com/open-mmlab/mmdeploy/pull/790
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-44"


class PixelData:
    """Minimal stand-in for mmengine's PixelData."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)


class SegDataSample:
    """Minimal stand-in for mmseg's SegDataSample (an mmengine BaseDataElement)."""

    def __init__(self, metainfo=None):
        self.metainfo = dict(metainfo or {})

    def set_data(self, data):
        for k, v in data.items():
            setattr(self, k, v)


def resize(input, size=None, scale_factor=None, mode='nearest', align_corners=None, warning=True):
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class FCNHead(nn.Module):
    def __init__(self, in_channels=32, channels=16, num_classes=4):
        super().__init__()
        self.convs = nn.Sequential(nn.Conv2d(in_channels, channels, 3, padding=1), nn.BatchNorm2d(channels),
                                   nn.ReLU())
        self.conv_seg = nn.Conv2d(channels, num_classes, 1)
        self.align_corners = False
        self.threshold = 0.3

    def forward(self, inputs):
        return self.conv_seg(self.convs(inputs[-1]))

    def predict(self, inputs, batch_img_metas, test_cfg):
        seg_logits = self.forward(inputs)
        return resize(input=seg_logits, size=batch_img_metas[0]['img_shape'], mode='bilinear',
                      align_corners=self.align_corners)


class EncoderDecoder(nn.Module):

    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.decode_head = FCNHead()
        self.align_corners = self.decode_head.align_corners
        self.test_cfg = dict(mode='whole')

    def extract_feat(self, inputs):
        return [self.backbone(inputs)]

    def encode_decode(self, inputs, batch_img_metas):
        x = self.extract_feat(inputs)
        seg_logits = self.decode_head.predict(x, batch_img_metas, self.test_cfg)
        return seg_logits

    def whole_inference(self, inputs, batch_img_metas):
        seg_logits = self.encode_decode(inputs, batch_img_metas)
        return seg_logits

    def inference(self, inputs, batch_img_metas):
        assert self.test_cfg['mode'] in ['slide', 'whole']
        ori_shape = batch_img_metas[0]['ori_shape']
        assert all(_['ori_shape'] == ori_shape for _ in batch_img_metas)
        seg_logit = self.whole_inference(inputs, batch_img_metas)
        return seg_logit

    def predict(self, inputs, data_samples=None):
        if data_samples is not None:
            batch_img_metas = [
                data_sample.metainfo for data_sample in data_samples
            ]
        else:
            batch_img_metas = [
                dict(
                    ori_shape=inputs.shape[2:],
                    img_shape=inputs.shape[2:],
                    pad_shape=inputs.shape[2:],
                    padding_size=[0, 0, 0, 0])
            ] * inputs.shape[0]

        seg_logits = self.inference(inputs, batch_img_metas)

        return self.postprocess_result(seg_logits, data_samples)

    def postprocess_result(self, seg_logits, data_samples=None):
        batch_size, C, H, W = seg_logits.shape

        if data_samples is None:
            data_samples = [SegDataSample() for _ in range(batch_size)]
            only_prediction = True
        else:
            only_prediction = False

        for i in range(batch_size):
            if not only_prediction:
                img_meta = data_samples[i].metainfo
                padding_size = img_meta.get('padding_size', [0] * 4)
                padding_left, padding_right, padding_top, padding_bottom =\
                    padding_size
                i_seg_logits = seg_logits[i:i + 1, :,
                                          padding_top:H - padding_bottom,
                                          padding_left:W - padding_right]
                i_seg_logits = resize(
                    i_seg_logits,
                    size=img_meta['ori_shape'],
                    mode='bilinear',
                    align_corners=self.align_corners,
                    warning=False).squeeze(0)
            else:
                i_seg_logits = seg_logits[i]

            if C > 1:
                i_seg_pred = i_seg_logits.argmax(dim=0, keepdim=True)
            else:
                i_seg_logits = i_seg_logits.sigmoid()
                i_seg_pred = (i_seg_logits >
                              self.decode_head.threshold).to(i_seg_logits)
            data_samples[i].set_data({
                'seg_logits':
                PixelData(**{'data': i_seg_logits}),
                'pred_sem_seg':
                PixelData(**{'data': i_seg_pred})
            })

        return data_samples

    def forward(self, inputs, data_samples=None, mode='predict'):
        if mode == 'predict':
            return self.predict(inputs, data_samples)
        raise RuntimeError(f'Invalid mode "{mode}". Only supports predict mode')


def make_model():
    return EncoderDecoder().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 128),), (torch.randn(3, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
