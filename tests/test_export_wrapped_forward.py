"""A forward replaced by a hook's `functools.partial` (diffusers' HookRegistry, blind domains-85;
accelerate's add_hook_to_module does the same): its `__wrapped__` signature `(module, *args,
**kwargs)` is what torch.export binds the inputs against. forward_called_positionally exports the
model through `forward(*args)`, as the call passes them."""

from __future__ import annotations

import functools

import torch

from onnxfix.exporter.model_io import wrapped_forward
from onnxfix.exporter.probes import user_probes
from onnxfix.exporter.verify import verify


class Shift(torch.nn.Module):
    def forward(self, hidden_states, timestep):
        return hidden_states + timestep.sum()


def _hooked():
    model = Shift()
    original = model.forward

    def new_forward(module, *args, **kwargs):  # a no-op hook's pre / post forward around the original
        return original(*args, **kwargs)

    model.forward = functools.update_wrapper(functools.partial(new_forward, model), new_forward)
    return model


def test_a_hooked_forward_is_named_and_exports_through_the_call():
    assert wrapped_forward(_hooked()) and not wrapped_forward(Shift())
    args = (torch.randn(2, 4, 8), torch.tensor([1.0]))
    probes = user_probes([(torch.randn(3, 6, 8), torch.tensor([0.5]))])
    dynamic = {0: {0: "batch", 1: "seq"}}
    assert verify(_hooked, args, probes, "dynamo", dynamic).verdict != "OK"
    assert verify(_hooked, args, probes, "dynamo", dynamic, decompose=["forward_called_positionally"]).verdict == "OK"
