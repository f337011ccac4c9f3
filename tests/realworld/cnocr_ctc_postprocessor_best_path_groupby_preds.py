"""CnOCR text recognizer with its CTC post-processor in the forward: with no target, `OcrModel.forward`
returns `out["preds"] = self.postprocessor(logits, input_lengths)`, where `ctc_best_path` masks the padded
steps with `gen_length_mask`, collapses each row of the argmax path with `itertools.groupby` over the tensor,
maps ids to characters and returns `list(zip(words, probs.tolist()))`; the `export-onnx` command that
exports `(x, input_lengths)` has to set `model.postprocessor = None  # 这个无法ONNX化` ("this cannot be made ONNX").

Source: https://github.com/breezedeus/CnOCR/commit/09fc5014d05f6cf7093b90dde52d6ea3665fe36e
"""
from itertools import groupby
from typing import Any, Dict, List, Optional, Tuple, Union

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "outputs"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 3: "width"}, "input_lengths": {0: "batch"}}
BLIND = "domains-34"


def gen_length_mask(lengths: torch.Tensor, mask_size: Union[Tuple, Any]):
    """ see how it is used """
    labels = torch.arange(mask_size[-1], device=lengths.device, dtype=torch.long)
    while True:
        if len(labels.shape) >= len(mask_size):
            break
        labels = labels.unsqueeze(0)
        lengths = lengths.unsqueeze(-1)
    mask = labels < lengths
    return ~mask


class CTCPostProcessor(object):
    def __init__(self, vocab: List[str],) -> None:
        self.vocab = vocab
        self._embedding = list(self.vocab) + ['<eos>']

    @staticmethod
    def ctc_best_path(
        logits: torch.Tensor,
        vocab: List[str],
        input_lengths: Optional[torch.Tensor] = None,
        blank: int = 0,
    ) -> List[Tuple[List[str], float]]:
        # compute softmax
        probs = F.softmax(logits.permute(0, 2, 1), dim=1)
        # get char indices along best path
        best_path = torch.argmax(probs, dim=1)  # [N, T]

        if input_lengths is not None:
            length_mask = gen_length_mask(input_lengths, probs.shape).to(
                device=probs.device
            )  # [N, 1, T]
            probs.masked_fill_(length_mask, 1.0)
            best_path.masked_fill_(length_mask.squeeze(1), blank)

        # define word proba as min proba of sequence
        probs, _ = torch.max(probs, dim=1)  # [N, T]
        probs, _ = torch.min(probs, dim=1)  # [N]

        words = []
        for sequence in best_path:
            # collapse best path (using itertools.groupby), map to chars, join char list to string
            collapsed = [vocab[k] for k, _ in groupby(sequence) if k != blank]
            words.append(collapsed)

        return list(zip(words, probs.tolist()))

    def __call__(self, logits: torch.Tensor, input_lengths: torch.Tensor = None):
        return self.ctc_best_path(
            logits=logits,
            vocab=self.vocab,
            input_lengths=input_lengths,
            blank=len(self.vocab),
        )


class TinyEncoder(nn.Module):
    """Stand-in for the DenseNetLite encoder: height 32 -> 2, width / 4 (compress_ratio = 4)."""

    compress_ratio = 4

    def __init__(self, ch=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, ch, 3, stride=(2, 2), padding=1), nn.ReLU(),
            nn.Conv2d(ch, ch, 3, stride=(2, 2), padding=1), nn.ReLU(),
            nn.Conv2d(ch, ch, 3, stride=(4, 1), padding=1), nn.ReLU(),
        )

    def forward(self, x):
        return self.features(x)


class OcrModel(nn.Module):
    def __init__(self, vocab=tuple("0123456789abcdefghij"), rnn_units=32):
        super().__init__()
        self.vocab = list(vocab)
        self.encoder = TinyEncoder()
        self.decoder = nn.Sequential(nn.Dropout(p=0.1), nn.Linear(32, rnn_units), nn.Dropout(p=0.1), nn.Tanh())
        self.linear = nn.Linear(rnn_units, out_features=len(self.vocab) + 1)
        self.postprocessor = CTCPostProcessor(vocab=self.vocab)

    def forward(
        self,
        x: torch.Tensor,
        input_lengths: torch.Tensor,
        target: Optional[List[str]] = None,
        candidates: Optional[Union[str, List[str]]] = None,
        return_logits: bool = False,
        return_preds: bool = False,
    ) -> Dict[str, Any]:
        features = self.encoder(x)
        input_lengths = input_lengths // self.encoder.compress_ratio
        # B x C x H x W --> B x C*H x W --> B x W x C*H
        c, h, w = features.shape[1], features.shape[2], features.shape[3]
        features_seq = torch.reshape(features, shape=(-1, h * c, w))
        features_seq = torch.transpose(features_seq, 1, 2)  # B x W x C*H

        logits = self.decoder(features_seq)
        logits = self.linear(logits)

        out: Dict[str, Any] = {}
        if return_logits:
            out["logits"] = logits

        if target is None or return_preds:
            # Post-process boxes
            out["preds"] = self.postprocessor(logits, input_lengths)

        return out


def make_model():
    return OcrModel().eval()


def example_inputs():
    return (torch.randn(2, 1, 32, 280), torch.tensor([280, 200]))


def other_inputs():
    return [(torch.randn(3, 1, 32, 160), torch.tensor([160, 120, 64])),
            (torch.randn(1, 1, 32, 96), torch.tensor([96]))]


def probe_inputs():
    return other_inputs()
