"""MMOCR SAR (Show, Attend and Read) text recognizer: SAREncoder pools the backbone feature over its full height
with `F.max_pool2d(feat, kernel_size=(h_feat, 1), ...)` where `h_feat = feat.size(2)`; exporting
sar_r31_parallel_decoder to ONNX fails with "Failed to export an ONNX attribute 'onnx::Gather', since it's not
constant, please try to make things (e.g., kernel size) static if possible".

Source: https://github.com/open-mmlab/mmocr/issues/317
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-14"


class SAREncoder(nn.Module):
    """mmocr/models/textrecog/encoders/sar_encoder.py (v0.2), img_metas=None path."""

    def __init__(self, enc_bi_rnn=False, enc_do_rnn=0.0, enc_gru=False, d_model=512, d_enc=512, mask=True):
        super().__init__()
        self.enc_bi_rnn = enc_bi_rnn
        self.enc_do_rnn = enc_do_rnn
        self.mask = mask

        # LSTM Encoder
        kwargs = dict(input_size=d_model, hidden_size=d_enc, num_layers=2, batch_first=True,
                      dropout=enc_do_rnn, bidirectional=enc_bi_rnn)
        if enc_gru:
            self.rnn_encoder = nn.GRU(**kwargs)
        else:
            self.rnn_encoder = nn.LSTM(**kwargs)

        # global feature transformation
        encoder_rnn_out_size = d_enc * (int(enc_bi_rnn) + 1)
        self.linear = nn.Linear(encoder_rnn_out_size, encoder_rnn_out_size)

    def forward(self, feat, img_metas=None):
        valid_ratios = None
        if img_metas is not None:
            valid_ratios = [img_meta.get('valid_ratio', 1.0) for img_meta in img_metas] if self.mask else None

        h_feat = feat.size(2)
        feat_v = F.max_pool2d(feat, kernel_size=(h_feat, 1), stride=1, padding=0)
        feat_v = feat_v.squeeze(2)  # bsz * C * W
        feat_v = feat_v.permute(0, 2, 1).contiguous()  # bsz * W * C

        holistic_feat = self.rnn_encoder(feat_v)[0]  # bsz * T * C

        valid_hf = holistic_feat[:, -1, :]  # bsz * C
        holistic_feat = self.linear(valid_hf)  # bsz * C
        return holistic_feat


class SARRecognizerEncode(nn.Module):
    def __init__(self, d_model=64):
        super().__init__()
        # stand-in for ResNet31OCR: overall stride 4 in height, 4 in width
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, d_model, 3, stride=2, padding=1), nn.BatchNorm2d(d_model), nn.ReLU(inplace=True),
        )
        self.encoder = SAREncoder(d_model=d_model, d_enc=d_model)

    def forward(self, img):
        feat = self.backbone(img)
        out_enc = self.encoder(feat)
        return feat, out_enc


def make_model():
    return SARRecognizerEncode().eval()


def example_inputs():
    return (torch.randn(2, 3, 48, 160),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 100),), (torch.randn(1, 3, 64, 256),)]


def probe_inputs():
    return other_inputs()
