"""icefall Zipformer+CTC blank-skip (pruned_transducer_stateless7_ctc_bs): `FrameReducer` drops frames
whose CTC blank posterior is high by looping over the batch, boolean-indexing each utterance,
`pad_sequence`-ing the survivors and building the lengths with `torch.tensor(lens_list)`; the ONNX
export PR had to rewrite it without the Python loop/list to export it.

Source: https://github.com/k2-fsa/icefall/pull/861
"""
import math
from typing import List, Tuple

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"features": {0: "batch", 1: "frames"}, "x_lens": {0: "batch"}}
BLIND = "domains-35"


def make_pad_mask(lengths: torch.Tensor, max_len: int = 0) -> torch.Tensor:
    assert lengths.ndim == 1, lengths.ndim
    max_len = max(max_len, lengths.max())
    n = lengths.size(0)

    expaned_lengths = torch.arange(max_len).expand(n, max_len).to(lengths)

    return expaned_lengths >= lengths.unsqueeze(1)


class FrameReducer(nn.Module):
    """The encoder output is first used to calculate
    the CTC posterior probability; then for each output frame,
    if its blank posterior is bigger than some thresholds,
    it will be simply discarded from the encoder output.
    """

    def __init__(
        self,
    ):
        super().__init__()

    def forward(
        self,
        x: torch.Tensor,
        x_lens: torch.Tensor,
        ctc_output: torch.Tensor,
        blank_id: int = 0,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        padding_mask = make_pad_mask(x_lens)
        non_blank_mask = (ctc_output[:, :, blank_id] < math.log(0.9)) * (~padding_mask)

        frames_list: List[torch.Tensor] = []
        lens_list: List[int] = []
        for i in range(x.shape[0]):
            frames = x[i][non_blank_mask[i]]
            frames_list.append(frames)
            lens_list.append(frames.shape[0])
        x_fr = pad_sequence(frames_list, batch_first=True)
        x_lens_fr = torch.tensor(lens_list).to(device=x.device)

        return x_fr, x_lens_fr


class CtcBlankSkipEncoder(nn.Module):
    """Encoder -> CTC head -> frame reducer -> joiner projection (the part exported to ONNX)."""

    def __init__(self, feat_dim=20, d_model=32, vocab_size=12):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(feat_dim, d_model), nn.ReLU(), nn.Linear(d_model, d_model))
        self.ctc_output = nn.Sequential(nn.Dropout(p=0.1), nn.Linear(d_model, vocab_size), nn.LogSoftmax(dim=-1))
        self.frame_reducer = FrameReducer()
        self.encoder_proj = nn.Linear(d_model, d_model)

    def forward(self, features, x_lens):
        encoder_out = self.encoder(features)
        ctc_output = self.ctc_output(encoder_out)
        encoder_out_fr, encoder_out_lens_fr = self.frame_reducer(encoder_out, x_lens, ctc_output)
        return self.encoder_proj(encoder_out_fr), encoder_out_lens_fr


def make_model():
    model = CtcBlankSkipEncoder()
    with torch.no_grad():
        # make the blank posterior high on roughly half of the frames
        model.ctc_output[1].bias[0] = 4.8
    return model


def _inputs(batch, frames):
    x_lens = torch.randint(frames // 2, frames + 1, (batch,), dtype=torch.int64)
    x_lens[0] = frames
    return (torch.randn(batch, frames, 20), x_lens)


def example_inputs():
    return _inputs(2, 40)


def other_inputs():
    return [_inputs(3, 57), _inputs(1, 23)]


def probe_inputs():
    return other_inputs()
