"""aten.rnn_tanh / aten.rnn_relu (nn.RNN) as a torch.while_loop over the time steps, the form
torch/export/_patches.py gives aten.lstm and aten.gru and not these two.

torch's composite of nn.RNN is a Python loop over the steps (torch/_decomp/decompositions.py
one_layer_rnn): torch.export unrolls it, which guards the sequence length to the example's, so a
dynamic length fails ("conflicts between user-specified ranges and inferred ranges") or is baked.
The loop here computes the same cell per step, `act(x_t W_ih^T + b_ih + h W_hh^T + b_hh)` with the
input projection of every step computed first (as the composite does), writing each step's hidden
state into the output; layers, directions, dropout and batch_first come from torch's own
_rnn_helper. Used by rnn_while_loops (nn_layers.py) while exporting only."""

from __future__ import annotations

from functools import partial

import torch
from torch._decomp.decompositions import _rnn_helper, gather_params
from torch._higher_order_ops.while_loop import while_loop


def one_layer_while_loop_rnn(inp, hidden, params, has_biases, reverse=False, nonlinearity=torch.tanh):
    ih_weight, hh_weight = params[0], params[1]
    ih_bias = params[2] if has_biases else None
    hh_bias = params[3] if has_biases else None
    precomputed = torch.nn.functional.linear(inp, ih_weight, ih_bias)
    precomputed = precomputed.flip(0) if reverse else precomputed
    hh_weight, hh_bias = (t.clone() if t is not None else None for t in (hh_weight, hh_bias))  # no aliased inputs
    current = hidden.unsqueeze(0)
    steps = torch.empty(precomputed.size(0), *tuple(current.shape[1:]), dtype=current.dtype, device=current.device)

    def cond_fn(i, out, cur):
        return i < precomputed.size(0)

    def body_fn(index, out, cur):
        i = index.item()
        torch._check_is_size(i)
        torch._check_is_size(i, max=precomputed.size(0) - 1)
        cur = nonlinearity(torch.nn.functional.linear(cur, hh_weight, hh_bias) + precomputed[i])
        out = out.clone()
        out[i] = cur.squeeze(0)
        return index + 1, out, cur

    start = precomputed.new_zeros((), dtype=torch.int64)  # computed, not a constant the export would lift
    _, out, final = while_loop(cond_fn, body_fn, [start, steps, current])
    return (out.flip(0) if reverse else out), final.squeeze(0)


def _while_loop_impl(nonlinearity):
    def impl(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        params = gather_params(params, has_biases, False)
        layer = partial(one_layer_while_loop_rnn, nonlinearity=nonlinearity)
        out, finals = _rnn_helper(input, list(hx.unbind(0)), params, has_biases, num_layers, dropout, train,
                                  bidirectional, batch_first, layer)
        return out, torch.stack(finals, 0)

    return impl


rnn_tanh_while_loop_impl = _while_loop_impl(torch.tanh)
rnn_relu_while_loop_impl = _while_loop_impl(torch.relu)
