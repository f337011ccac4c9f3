"""docTR CRNN text recognizer: before the ONNX-export PR, `forward` always returns a dict whose "preds" entry is
the CTC post-processor's output, a list of `(word, confidence)` tuples built with `seq.tolist()`,
`itertools.groupby` and a string join over the vocabulary. Such an output cannot be exported, so the PR adds an
`exportable` flag that returns only the logits. (VGG feature extractor reduced to a few convs.)

Source: https://github.com/mindee/doctr/pull/980
"""
from itertools import groupby
from typing import Any, Dict, List, Optional, Tuple

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 3: "width"}}
BLIND = "domains-46"

VOCAB = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def decode_sequence(input_seq, mapping: str) -> str:
    return ''.join(map(mapping.__getitem__, input_seq))


class CTCPostProcessor:
    def __init__(self, vocab: str) -> None:
        self.vocab = vocab

    @staticmethod
    def ctc_best_path(logits: torch.Tensor, vocab: str = VOCAB, blank: int = 0) -> List[Tuple[str, float]]:
        # Gather the most confident characters, and assign the smallest conf among those to the sequence prob
        probs = F.softmax(logits, dim=-1).max(dim=-1).values.min(dim=1).values

        # collapse best path (using itertools.groupby), map to chars, join char list to string
        words = [
            decode_sequence([k for k, _ in groupby(seq.tolist()) if k != blank], vocab)
            for seq in torch.argmax(logits, dim=-1)
        ]

        return list(zip(words, probs.tolist()))

    def __call__(self, logits: torch.Tensor) -> List[Tuple[str, float]]:
        # Decode CTC
        return self.ctc_best_path(logits=logits, vocab=self.vocab, blank=len(self.vocab))


class CRNN(nn.Module):
    def __init__(self, vocab: str = VOCAB, rnn_units: int = 32, input_shape: Tuple[int, int, int] = (3, 32, 128)):
        super().__init__()
        self.vocab = vocab
        self.max_length = 32
        self.feat_extractor = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d((4, 1)),
        )
        # Resolve the input_size of the LSTM
        self.feat_extractor.eval()
        with torch.no_grad():
            out_shape = self.feat_extractor(torch.zeros((1, *input_shape))).shape
        lstm_in = out_shape[1] * out_shape[2]
        self.decoder = nn.LSTM(
            input_size=lstm_in, hidden_size=rnn_units, batch_first=True, num_layers=2, bidirectional=True,
        )
        # features units = 2 * rnn_units because bidirectional layers
        self.linear = nn.Linear(in_features=2 * rnn_units, out_features=len(vocab) + 1)
        self.postprocessor = CTCPostProcessor(vocab=vocab)

    def forward(
        self,
        x: torch.Tensor,
        target: Optional[List[str]] = None,
        return_model_output: bool = False,
        return_preds: bool = False,
    ) -> Dict[str, Any]:

        if self.training and target is None:
            raise ValueError('Need to provide labels during training')

        features = self.feat_extractor(x)
        # B x C x H x W --> B x C*H x W --> B x W x C*H
        c, h, w = features.shape[1], features.shape[2], features.shape[3]
        features_seq = torch.reshape(features, shape=(-1, h * c, w))
        features_seq = torch.transpose(features_seq, 1, 2)
        logits, _ = self.decoder(features_seq)
        logits = self.linear(logits)

        out: Dict[str, Any] = {}
        if return_model_output:
            out["out_map"] = logits

        if target is None or return_preds:
            # Post-process boxes
            out["preds"] = self.postprocessor(logits)

        return out


def make_model():
    return CRNN().eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 128),)


def other_inputs():
    return [(torch.rand(3, 3, 32, 96),), (torch.rand(1, 3, 32, 160),)]


def probe_inputs():
    return other_inputs()
