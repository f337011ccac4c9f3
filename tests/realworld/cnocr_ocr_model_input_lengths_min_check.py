"""CnOCR text recognizer (`OcrModel.forward`, CTC head): after the encoder it rescales the per-image widths
with `torch.div(input_lengths, compress_ratio, rounding_mode='floor')` and checks
`if input_lengths.min() < 1: logger.error(...)`, a Python branch on a tensor value in the exported forward
(the `cnocr export-onnx` command exports `(x, input_lengths) -> (logits, output_lengths)` with dynamic batch
and width); the commit "try to be more nice to ONNX" rewrites that check.

Source: https://github.com/breezedeus/CnOCR/commit/f8e1dfb085c227a14fff740f1c7862c5901422d3
"""
import logging
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Union

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 3: "width"}, "input_lengths": {0: "batch"}}
BLIND = "domains-34"

logger = logging.getLogger(__name__)


class TinyDenseNetLite(nn.Module):
    """Stand-in for the DenseNetLite encoder: height 32 -> 2, width / 4 (compress_ratio = 4)."""

    compress_ratio = 4

    def __init__(self, ch=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, ch, 3, stride=(2, 2), padding=1), nn.BatchNorm2d(ch), nn.ReLU(),
            nn.Conv2d(ch, ch, 3, stride=(2, 2), padding=1), nn.BatchNorm2d(ch), nn.ReLU(),
            nn.Conv2d(ch, ch, 3, stride=(4, 1), padding=1), nn.BatchNorm2d(ch), nn.ReLU(),
        )

    def forward(self, x):
        return self.features(x)


class OcrModel(nn.Module):
    def __init__(self, encoder, decoder, decoder_out_length, vocab):
        super().__init__()
        self.vocab = vocab
        self.letter2id = {letter: idx for idx, letter in enumerate(self.vocab)}
        self.encoder = encoder
        self.decoder = decoder
        self.linear = nn.Linear(decoder_out_length, out_features=len(vocab) + 1)
        self.postprocessor = None  # export-onnx sets it to None

    def forward(
        self,
        x: torch.Tensor,
        input_lengths: torch.Tensor,
        target: Optional[List[str]] = None,
        candidates: Optional[Union[str, List[str]]] = None,
        return_logits: bool = True,
        return_preds: bool = False,
    ) -> Dict[str, Any]:
        features = self.encoder(x)
        input_lengths = torch.div(
            input_lengths, self.encoder.compress_ratio, rounding_mode='floor'
        )
        if input_lengths.min() < 1:
            logger.error(f'input_lengths min: {input_lengths.min()}, {input_lengths=}')
        # B x C x H x W --> B x C*H x W --> B x W x C*H
        c, h, w = features.shape[1], features.shape[2], features.shape[3]
        features_seq = torch.reshape(features, shape=(-1, h * c, w))
        features_seq = torch.transpose(features_seq, 1, 2)  # B x W x C*H

        logits = self._decode(features_seq, input_lengths)
        logits = self.linear(logits)

        out: OrderedDict[str, Any] = {}
        if return_logits:
            out["logits"] = logits
        out['output_lengths'] = input_lengths
        if target is None or return_preds:
            if self.postprocessor is not None:
                out["preds"] = self.postprocessor(logits, input_lengths)
        out['target'] = target
        return dict(out)

    def _decode(self, features_seq, input_lengths):
        if not isinstance(self.decoder, (nn.LSTM, nn.GRU)):
            return self.decoder(features_seq)
        raise NotImplementedError


class ExportRecognizer(nn.Module):
    """What `export-onnx` exports: output names ['logits', 'output_lengths']."""

    def __init__(self):
        super().__init__()
        vocab = [chr(ord('a') + i) for i in range(20)]
        decoder = nn.Sequential(nn.Dropout(p=0.1), nn.Linear(2 * 16, 64), nn.Dropout(p=0.1), nn.Tanh())
        self.model = OcrModel(TinyDenseNetLite(), decoder, 64, vocab)

    def forward(self, x, input_lengths):
        out = self.model(x, input_lengths)
        return out['logits'], out['output_lengths']


def make_model():
    return ExportRecognizer().eval()


def example_inputs():
    return (torch.randn(2, 1, 32, 280), torch.tensor([280, 200]))


def other_inputs():
    return [(torch.randn(3, 1, 32, 160), torch.tensor([160, 120, 2])),
            (torch.randn(1, 1, 32, 96), torch.tensor([96]))]


def probe_inputs():
    return other_inputs()
