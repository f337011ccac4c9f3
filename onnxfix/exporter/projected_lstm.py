"""An LSTM with projections (`proj_size`) for the legacy exporter, which refuses aten.lstm with
projections ("LSTMs with projections"): each layer and direction a TorchScript loop over the time
steps, which the tracer records as an ONNX Loop (any length), computing nn.LSTM's cell update
(torch's own: gates = W_ih x + b_ih + W_hh h + b_hh; c = f*c + i*g; h = W_hr (o * tanh(c))).
Used only while exporting (nn_layers.rnn_while_loops); eager PyTorch keeps aten.lstm."""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

import torch
import torch.nn.functional as F


def _layer(x: torch.Tensor, h: torch.Tensor, c: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor,
           b_ih: Optional[torch.Tensor], b_hh: Optional[torch.Tensor], w_hr: torch.Tensor, reverse: bool):
    gates_x = F.linear(x, w_ih, b_ih)  # every step's input term at once, as aten.lstm does
    steps = x.size(0)
    out = x.new_zeros([steps, h.size(0), h.size(1)])
    for s in range(steps):
        t = steps - 1 - s if reverse else s
        gates = gates_x[t] + F.linear(h, w_hh, b_hh)
        i, f, g, o = gates.chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = F.linear(torch.sigmoid(o) * torch.tanh(c), w_hr)
        out[t] = h
    return out, h, c


@lru_cache(maxsize=1)
def _scripted_layer():
    return torch.jit.script(_layer)  # scripted when first needed: the loop stays a loop in the trace


def projected_lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """aten.lstm.input's arguments and results (output, h_n, c_n), for an LSTM with projections
    in eval (no dropout between layers)."""
    layer = _scripted_layer()
    x = input.transpose(0, 1) if batch_first else input
    directions = 2 if bidirectional else 1
    per_direction = 5 if has_biases else 3  # w_ih, w_hh, [b_ih, b_hh,] w_hr
    h0, c0 = hx
    final_h, final_c = [], []
    for index in range(num_layers):
        outputs = []
        for direction in range(directions):
            k = index * directions + direction
            p = params[k * per_direction:(k + 1) * per_direction]
            b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
            out, h, c = layer(x, h0[k], c0[k], p[0], p[1], b_ih, b_hh, p[-1], direction == 1)
            outputs.append(out)
            final_h.append(h)
            final_c.append(c)
        x = torch.cat(outputs, -1) if directions == 2 else outputs[0]
    return (x.transpose(0, 1) if batch_first else x), torch.stack(final_h), torch.stack(final_c)
