"""KonfAI (medical-image synthesis/segmentation framework) routed Network: `Network.state_dict` is overridden with a
custom signature (`@_function_network() def state_dict(self)`, returning one state dict per named sub-network), and
the export wraps the graph in `_NamedHead` that picks one `named_forward` output; the ONNX export PR notes that this
override "breaks the legacy TorchScript exporter, so the dynamo exporter is used".

Source: https://github.com/fideus-labs/KonfAI/pull/13
"""
import inspect
from collections import OrderedDict
from functools import partial
from typing import Any, Callable

import torch
from torch import nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-47"


class ModuleArgsDict(nn.Module):
    """Named module graph container with KonfAI branch routing (trimmed)."""

    class ModuleArgs:
        def __init__(self, in_branch, out_branch):
            self.in_branch = in_branch
            self.out_branch = out_branch

    def __init__(self) -> None:
        super().__init__()
        self._modulesArgs: dict[str, ModuleArgsDict.ModuleArgs] = {}

    def add_module(self, name, module, in_branch=[0], out_branch=[0]):
        super().add_module(name, module)
        self._modulesArgs[name] = ModuleArgsDict.ModuleArgs([str(v) for v in in_branch], [str(v) for v in out_branch])

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def named_forward(self, *inputs: torch.Tensor):
        if len(inputs) > 0:
            branchs: dict[str, torch.Tensor] = {}
            for i, sinput in enumerate(inputs):
                branchs[str(i)] = sinput
            out = inputs[0]
            for name, module in self.items():
                for ib in self._modulesArgs[name].in_branch:
                    if ib not in branchs:
                        branchs[ib] = inputs[0]
                if isinstance(module, ModuleArgsDict):
                    for k, out in module.named_forward(*[branchs[i] for i in self._modulesArgs[name].in_branch]):
                        yield name + "." + k, out
                    for ob in self._modulesArgs[name].out_branch:
                        branchs[ob] = out
                else:
                    out = module(*[branchs[i] for i in self._modulesArgs[name].in_branch])
                    for ob in self._modulesArgs[name].out_branch:
                        branchs[ob] = out
                    yield name, out
            del branchs

    def forward(self, *input: torch.Tensor) -> torch.Tensor:
        _v = input
        for _, _v in self.named_forward(*input):
            pass
        return _v


class Network(ModuleArgsDict):
    """Base class for KonfAI networks participating in a routed model graph."""

    def _apply_network(self, name_function, networks, key, function, *args, **kwargs) -> dict[str, object]:
        results: dict[str, object] = {}
        for module in self.values():
            if isinstance(module, Network):
                if name_function(module) not in networks:
                    networks.append(name_function(module))
                    for k, v in module._apply_network(
                        name_function, networks, key + "." + name_function(module), function, *args, **kwargs
                    ).items():
                        results.update({name_function(self) + "." + k: v})
        if len([param.name for param in list(inspect.signature(function).parameters.values()) if param.name == "key"]):
            function = partial(function, key=key)

        results[name_function(self)] = function(self, *args, **kwargs)
        return results

    def _function_network():  # type: ignore[misc]
        def _function_network_d(function: Callable):
            def new_function(self, *args, **kwargs) -> dict[str, object]:
                return self._apply_network(
                    lambda network: network.get_name(), [], self.get_name(), function, *args, **kwargs
                )

            return new_function

        return _function_network_d

    def __init__(self, name: str = "UNet") -> None:
        super().__init__()
        self.name = name

    @_function_network()
    def state_dict(self) -> dict[str, OrderedDict]:
        destination: OrderedDict[str, Any] = OrderedDict()
        local_metadata = {"version": self._version}
        self._save_to_state_dict(destination, "", False)
        for name, module in self._modules.items():
            if module is not None:
                if not isinstance(module, Network):
                    module.state_dict(destination=destination, prefix="" + name + ".", keep_vars=False)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, "", local_metadata)
            if hook_result is not None:
                destination = hook_result
        return destination

    def get_name(self) -> str:
        return self.name


class Block(ModuleArgsDict):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.add_module("Conv", nn.Conv2d(in_channels, out_channels, 3, padding=1))
        self.add_module("Norm", nn.InstanceNorm2d(out_channels, affine=True))
        self.add_module("Act", nn.LeakyReLU(0.01))


class Concat(nn.Module):
    def forward(self, a, b):
        return torch.cat([a, b], dim=1)


class SmallUNet(Network):
    """A two-level U-Net written as a KonfAI routed graph (skip connection through branch 1)."""

    def __init__(self):
        super().__init__(name="UNet")
        self.add_module("Enc0", Block(1, 8), in_branch=[0], out_branch=[1])
        self.add_module("Down", nn.MaxPool2d(2), in_branch=[1], out_branch=[0])
        self.add_module("Enc1", Block(8, 16), in_branch=[0], out_branch=[0])
        self.add_module("Up", nn.Upsample(scale_factor=2, mode="nearest"), in_branch=[0], out_branch=[0])
        self.add_module("Cat", Concat(), in_branch=[0, 1], out_branch=[0])
        self.add_module("Dec0", Block(24, 8), in_branch=[0], out_branch=[0])
        self.add_module("Head", nn.Conv2d(8, 1, 1), in_branch=[0], out_branch=[0])
        self.add_module("Tanh", nn.Tanh(), in_branch=[0], out_branch=[0])


class _NamedHead(torch.nn.Module):
    """Wrap a routed KonfAI graph to return a single named output tensor."""

    def __init__(self, net: torch.nn.Module, output_module: str) -> None:
        super().__init__()
        self.net = net
        self.output_module = output_module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = x
        for name, tensor in self.net.named_forward(x):
            if name == self.output_module:
                out = tensor
        return out


def make_model():
    return _NamedHead(SmallUNet(), "Tanh").eval()


def example_inputs():
    return (torch.randn(2, 1, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 1, 32, 32),), (torch.randn(1, 1, 32, 32),)]


def probe_inputs():
    return other_inputs()
