"""SATRN text recognizer (MMOCR, deployed with MMDeploy): the NRTR/SATRN decoder builds the source padding mask
in a Python loop over the per-image `valid_ratios` (`valid_width = min(T, math.ceil(T * valid_ratio))`,
`mask[i, :valid_width] = 1`); the export warns on that line and the ONNX model gives wrong results when the
batch size at inference is larger than 1 (only the export batch's rows of the mask are filled).

Source: https://github.com/open-mmlab/mmdeploy/issues/2111
"""
import math

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"img": {0: "batch"}}
BLIND = "domains-10"


class ShallowCNN(nn.Module):
    def __init__(self, d_model=32):
        super().__init__()
        self.conv1 = nn.Conv2d(3, d_model // 2, 3, 1, 1)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(d_model // 2, d_model, 3, 1, 1)

    def forward(self, x):
        return self.pool(torch.relu(self.conv2(self.pool(torch.relu(self.conv1(x))))))


class NRTRDecoder(nn.Module):
    def __init__(self, d_model=32, num_classes=20, max_seq_len=6):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.query = nn.Parameter(torch.randn(max_seq_len, d_model) * 0.1)
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.classifier = nn.Linear(d_model, num_classes)

    def _get_source_mask(self, src_seq, valid_ratios):
        N, T, _ = src_seq.size()
        mask = None
        if len(valid_ratios) > 0:
            mask = src_seq.new_zeros((N, T), device=src_seq.device)
            for i, valid_ratio in enumerate(valid_ratios):
                valid_width = min(T, math.ceil(T * valid_ratio))
                mask[i, :valid_width] = 1
        return mask

    def forward_test(self, out_enc, data_samples):
        valid_ratios = []
        for data_sample in data_samples:
            valid_ratios.append(data_sample.get('valid_ratio'))
        src_mask = self._get_source_mask(out_enc, valid_ratios) if data_samples is not None else None
        q = self.q_proj(self.query)[None].expand(out_enc.size(0), -1, -1)
        attn = torch.matmul(q, self.k_proj(out_enc).transpose(1, 2)) / math.sqrt(q.size(-1))
        attn = attn.masked_fill(src_mask[:, None, :] == 0, float('-inf'))
        out = torch.matmul(attn.softmax(-1), self.v_proj(out_enc))
        return self.classifier(out).softmax(-1)


class SATRN(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = ShallowCNN()
        self.decoder = NRTRDecoder()

    def forward(self, img):
        # one TextRecogDataSample per image; full-width crops have valid_ratio 1.0
        data_samples = [dict(valid_ratio=1.0) for _ in range(img.size(0))]
        feat = self.backbone(img)
        n, c, h, w = feat.size()
        out_enc = feat.view(n, c, h * w).permute(0, 2, 1).contiguous()
        return self.decoder.forward_test(out_enc, data_samples)


def make_model():
    return SATRN().eval()


def example_inputs():
    return (torch.randn(2, 3, 16, 32),)


def other_inputs():
    return [(torch.randn(4, 3, 16, 32),), (torch.randn(3, 3, 16, 32),)]


def probe_inputs():
    return other_inputs()
