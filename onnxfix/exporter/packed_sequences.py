"""Export-time repair `packed_as_padded`: packed sequences carried as the padded batch they came from.

`pack_padded_sequence` -> an RNN -> `pad_packed_sequence` runs each sequence of a padded batch up to
its own length. Neither exporter can follow it: the packed data's size is the sum of the lengths
(torch.export: a data-dependent size, or the RNN's `torch.zeros(..., batch_sizes[0], ...)` of a
tensor), and the legacy tracer records the example's lengths (its models come out silently wrong
for other lengths and padding values). While exporting, this repair keeps the padded batch instead:

- `pack_padded_sequence` sorts as it does, and returns a `PaddedPack` (a PackedSequence whose data
  is the time-major padded batch and whose batch_sizes are the sorted lengths);
- nn.LSTM / nn.GRU / nn.RNN given one run each layer and direction over the padded batch: the forward
  direction reads a sequence's steps before its padding, so its outputs there are the packed ones;
  the reverse direction runs on each sequence reversed within its length; the last hidden state is
  the output at the sequence's last step (the first, reversed); outputs past a length are zero as
  packed outputs have none; an LSTM's last cell state is not computed (NaN: a model that reads it
  fails the export's comparison, and the repair is dropped);
- `pad_packed_sequence` gives the padded output with `padding_value` past each length, as long as
  the longest sequence (or `total_length`), in the caller's order.

Eager PyTorch never sees this (export time only); the exported model rounds as the padded RNN
does, which the export's comparison with eager on other inputs measures.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

import torch
from torch import nn
from torch.nn.utils import rnn as rnn_utils

PackedSequence = rnn_utils.PackedSequence


class PaddedPack(PackedSequence):
    """data: the time-major padded batch [T, B, *] (sorted as packing sorts); batch_sizes: the
    sorted lengths [B] (int64)."""


def _pack_padded(input, lengths, batch_first=False, enforce_sorted=True):
    if not isinstance(lengths, torch.Tensor):
        lengths = torch.as_tensor(lengths, dtype=torch.int64)
    lengths = lengths.to(device=input.device, dtype=torch.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = torch.sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data = input.transpose(0, 1) if batch_first else input
    return PaddedPack(data, lengths, sorted_indices)  # its unsorted_indices: the inverse permutation


def _pad_packed(sequence, batch_first=False, padding_value=0.0, total_length=None):
    data, lengths = sequence.data, sequence.batch_sizes
    steps = lengths.max() if total_length is None else total_length
    time = torch.arange(steps, device=data.device)
    taken = data.index_select(0, time.clamp(max=data.shape[0] - 1))  # past the batch's steps: padding
    padded = torch.where(_valid(time, lengths, data.dim()), taken, torch.full_like(taken, padding_value))
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        return (padded.index_select(0 if batch_first else 1, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices])
    return padded, lengths


def _valid(time: torch.Tensor, lengths: torch.Tensor, rank: int) -> torch.Tensor:
    """[T, B, 1, ...] (``rank`` dims): step t of sequence b is within its length."""
    return (time[:, None] < lengths[None, :]).reshape(time.shape[0], lengths.shape[0], *[1] * (rank - 2))


def _reversed_within(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Each sequence's first `length` steps in reverse order, its padding where it was."""
    time = torch.arange(x.shape[0], device=x.device)[:, None]
    index = torch.where(time < lengths[None, :], lengths[None, :] - 1 - time, time)
    return x.gather(0, index.reshape(*index.shape, *[1] * (x.dim() - 2)).expand_as(x))


def _step(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """x[index[b], b] for each b: [B, H]."""
    return x.gather(0, index.reshape(1, -1, 1).expand(1, x.shape[1], x.shape[2]))[0]


def _padded_rnn(module: nn.RNNBase, packed: PaddedPack, hx):
    data, lengths, sorted_indices, unsorted_indices = packed
    lstm = isinstance(module, nn.LSTM)
    directions = 2 if module.bidirectional else 1
    rows, batch = module.num_layers * directions, data.shape[1]
    if hx is None:
        zeros = data.new_zeros(rows, batch, module.hidden_size)
        hx = (zeros, zeros) if lstm else zeros
    else:
        hx = module.permute_hidden(hx, sorted_indices)
    h0, c0 = hx if lstm else (hx, None)
    valid = _valid(torch.arange(data.shape[0], device=data.device), lengths, data.dim())
    last = (lengths - 1).clamp(min=0)
    layer_input, finals = data, []
    for layer in range(module.num_layers):
        outputs = []
        for direction in range(directions):
            suffix, row = "_reverse" if direction else "", layer * directions + direction
            weights = [getattr(module, f"{kind}_l{layer}{suffix}") for kind in
                       (("weight_ih", "weight_hh", "bias_ih", "bias_hh") if module.bias else ("weight_ih", "weight_hh"))]
            # batch first: torch.onnx keeps one ONNX LSTM / GRU node for any length (a time-major call is
            # decomposed into a loop that the dynamo exporter fixes to the example's length, measured)
            x = (_reversed_within(layer_input, lengths) if direction else layer_input).transpose(0, 1)
            if lstm:
                out = torch._VF.lstm(x, (h0[row:row + 1], c0[row:row + 1]), weights, module.bias, 1, 0.0, False, False, True)[0]
            else:
                out = _SINGLE_STATE[module.mode](x, h0[row:row + 1], weights, module.bias, 1, 0.0, False, False, True)[0]
            out = out.transpose(0, 1)
            if direction:
                out = _reversed_within(out, lengths)
            finals.append(_step(out, torch.zeros_like(last) if direction else last))
            outputs.append(out)
        layer_input = torch.where(valid, torch.cat(outputs, -1), 0.0)
    hidden = torch.stack(finals)
    hidden = (hidden, torch.full_like(hidden, float("nan"))) if lstm else hidden
    return PaddedPack(layer_input, lengths, sorted_indices, unsorted_indices), module.permute_hidden(hidden, unsorted_indices)


# the recurrences with one state: _VF calls with the input overload's arguments
_SINGLE_STATE = {"GRU": torch._VF.gru, "RNN_TANH": torch._VF.rnn_tanh, "RNN_RELU": torch._VF.rnn_relu}


def _carried(module: nn.RNNBase) -> bool:
    """What the padded runs reproduce: an LSTM without projections, a GRU or an Elman RNN, not training."""
    return type(module) in (nn.LSTM, nn.GRU, nn.RNN) and not module.training and not getattr(module, "proj_size", 0)


@contextmanager
def packed_as_padded(model=None) -> Iterator[None]:
    pack, pad = rnn_utils.pack_padded_sequence, rnn_utils.pad_packed_sequence
    forwards = {cls: cls.forward for cls in (nn.LSTM, nn.GRU, nn.RNN)}

    def pad_packed(sequence, *args, **kwargs):
        return (_pad_packed if isinstance(sequence, PaddedPack) else pad)(sequence, *args, **kwargs)

    def forward_of(cls):
        original = forwards[cls]

        def forward(self, input, hx=None):
            if isinstance(input, PaddedPack) and _carried(self):
                return _padded_rnn(self, input, hx)
            return original(self, input, hx)

        return forward

    # the functions as every loaded module bound them (`from torch.nn.utils.rnn import ...`)
    swaps = {id(pack): _pack_padded, id(pad): pad_packed}
    patched = [(namespace, name, value) for module in list(sys.modules.values())
               for namespace in [getattr(module, "__dict__", None)] if isinstance(namespace, dict)
               for name, value in list(namespace.items()) if id(value) in swaps and value in (pack, pad)]
    try:
        for namespace, name, value in patched:
            namespace[name] = swaps[id(value)]
        for cls in forwards:
            cls.forward = forward_of(cls)
        yield
    finally:
        for namespace, name, value in patched:
            namespace[name] = value
        for cls, original in forwards.items():
            cls.forward = original
