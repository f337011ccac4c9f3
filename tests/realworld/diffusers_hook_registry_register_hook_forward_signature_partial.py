"""diffusers `HookRegistry.register_hook` (used by context-parallel / caching hooks) replaces `module.forward`
with `functools.update_wrapper(functools.partial(new_forward, module), new_forward)`, where
`new_forward(module, *args, **kwargs)` runs `pre_forward`, the original forward and `post_forward`. After even a
no-op `ModelHook`, `inspect.signature(model.forward)` is `(module, *args, **kwargs)` and torch.export binds the
inputs against that wrapper ("missing a required argument: 'module'"), so torch.compile / torch.export fail.

Source: https://github.com/huggingface/diffusers/issues/14135
"""
import functools
from typing import Any, Dict, Tuple

import torch

CLASS = "exporter-defaults"
FAMILY = "operators"
DYNAMIC = {"module": {0: "batch", 1: "seq"}}   # forward is now (module, *args, **kwargs): hidden_states binds to `module`
BLIND = "domains-85"


# --- diffusers/hooks/hooks.py (before the fix), trimmed to what register_hook needs
class ModelHook:
    _is_stateful = False

    def __init__(self):
        self.fn_ref = None

    def initialize_hook(self, module: torch.nn.Module) -> torch.nn.Module:
        return module

    def pre_forward(self, module: torch.nn.Module, *args, **kwargs) -> Tuple[Tuple[Any], Dict[str, Any]]:
        return args, kwargs

    def post_forward(self, module: torch.nn.Module, output: Any) -> Any:
        return output


class HookFunctionReference:
    def __init__(self) -> None:
        self.pre_forward = None
        self.post_forward = None
        self.forward = None
        self.original_forward = None


class HookRegistry:
    def __init__(self, module_ref: torch.nn.Module) -> None:
        super().__init__()
        self.hooks: Dict[str, ModelHook] = {}
        self._module_ref = module_ref
        self._hook_order = []
        self._fn_refs = []

    def register_hook(self, hook: ModelHook, name: str) -> None:
        if name in self.hooks.keys():
            raise ValueError(f"Hook with name {name} already exists in the registry.")

        self._module_ref = hook.initialize_hook(self._module_ref)

        def create_new_forward(function_reference: HookFunctionReference):
            def new_forward(module, *args, **kwargs):
                args, kwargs = function_reference.pre_forward(module, *args, **kwargs)
                output = function_reference.forward(*args, **kwargs)
                return function_reference.post_forward(module, output)

            return new_forward

        forward = self._module_ref.forward

        fn_ref = HookFunctionReference()
        fn_ref.pre_forward = hook.pre_forward
        fn_ref.post_forward = hook.post_forward
        fn_ref.forward = forward

        if hasattr(hook, "new_forward"):
            fn_ref.original_forward = forward
            fn_ref.forward = functools.update_wrapper(
                functools.partial(hook.new_forward, self._module_ref), hook.new_forward
            )

        rewritten_forward = create_new_forward(fn_ref)
        self._module_ref.forward = functools.update_wrapper(
            functools.partial(rewritten_forward, self._module_ref), rewritten_forward
        )

        hook.fn_ref = fn_ref
        self.hooks[name] = hook
        self._hook_order.append(name)
        self._fn_refs.append(fn_ref)

    @classmethod
    def check_if_exists_or_initialize(cls, module: torch.nn.Module) -> "HookRegistry":
        if not hasattr(module, "_diffusers_hook"):
            module._diffusers_hook = cls(module)
        return module._diffusers_hook


class DummyModel(torch.nn.Module):
    def forward(self, hidden_states, timestep, encoder_hidden_states=None):
        return hidden_states + timestep.sum()


def make_model():
    model = DummyModel()
    HookRegistry.check_if_exists_or_initialize(model).register_hook(ModelHook(), "noop")
    return model


def example_inputs():
    return (torch.randn(1, 4, 8), torch.tensor([1.0]))


def other_inputs():
    return [(torch.randn(3, 6, 8), torch.tensor([0.5])), (torch.randn(2, 2, 8), torch.tensor([2.0]))]


def probe_inputs():
    return other_inputs()
