"""complex_pairs' module state: the complex tensors a module holds (a RoPE table precomputed in
__init__ as a buffer or a plain attribute: llama2.c's and Meta's Llama's `freqs_cis`) carried as
(real, imaginary) pairs while exporting, as the pair helpers carry the complex values forward
computes. The legacy exporter cannot hold a complex constant ("ScalarType ComplexFloat is an
unexpected tensor scalar type"), whatever the ops around it; everything is put back afterwards."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator

import torch

PAIR = "_onnx_complex_pair"  # complex_pair.py's constructor, in the helpers' namespace


@contextmanager
def complex_state_as_pairs(model: torch.nn.Module | None, table: dict) -> Iterator[None]:
    """Each module's complex buffers and complex tensor attributes replaced by pairs made with
    the constructor the table's helpers share (their isinstance checks need that very class)."""
    make_pair = _pair_constructor(table)
    replaced: list[tuple[torch.nn.Module, str, bool, torch.Tensor]] = []
    try:
        for module in model.modules() if model is not None and make_pair is not None else ():
            replaced += _pairs_in(module, _own_constructor(module) or make_pair)
        yield
    finally:
        for module, name, buffer, value in reversed(replaced):
            vars(module).pop(name, None)
            if buffer:
                module._buffers[name] = value
            else:
                object.__setattr__(module, name, value)


def _pairs_in(module: torch.nn.Module, make_pair: Callable) -> list[tuple[torch.nn.Module, str, bool, torch.Tensor]]:
    replaced = []
    buffers = [(name, True, b) for name, b in module._buffers.items() if b is not None and b.is_complex()]
    attributes = [(name, False, v) for name, v in vars(module).items()
                  if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) and v.is_complex()]
    for name, buffer, value in buffers + attributes:
        if buffer:
            del module._buffers[name]
        # contiguous parts: a complex tensor's .real / .imag are strided views into it
        object.__setattr__(module, name, make_pair(value.real.contiguous(), value.imag.contiguous()))
        replaced.append((module, name, buffer, value))
    return replaced


def _own_constructor(module: torch.nn.Module) -> Callable | None:
    """The pair constructor of the file defining the module's class, where a source fix wrote the
    pair helpers into it: its forward hands the value to those helpers, whose class checks
    must recognise it."""
    defining = sys.modules.get(type(module).__module__)
    return getattr(defining, PAIR, None)


def _pair_constructor(table: dict) -> Callable | None:
    return next((entry.function.__globals__[PAIR] for entry in table.values()
                 if PAIR in entry.function.__globals__), None)
