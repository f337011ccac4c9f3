"""complex_pairs' module state: the complex tensors a module holds (a RoPE table precomputed in
__init__ as a buffer or a plain attribute: llama2.c's and Meta's Llama's `freqs_cis`; a complex
layer's weights) carried as (real, imaginary) pairs while exporting, as the pair helpers carry the
complex values forward computes. The legacy exporter cannot hold a complex constant ("ScalarType ComplexFloat is an
unexpected tensor scalar type"), whatever the ops around it; everything is put back afterwards."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator

import torch

PAIR = "_onnx_complex_pair"  # complex_pair.py's constructor, in the helpers' namespace


@contextmanager
def complex_state_as_pairs(model: torch.nn.Module | None, table: dict) -> Iterator[None]:
    """Each module's complex parameters, buffers and tensor attributes replaced by pairs made with
    the constructor the table's helpers share (their isinstance checks need that very class);
    afterwards every module's registries and attributes as they were, in their order, and no
    pair left behind (a forward that stored one under another name)."""
    make_pair = _pair_constructor(table)
    modules = list(model.modules()) if model is not None and make_pair is not None else []
    saved = [(m, dict(m._parameters), dict(m._buffers), dict(vars(m))) for m in modules]
    try:
        for module in modules:
            _to_pairs(module, _own_constructor(module) or make_pair)
        yield
    finally:
        for module, parameters, buffers, attributes in saved:
            _restore(module, parameters, buffers, attributes)


def _to_pairs(module: torch.nn.Module, make_pair: Callable) -> None:
    found = [(name, registry, value) for registry in ("_parameters", "_buffers")
             for name, value in getattr(module, registry).items() if value is not None and value.is_complex()]
    found += [(name, "", value) for name, value in vars(module).items()
              if isinstance(value, torch.Tensor) and not isinstance(value, torch.nn.Parameter) and value.is_complex()]
    for name, registry, value in found:
        if registry:
            del getattr(module, registry)[name]
        # contiguous parts (a complex tensor's .real / .imag are strided views into it), as
        # values: the export is of inference, a weight's gradient is not exported
        parts = value.detach()
        object.__setattr__(module, name, make_pair(parts.real.contiguous(), parts.imag.contiguous()))


def _restore(module: torch.nn.Module, parameters: dict, buffers: dict, attributes: dict) -> None:
    for name, value in list(vars(module).items()):
        if _is_pair(value) and not _is_pair(attributes.get(name)):
            del vars(module)[name]
            if name in attributes:
                object.__setattr__(module, name, attributes[name])
    for registry, entries in (("_parameters", parameters), ("_buffers", buffers)):
        current = getattr(module, registry)
        current.clear()
        current.update(entries)  # their order too (state_dict's keys, named_parameters)


def _is_pair(value: object) -> bool:
    return type(value).__name__ == "_OnnxComplexPair"


def _own_constructor(module: torch.nn.Module) -> Callable | None:
    """The pair constructor of the file defining the module's class, where a source fix wrote the
    pair helpers into it: its forward hands the value to those helpers, whose class checks
    must recognise it."""
    defining = sys.modules.get(type(module).__module__)
    return getattr(defining, PAIR, None)


def _pair_constructor(table: dict) -> Callable | None:
    return next((entry.function.__globals__[PAIR] for entry in table.values()
                 if PAIR in entry.function.__globals__), None)
