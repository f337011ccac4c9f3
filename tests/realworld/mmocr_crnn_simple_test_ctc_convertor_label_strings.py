"""MMOCR CRNN text recognizer: EncodeDecodeRecognizer.simple_test runs the CTC label convertor on the decoder output
(`tensor2idx` walks every image and time step with `pred[t].item()`, `math.ceil(feat_len * valid_ratio)`,
`torch.LongTensor(select_idx)`, `.numpy().tolist()`, then `idx2str`) and returns a list of {'text', 'score'} dicts;
the ONNX/TensorRT export tool had to add an "early return to avoid post processing" under
`torch.onnx.is_in_onnx_export()` to export recognizers at all.

Source: https://github.com/open-mmlab/mmocr/pull/278
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"img": {0: "batch", 3: "width"}}
BLIND = "domains-43"


class BidirectionalLSTM(nn.Module):

    def __init__(self, nIn, nHidden, nOut):
        super().__init__()
        self.rnn = nn.LSTM(nIn, nHidden, bidirectional=True)
        self.embedding = nn.Linear(nHidden * 2, nOut)

    def forward(self, input):
        recurrent, _ = self.rnn(input)
        T, b, h = recurrent.size()
        t_rec = recurrent.view(T * b, h)
        output = self.embedding(t_rec)  # [T * b, nOut]
        output = output.view(T, b, -1)
        return output


class VeryDeepVgg(nn.Module):
    """Trimmed VeryDeepVgg: height 32 -> 1, width / 4."""

    def __init__(self, input_channels=1, out_channels=128):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(input_channels, 32, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(32, 64, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(64, 128, 3, 1, 1), nn.BatchNorm2d(128), nn.ReLU(True), nn.MaxPool2d((2, 2), (2, 1), (0, 1)),
            nn.Conv2d(128, out_channels, 3, 1, 1), nn.BatchNorm2d(out_channels), nn.ReLU(True),
            nn.MaxPool2d((2, 2), (2, 1), (0, 1)),
            nn.Conv2d(out_channels, out_channels, 2, 1, 0), nn.BatchNorm2d(out_channels), nn.ReLU(True))

    def forward(self, x):
        return self.cnn(x)


class CRNNDecoder(nn.Module):

    def __init__(self, in_channels=None, num_classes=None, rnn_flag=False):
        super().__init__()
        self.num_classes = num_classes
        self.rnn_flag = rnn_flag
        if rnn_flag:
            self.decoder = nn.Sequential(
                BidirectionalLSTM(in_channels, 64, 64),
                BidirectionalLSTM(64, 64, num_classes))
        else:
            self.decoder = nn.Conv2d(in_channels, num_classes, kernel_size=1, stride=1)

    def forward_train(self, feat, out_enc, targets_dict, img_metas):
        assert feat.size(2) == 1, 'feature height must be 1'
        if self.rnn_flag:
            x = feat.squeeze(2)  # [N, C, W]
            x = x.permute(2, 0, 1)  # [W, N, C]
            x = self.decoder(x)  # [W, N, C]
            outputs = x.permute(1, 0, 2).contiguous()
        else:
            x = self.decoder(feat)
            x = x.permute(0, 3, 1, 2).contiguous()
            n, w, c, h = x.size()
            outputs = x.view(n, w, c * h)
        return outputs

    def forward_test(self, feat, out_enc, img_metas):
        return self.forward_train(feat, out_enc, None, img_metas)

    def forward(self, feat, out_enc, targets_dict=None, img_metas=None, train_mode=True):
        if train_mode:
            return self.forward_train(feat, out_enc, targets_dict, img_metas)
        return self.forward_test(feat, out_enc, img_metas)


class CTCConvertor:
    DICT36 = tuple('0123456789abcdefghijklmnopqrstuvwxyz')

    def __init__(self, with_unknown=True):
        self.idx2char = list(self.DICT36)
        self.with_unknown = with_unknown
        self.update_dict()

    def update_dict(self):
        # CTC-blank
        blank_token = '<BLK>'
        self.blank_idx = 0
        self.idx2char.insert(0, blank_token)
        # unknown
        self.unknown_idx = None
        if self.with_unknown:
            self.idx2char.append('<UKN>')
            self.unknown_idx = len(self.idx2char) - 1
        self.char2idx = {}
        for idx, char in enumerate(self.idx2char):
            self.char2idx[char] = idx

    def num_classes(self):
        return len(self.idx2char)

    def tensor2idx(self, output, img_metas, topk=1, return_topk=False):
        assert len(img_metas) == output.size(0)
        assert isinstance(topk, int)
        assert topk >= 1

        valid_ratios = [img_meta.get('valid_ratio', 1.0) for img_meta in img_metas]

        batch_size = output.size(0)
        output = F.softmax(output, dim=2)
        output = output.cpu().detach()
        batch_topk_value, batch_topk_idx = output.topk(topk, dim=2)
        batch_max_idx = batch_topk_idx[:, :, 0]
        scores_topk, indexes_topk = [], []
        scores, indexes = [], []
        feat_len = output.size(1)
        for b in range(batch_size):
            valid_ratio = valid_ratios[b]
            decode_len = min(feat_len, math.ceil(feat_len * valid_ratio))
            pred = batch_max_idx[b, :]
            select_idx = []
            prev_idx = self.blank_idx
            for t in range(decode_len):
                tmp_value = pred[t].item()
                if tmp_value not in (prev_idx, self.blank_idx):
                    select_idx.append(t)
                prev_idx = tmp_value
            select_idx = torch.LongTensor(select_idx)
            topk_value = torch.index_select(batch_topk_value[b, :, :], 0, select_idx)  # valid_seqlen * topk
            topk_idx = torch.index_select(batch_topk_idx[b, :, :], 0, select_idx)
            topk_idx_list, topk_value_list = topk_idx.numpy().tolist(), topk_value.numpy().tolist()
            indexes_topk.append(topk_idx_list)
            scores_topk.append(topk_value_list)
            indexes.append([x[0] for x in topk_idx_list])
            scores.append([x[0] for x in topk_value_list])

        if return_topk:
            return indexes_topk, scores_topk

        return indexes, scores

    def idx2str(self, indexes):
        assert isinstance(indexes, list)
        strings = []
        for index in indexes:
            string = [self.idx2char[i] for i in index]
            strings.append(''.join(string))
        return strings


class CRNNNet(nn.Module):
    """EncodeDecodeRecognizer with VeryDeepVgg backbone, no encoder, CRNNDecoder and CTCConvertor."""

    def __init__(self):
        super().__init__()
        self.label_convertor = CTCConvertor()
        self.backbone = VeryDeepVgg(input_channels=1, out_channels=128)
        self.encoder = None
        self.decoder = CRNNDecoder(in_channels=128, num_classes=self.label_convertor.num_classes(), rnn_flag=True)

    def extract_feat(self, img):
        return self.backbone(img)

    def simple_test(self, img, img_metas, **kwargs):
        feat = self.extract_feat(img)

        out_enc = None
        if self.encoder is not None:
            out_enc = self.encoder(feat, img_metas)

        out_dec = self.decoder(feat, out_enc, None, img_metas, train_mode=False)

        label_indexes, label_scores = self.label_convertor.tensor2idx(out_dec, img_metas)
        label_strings = self.label_convertor.idx2str(label_indexes)

        # flatten batch results
        results = []
        for string, score in zip(label_strings, label_scores):
            results.append(dict(text=string, score=score))

        return results

    def forward(self, img):
        # what pytorch2onnx.py does: forward(img, img_metas=[...], return_loss=False) -> simple_test
        img_metas = [dict(valid_ratio=1.0, resize_shape=(img.size(2), img.size(3), 1)) for _ in range(img.size(0))]
        return self.simple_test(img, img_metas)


def make_model():
    return CRNNNet().eval()


def example_inputs():
    return (torch.randn(2, 1, 32, 100),)


def other_inputs():
    return [(torch.randn(3, 1, 32, 160),), (torch.randn(1, 1, 32, 64),)]


def probe_inputs():
    return other_inputs()
