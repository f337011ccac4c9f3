"""Export repairs that run as contexts around the export (exporter/export_repairs.py): what they
reach in the model, and that they put everything back. Unit tests, no export."""

from __future__ import annotations

import functools
import re

import torch

from onnxfix.exporter.compiled import compiled_unwrapped
from onnxfix.exporter.export_repairs import EXPORT_REPAIRS
from onnxfix.exporter.unregistered import gradients_off


def test_gradients_off_reaches_weights_through_bound_methods_and_partials():
    """CED's export wrapper stores `self.forward_head = cedmodel.forward_head`: the pretrained
    model is reachable only through the bound method (or a functools.partial of one)."""
    held, partial_held = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    wrapper = torch.nn.Module()
    wrapper.head = held.forward
    wrapper.other = functools.partial(torch.nn.functional.linear, weight=partial_held.weight)
    weights = [held.weight, held.bias, partial_held.weight]
    with gradients_off(wrapper):
        assert not any(w.requires_grad for w in weights)
    assert all(w.requires_grad for w in weights)


def test_gradients_off_detaches_a_computed_tensor_a_plain_objects_cache_holds():
    """GPyTorch's fantasy model keeps `new_covar_cache`, computed from its hyperparameters, in its
    prediction strategy's `_memoize_cache` dict (blind domains-74): no leaf, so detached while
    exporting, in the dict that holds it, and put back afterwards."""
    class Strategy:
        def __init__(self, cache):
            self._memoize_cache = {"covar_cache": cache}

    weight = torch.nn.Parameter(torch.eye(2))
    cache = torch.linalg.inv(weight * 2).mT
    model = torch.nn.Module()
    model.strategy = Strategy(cache)
    with gradients_off(model):
        held = model.strategy._memoize_cache["covar_cache"]
        assert not held.requires_grad and torch.equal(held, cache)
    assert model.strategy._memoize_cache["covar_cache"] is cache  # the computed tensor itself, back


def test_gradients_off_leaves_a_cache_the_forward_changed_as_it_is():
    """A streaming cache the export's forward popped from: the detached tensor is gone from that
    place, so nothing is written back there (the cache keeps what the forward left)."""
    weight = torch.nn.Parameter(torch.ones(2))
    first, second = weight * 2, weight * 3
    model = torch.nn.Module()
    model.cache = [first, second]
    with gradients_off(model):
        kept = model.cache[1]  # the detached second tensor
        model.cache.pop(0)
    assert len(model.cache) == 1 and model.cache[0] is kept  # neither `first` nor `second` written back


def test_compiled_wrappers_are_exported_through_what_they_wrap():
    """pi0.5 replaces its own forward with `torch.compile(self.forward)` in __init__, another
    model compiles a submodule: the legacy tracer refuses both ("dynamo-optimized function");
    within the repair they are the originals, and put back afterwards."""
    class Policy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = torch.compile(torch.nn.Linear(2, 2))
            self.forward = torch.compile(self.forward)

        def forward(self, x):
            return self.backbone(x)

    model = Policy()
    compiled_forward, compiled_backbone = model.forward, model.backbone
    with compiled_unwrapped(model):
        assert model.forward == Policy.forward.__get__(model) and isinstance(model.backbone, torch.nn.Linear)
    assert (model.forward, model.backbone) == (compiled_forward, compiled_backbone)
    error = "RuntimeError: Detected that you are using FX to torch.jit.trace a dynamo-optimized function."
    assert [key for key, repair in EXPORT_REPAIRS.items() if re.search(repair.error, error)] == ["compiled_unwrapped"]


def test_complex_state_is_carried_as_pairs_and_put_back_in_order():
    """complex_pairs' module state: a complex weight, buffer and plain attribute become pairs of the
    helpers' own class while exporting; afterwards the registries hold them again in their order
    (state_dict keys), also when the export raises, and a pair forward stored elsewhere is gone."""
    from onnxfix.exporter.complex_state import complex_state_as_pairs
    from onnxfix.exporter.decompose import decomposition_table

    table = decomposition_table(EXPORT_REPAIRS["complex_pairs"].keys, typed=True)
    model = torch.nn.Module()
    model.w = torch.nn.Parameter(torch.randn(2, dtype=torch.cfloat))
    model.b = torch.nn.Parameter(torch.randn(2))
    model.register_buffer("freqs", torch.randn(2, dtype=torch.cfloat))
    model.register_buffer("scale", torch.ones(2))
    model.table = torch.randn(3, dtype=torch.cfloat)
    keys, table_before = list(model.state_dict()), model.table
    try:
        with complex_state_as_pairs(model, table):
            assert {type(v).__name__ for v in (model.w, model.freqs, model.table)} == {"_OnnxComplexPair"}
            model.cache = model.freqs  # what a forward may store
            raise RuntimeError("the export failed")
    except RuntimeError:
        pass
    assert list(model.state_dict()) == keys and model.table is table_before
    assert isinstance(model.w, torch.nn.Parameter) and model.freqs.is_complex() and not hasattr(model, "cache")


def test_size_tensors_kept_changes_nothing_without_symints_and_puts_torch_back():
    """Outside torch.export (no SymInt) the mode builds and reads tensors as torch does, and counts
    no use (the fix loop then leaves the repair out); afterwards torch.tensor and SymInt are as
    they were, also when the block raises."""
    from onnxfix.exporter.size_tensors import size_tensors_kept

    tensor, had_item = torch.tensor, "item" in vars(torch.SymInt)
    try:
        with size_tensors_kept() as used:
            shapes = torch.as_tensor([(2, 3), (4, 5)])
            assert [tuple(int(v) for v in row) for row in shapes] == [(2, 3), (4, 5)]
            assert torch.equal(shapes.prod(1).cumsum(0), torch.tensor([6, 26]))
            assert used == {}
            raise KeyError("raised inside")
    except KeyError:
        pass
    assert torch.tensor is tensor and ("item" in vars(torch.SymInt)) == had_item
    error = "GuardOnDataDependentSymNode: Could not guard on data-dependent expression 32*u0 < 2"
    assert "size_tensors_kept" in [key for key, repair in EXPORT_REPAIRS.items() if re.search(repair.error, error)]


def test_cached_functions_run_uncached_while_exporting_and_are_put_back():
    """einops before 0.7 caches its rearrange recipe on `tensor.shape` (blind domains-85): a SymInt
    has no hash, so while exporting the cached function is the one it wraps; the cache, and what
    it holds, is back afterwards. torch's own caches are left alone."""
    import sys
    import types

    from onnxfix.exporter.cached_functions import cached_functions, caches_bypassed

    module = types.ModuleType("onnxfix_test_cached_recipes")
    exec("import functools\n@functools.lru_cache(16)\ndef recipe(shape):\n    return tuple(shape)\n", module.__dict__)
    sys.modules[module.__name__] = module
    try:
        cached = module.recipe
        cached((2, 3))
        with caches_bypassed(torch.nn.Linear(2, 2)):
            assert module.recipe is cached.__wrapped__
        model = torch.nn.Linear(2, 2)
        assert not [n for namespace, n, _ in cached_functions(model) if namespace["__name__"].startswith("torch")]
        assert module.recipe is cached and cached.cache_info().currsize == 1
    finally:
        del sys.modules[module.__name__]
    error = "TypeError: unhashable type: non-nested SymInt"
    assert [key for key, repair in EXPORT_REPAIRS.items() if re.search(repair.error, error)] == ["caches_bypassed"]
