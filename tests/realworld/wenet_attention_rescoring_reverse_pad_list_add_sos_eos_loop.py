"""WeNet ASRModel.forward_attention_decoder (the attention-rescoring decoder exported by export_onnx_cpu.py):
the right-to-left hypotheses are built with `reverse_pad_list` (a Python loop over the hypotheses,
`torch.flip(y.int()[:i], [0])` sliced by each length, re-padded with `pad_sequence`) and `add_sos_eos`
(`y[y != ignore_id]` per row, `pad_list` with `max(...)` over the row sizes); "bugfix for export onnx_cpu"
replaces them because "`pad_sequence` is not supported by ONNX". (Bi-transformer decoder reduced to an
embedding, one cross-attention and the output layer per direction.)

Source: https://github.com/wenet-e2e/wenet/pull/1094
"""
from typing import List, Tuple

import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"hyps": {0: "num_hyps", 1: "hyp_len"}, "hyps_lens": {0: "num_hyps"},
           "encoder_out": {1: "frames"}}
BLIND = "domains-54"

IGNORE_ID = -1


def pad_list(xs: List[torch.Tensor], pad_value: int):
    n_batch = len(xs)
    max_len = max([x.size(0) for x in xs])
    pad = torch.zeros(n_batch, max_len, dtype=xs[0].dtype, device=xs[0].device)
    pad = pad.fill_(pad_value)
    for i in range(n_batch):
        pad[i, :xs[i].size(0)] = xs[i]

    return pad


def add_sos_eos(ys_pad: torch.Tensor, sos: int, eos: int,
                ignore_id: int) -> Tuple[torch.Tensor, torch.Tensor]:
    _sos = torch.tensor([sos],
                        dtype=torch.long,
                        requires_grad=False,
                        device=ys_pad.device)
    _eos = torch.tensor([eos],
                        dtype=torch.long,
                        requires_grad=False,
                        device=ys_pad.device)
    ys = [y[y != ignore_id] for y in ys_pad]  # parse padded ys
    ys_in = [torch.cat([_sos, y], dim=0) for y in ys]
    ys_out = [torch.cat([y, _eos], dim=0) for y in ys]
    return pad_list(ys_in, eos), pad_list(ys_out, ignore_id)


def reverse_pad_list(ys_pad: torch.Tensor,
                     ys_lens: torch.Tensor,
                     pad_value: float = -1.0) -> torch.Tensor:
    r_ys_pad = pad_sequence([(torch.flip(y.int()[:i], [0]))
                             for y, i in zip(ys_pad, ys_lens)], True,
                            pad_value)
    return r_ys_pad


class TinyDecoder(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.src_attn = nn.MultiheadAttention(d_model, 4, batch_first=True)
        self.output_layer = nn.Linear(d_model, vocab_size)

    def forward(self, memory, tgt):
        x = self.embed(tgt)
        x = x + self.src_attn(x, memory, memory, need_weights=False)[0]
        return self.output_layer(x)


class BiTransformerDecoder(nn.Module):
    def __init__(self, vocab_size=20, d_model=32):
        super().__init__()
        self.left_decoder = TinyDecoder(vocab_size, d_model)
        self.right_decoder = TinyDecoder(vocab_size, d_model)

    def forward(self, memory, memory_mask, ys_in_pad, ys_in_lens, r_ys_in_pad, reverse_weight=0.0):
        l_x = self.left_decoder(memory, ys_in_pad)
        r_x = torch.tensor(0.0)
        if reverse_weight > 0.0:
            r_x = self.right_decoder(memory, r_ys_in_pad)
        return l_x, r_x, ys_in_lens


class ASRModel(nn.Module):
    def __init__(self, vocab_size=20, d_model=32):
        super().__init__()
        self.sos = vocab_size - 1
        self.eos = vocab_size - 1
        self.ignore_id = IGNORE_ID
        self.decoder = BiTransformerDecoder(vocab_size, d_model)

    def forward_attention_decoder(
        self,
        hyps: torch.Tensor,
        hyps_lens: torch.Tensor,
        encoder_out: torch.Tensor,
        reverse_weight: float = 0,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        assert encoder_out.size(0) == 1
        num_hyps = hyps.size(0)
        assert hyps_lens.size(0) == num_hyps
        encoder_out = encoder_out.repeat(num_hyps, 1, 1)
        encoder_mask = torch.ones(num_hyps,
                                  1,
                                  encoder_out.size(1),
                                  dtype=torch.bool,
                                  device=encoder_out.device)
        # input for right to left decoder
        # this hyps_lens has count <sos> token, we need minus it.
        r_hyps_lens = hyps_lens - 1
        # this hyps has included <sos> token, so it should be
        # convert the original hyps.
        r_hyps = hyps[:, 1:]
        r_hyps = reverse_pad_list(r_hyps, r_hyps_lens, float(self.ignore_id))
        r_hyps, _ = add_sos_eos(r_hyps, self.sos, self.eos, self.ignore_id)
        decoder_out, r_decoder_out, _ = self.decoder(
            encoder_out, encoder_mask, hyps, hyps_lens, r_hyps,
            reverse_weight)  # (num_hyps, max_hyps_len, vocab_size)
        decoder_out = torch.nn.functional.log_softmax(decoder_out, dim=-1)
        r_decoder_out = torch.nn.functional.log_softmax(r_decoder_out, dim=-1)
        return decoder_out, r_decoder_out


class Decoder(nn.Module):
    """The export wrapper: attention rescoring with the right-to-left decoder on."""

    def __init__(self):
        super().__init__()
        self.model = ASRModel()

    def forward(self, hyps, hyps_lens, encoder_out):
        return self.model.forward_attention_decoder(hyps, hyps_lens, encoder_out, 0.3)


def make_model():
    return Decoder().eval()


def _hyps(lens, vocab_size=20):
    # <sos> + tokens, padded with <eos> (as ctc prefix beam search hands them over)
    sos = eos = vocab_size - 1
    max_len = max(lens) + 1
    hyps = torch.full((len(lens), max_len), eos, dtype=torch.long)
    for i, n in enumerate(lens):
        hyps[i, 0] = sos
        hyps[i, 1:n + 1] = torch.randint(1, vocab_size - 1, (n,))
    return hyps, torch.tensor(lens, dtype=torch.long) + 1


def example_inputs():
    hyps, hyps_lens = _hyps([6, 4, 5, 2])
    return (hyps, hyps_lens, torch.randn(1, 30, 32))


def other_inputs():
    h1, l1 = _hyps([9, 3, 7, 8, 1, 9])
    h2, l2 = _hyps([3, 2, 1])
    return [(h1, l1, torch.randn(1, 41, 32)), (h2, l2, torch.randn(1, 17, 32))]


def probe_inputs():
    return other_inputs()
