"""MMOCR SAR text recognizer, ParallelSARDecoder._2d_attention: for every image of the batch it masks the attention
map beyond `valid_width = min(w, math.ceil(w * valid_ratio))` with `attn_mask[i, :, :, valid_width:, :] = 1`, where
`w` is the width of the feature map; exporting SAR to ONNX needed a rewrite that replaces math.ceil / min with
torch.ceil and the `[valid_width:]` slice with `narrow`, since the Python size math on `w` is frozen into the graph.

Source: https://github.com/open-mmlab/mmdeploy/pull/134
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"feat": {0: "batch", 3: "width"}, "out_enc": {0: "batch"}}
BLIND = "domains-43"


class ParallelSARDecoder(nn.Module):

    def __init__(self, num_classes=37, d_model=64, d_enc=64, d_k=16, max_seq_len=6, mask=True,
                 start_idx=0, padding_idx=36, pred_concat=True):
        super().__init__()
        self.num_classes = num_classes
        self.start_idx = start_idx
        self.max_seq_len = max_seq_len
        self.mask = mask
        self.pred_concat = pred_concat
        self.train_mode = False

        encoder_rnn_out_size = d_enc
        decoder_rnn_out_size = encoder_rnn_out_size
        self.conv1x1_1 = nn.Linear(decoder_rnn_out_size, d_k)
        self.conv3x3_1 = nn.Conv2d(d_model, d_k, kernel_size=3, stride=1, padding=1)
        self.conv1x1_2 = nn.Linear(d_k, 1)
        self.rnn_decoder = nn.LSTM(input_size=encoder_rnn_out_size, hidden_size=encoder_rnn_out_size,
                                   num_layers=2, batch_first=True)
        self.embedding = nn.Embedding(self.num_classes, encoder_rnn_out_size, padding_idx=padding_idx)
        self.pred_dropout = nn.Dropout(0.0)
        fc_in_channel = decoder_rnn_out_size + d_model + encoder_rnn_out_size
        self.prediction = nn.Linear(fc_in_channel, num_classes - 1)

    def _2d_attention(self, decoder_input, feat, holistic_feat, valid_ratios=None):
        y = self.rnn_decoder(decoder_input)[0]
        attn_query = self.conv1x1_1(y)  # bsz * (seq_len + 1) * attn_size
        bsz, seq_len, attn_size = attn_query.size()
        attn_query = attn_query.view(bsz, seq_len, attn_size, 1, 1)
        attn_key = self.conv3x3_1(feat)
        attn_key = attn_key.unsqueeze(1)
        attn_weight = torch.tanh(torch.add(attn_key, attn_query, alpha=1))
        attn_weight = attn_weight.permute(0, 1, 3, 4, 2).contiguous()
        attn_weight = self.conv1x1_2(attn_weight)
        bsz, T, h, w, c = attn_weight.size()
        assert c == 1

        if valid_ratios is not None:
            # cal mask of attention weight
            attn_mask = torch.zeros_like(attn_weight)
            for i, valid_ratio in enumerate(valid_ratios):
                valid_width = min(w, math.ceil(w * valid_ratio))
                attn_mask[i, :, :, valid_width:, :] = 1
            attn_weight = attn_weight.masked_fill(attn_mask.bool(), float('-inf'))

        attn_weight = attn_weight.view(bsz, T, -1)
        attn_weight = F.softmax(attn_weight, dim=-1)
        attn_weight = attn_weight.view(bsz, T, h, w, c).permute(0, 1, 4, 2, 3).contiguous()
        attn_feat = torch.sum(torch.mul(feat.unsqueeze(1), attn_weight), (3, 4), keepdim=False)

        if self.pred_concat:
            hf_c = holistic_feat.size(-1)
            holistic_feat = holistic_feat.expand(bsz, seq_len, hf_c)
            y = self.prediction(torch.cat((y, attn_feat, holistic_feat), 2))
        else:
            y = self.prediction(attn_feat)
        if self.train_mode:
            y = self.pred_dropout(y)
        return y

    def forward_test(self, feat, out_enc, img_metas):
        if img_metas is not None:
            assert len(img_metas) == feat.size(0)

        valid_ratios = None
        if img_metas is not None:
            valid_ratios = [img_meta.get('valid_ratio', 1.0) for img_meta in img_metas] if self.mask else None

        seq_len = self.max_seq_len
        bsz = feat.size(0)
        start_token = torch.full((bsz, ), self.start_idx, device=feat.device, dtype=torch.long)
        start_token = self.embedding(start_token)
        start_token = start_token.unsqueeze(1).expand(-1, seq_len, -1)
        out_enc = out_enc.unsqueeze(1)
        decoder_input = torch.cat((out_enc, start_token), dim=1)

        outputs = []
        for i in range(1, seq_len + 1):
            decoder_output = self._2d_attention(decoder_input, feat, out_enc, valid_ratios=valid_ratios)
            char_output = decoder_output[:, i, :]  # bsz * num_classes
            char_output = F.softmax(char_output, -1)
            outputs.append(char_output)
            _, max_idx = torch.max(char_output, dim=1, keepdim=False)
            char_embedding = self.embedding(max_idx)  # bsz * emb_dim
            if i < seq_len:
                decoder_input[:, i + 1, :] = char_embedding

        outputs = torch.stack(outputs, 1)  # bsz * seq_len * num_classes
        return outputs


class SARDecoderExport(nn.Module):
    """Export path: the test pipeline's img_metas carry valid_ratio (ResizeOCR, keep_aspect_ratio=False -> 1.0)."""

    def __init__(self):
        super().__init__()
        self.decoder = ParallelSARDecoder()

    def forward(self, feat, out_enc):
        img_metas = [dict(valid_ratio=1.0) for _ in range(feat.size(0))]
        return self.decoder.forward_test(feat, out_enc, img_metas)


def make_model():
    return SARDecoderExport().eval()


def example_inputs():
    return (torch.randn(2, 64, 4, 24), torch.randn(2, 64))


def other_inputs():
    return [(torch.randn(3, 64, 4, 40), torch.randn(3, 64)),
            (torch.randn(1, 64, 4, 13), torch.randn(1, 64))]


def probe_inputs():
    return other_inputs()
