"""Export-time settings for torch.nn's own layers, whose inference shortcuts the exporters cannot
follow (export_repairs.py names them; decompose.py enters them while exporting). Eager PyTorch is
untouched: each is undone when the export ends."""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from typing import Iterator

import torch
from torch.nn.modules import transformer

from onnxfix.exporter.export_repairs import RNN_LOOPS_KEY
from onnxfix.exporter.projected_lstm import projected_lstm


@contextmanager
def mha_fastpath_off(model=None) -> Iterator[None]:
    """nn.MultiheadAttention and nn.TransformerEncoderLayer call fused kernels
    (`torch._native_multi_head_attention`, `torch._transformer_encoder_layer_fwd`) in eval mode
    without gradients; with the fast path off they run their composite path, the same math
    (the layers' training path), which both exporters translate."""
    enabled = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        yield
    finally:
        torch.backends.mha.set_fastpath_enabled(enabled)


@contextmanager
def causal_mask_check_off(model=None) -> Iterator[None]:
    """nn.Transformer, nn.TransformerEncoder and nn.TransformerDecoder given a mask and no
    `is_causal` hint compare the mask's values with a causal one (`_detect_is_causal_mask`), a
    branch on tensor values that torch.export cannot follow. While exporting the hint is what the
    caller passed (None: not causal), so the layers apply the mask they were given, which their
    documentation says is always right (a causal hint only selects a faster kernel)."""
    detect = transformer._detect_is_causal_mask

    def given_hint(mask, is_causal=None, size=None) -> bool:
        return is_causal is True

    transformer._detect_is_causal_mask = given_hint
    try:
        yield
    finally:
        transformer._detect_is_causal_mask = detect


# the recurrent layers with a while_loop decomposition (torch/export/_patches.py; nn.RNN's: elman_loops.py)
LOOPED_RNNS = (torch.nn.LSTM, torch.nn.GRU, torch.nn.RNN)
RNN_OPS = (torch.ops.aten.lstm.input, torch.ops.aten.gru.input, torch.ops.aten.rnn_tanh.input,
           torch.ops.aten.rnn_relu.input)


def recurrent_layers(model) -> list[str]:
    """The classes of the model's LSTM / GRU / RNN layers (those rnn_while_loops concerns)."""
    modules = model.modules() if isinstance(model, torch.nn.Module) else ()
    return sorted({type(m).__name__ for m in modules if isinstance(m, LOOPED_RNNS)})


@contextmanager
def rnn_while_loops(model=None) -> Iterator[dict[str, int]]:
    """aten.lstm / aten.gru (and nn.RNN's aten.rnn_tanh / rnn_relu, elman_loops.py) decomposed into a torch.while_loop over the time steps for the whole
    export. torch.onnx registers that decomposition only while torch.export captures the graph;
    its later `run_decompositions` meets the layers' composite decomposition, a Python loop over
    the steps whose guard fixes the sequence length to the example's (`Eq(s, 5)` in _ops.py
    decompose), so every size computed from it after the layer (a reshape by the time dim, a
    mask of the steps) is a constant in the ONNX model and other lengths fail or come out wrong.
    An LSTM with projections (`proj_size`) takes the loop at any length: the ONNX translation of
    aten.lstm has no projection (onnxruntime: "Input initial_c must have shape"; legacy refuses
    it). The loop computes the same cell update per step (torch's own decomposition). Yields the
    count of layers it decomposed (none: it changed nothing)."""
    used: dict[str, int] = {}
    try:
        from torch.export import _patches as patches

        from onnxfix.exporter.elman_loops import rnn_relu_while_loop_impl, rnn_tanh_while_loop_impl
        register = patches._register_rnn_while_loop_decomposition
        layers = ((torch.ops.aten.lstm.input, patches.lstm_while_loop_impl),
                  (torch.ops.aten.gru.input, patches.gru_while_loop_impl),
                  (torch.ops.aten.rnn_tanh.input, rnn_tanh_while_loop_impl),
                  (torch.ops.aten.rnn_relu.input, rnn_relu_while_loop_impl))
    except (ImportError, AttributeError):  # a torch without it: the export runs as it would
        yield used
        return
    with ExitStack() as registered:
        fresh_rnn_dispatch()  # our kernels, not ones an earlier call cached
        registered.callback(fresh_rnn_dispatch)
        for op, impl in layers:
            # a layer of static length keeps the decomposition torch had (the repair changes nothing there)
            before = patches.global_decomposition_table["post_autograd"].get(op) or op.py_kernels.get(
                torch._C.DispatchKey.CompositeImplicitAutograd)
            registered.enter_context(register(op, _noting_symbolic_length(impl, before, used)))
        registered.enter_context(_projected_lstms_looped(patches.lstm_while_loop_impl, used))
        yield used


@contextmanager
def _projected_lstms_looped(impl, used: dict[str, int]) -> Iterator[None]:
    """nn.LSTM's forward calls `_VF.lstm` (aten.lstm, kept whole in the exported program and
    translated as an ONNX LSTM); with projections, the while_loop decomposition is called instead,
    so the graph holds the loop of cell updates with the projection. The legacy exporter's tracer
    cannot take a while_loop: there a TorchScript loop per layer (projected_lstm.py)."""
    from torch.nn.modules import rnn

    class _LoopingProjectedLstm:
        def __getattr__(self, name):
            return getattr(torch._VF, name)

        def lstm(self, *args, **kwargs):
            if kwargs or len(args) != 9 or not _has_projections(args[1]):
                return torch._VF.lstm(*args, **kwargs)
            if not torch.jit.is_tracing():
                used[RNN_LOOPS_KEY] = used.get(RNN_LOOPS_KEY, 0) + 1
                return impl(*args)
            dropout, train = args[5], args[6]
            if train and dropout > 0:
                return torch._VF.lstm(*args)  # dropout between layers: the legacy error stands
            used[RNN_LOOPS_KEY] = used.get(RNN_LOOPS_KEY, 0) + 1
            return projected_lstm(*args)

    vf = rnn._VF
    rnn._VF = _LoopingProjectedLstm()
    try:
        yield
    finally:
        rnn._VF = vf


def _has_projections(hx) -> bool:
    """(h0, c0) of an LSTM with projections: h0 is proj_size wide, c0 hidden_size."""
    return isinstance(hx, (list, tuple)) and len(hx) == 2 and hx[0].size(-1) != hx[1].size(-1)


def fresh_rnn_dispatch() -> None:
    """Drop the kernels aten.lstm / aten.gru cached for their dispatch keys. torch.onnx (and
    rnn_while_loops) register the while_loop decomposition by setting the ops' py_kernels while
    exporting, which does not clear what the op's dispatch cache resolved before: once an eager
    or traced call in this process cached the composite (a Python loop over the steps), every
    later dynamo export of an LSTM / GRU ran that loop and fixed the sequence length to the
    example's ("tracing inferred a static shape"; measured on torch 2.13: the second
    `onnxfix.export` of a GRU model in one process failed where the first passed)."""
    for op in RNN_OPS:
        cache = getattr(op, "_dispatch_cache", None)
        if isinstance(cache, dict):
            cache.clear()


def _noting_symbolic_length(impl, before, used: dict[str, int]):
    def decomposed(input, *args, **kwargs):
        batch_first = kwargs.get("batch_first", args[7] if len(args) > 7 else False)
        if not isinstance(input.shape[1 if batch_first else 0], torch.SymInt) and before is not None:
            return before(input, *args, **kwargs)
        used[RNN_LOOPS_KEY] = used.get(RNN_LOOPS_KEY, 0) + 1
        return impl(input, *args, **kwargs)

    return decomposed
