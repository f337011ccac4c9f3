"""kornia AugmentationSequential/ImageSequential (e.g. Resize + Normalize preprocessing, as TorchGeo uses it)
exported with torch.export: `forward_parameters` tracks the batch shape through `_get_new_batch_shape`, which
reads `batch_prob.item()` and builds a `torch.Size` from the sampled `output_size` tensor (both unbacked under
export), and the container stores `self._params = params` in forward; the PR skips both under export.
(Resize/Normalize and their parameter generators reduced to the fields the shape tracking reads; F.interpolate
stands in for kornia's resize.)

Source: https://github.com/kornia/kornia/pull/3858
"""
from typing import Dict, List, NamedTuple, Optional, Tuple, Union

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "item-assigned"
FAMILY = "tensor_data"
DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-56"


class ParamItem(NamedTuple):
    name: str
    data: Optional[Union[dict, list]]


class _AugmentationBase(nn.Module):
    def __init__(self, p: float = 1.0, p_batch: float = 1.0, same_on_batch: bool = False) -> None:
        super().__init__()
        self.p = p
        self.p_batch = p_batch
        self.same_on_batch = same_on_batch
        self.device, self.dtype = None, torch.float32
        self.flags: Dict = {}

    def __batch_prob_generator__(self, batch_shape, p: float, p_batch: float, same_on_batch: bool) -> torch.Tensor:
        if p_batch == 1:
            batch_prob = torch.ones(1, device=self.device, dtype=self.dtype)
        else:
            batch_prob = (torch.rand(1, device=self.device) < p_batch).to(self.dtype)
        if p == 1:
            elem_prob = torch.ones(batch_shape[0], device=self.device, dtype=self.dtype)
        else:
            elem_prob = (torch.rand(batch_shape[0], device=self.device) < p).to(self.dtype)
        batch_prob = batch_prob * elem_prob
        return batch_prob

    def generate_parameters(self, batch_shape) -> Dict[str, torch.Tensor]:
        return {}

    def forward_parameters(self, batch_shape: Tuple[int, ...]) -> Dict[str, torch.Tensor]:
        batch_prob = self.__batch_prob_generator__(batch_shape, self.p, self.p_batch, self.same_on_batch)
        _params = self.generate_parameters(batch_shape)
        if _params is None:
            _params = {}
        _params["batch_prob"] = batch_prob
        input_size = torch.tensor(batch_shape, dtype=torch.long)
        _params.update({"forward_input_shape": input_size})
        return _params

    def forward(self, input: torch.Tensor, params: Optional[Dict[str, torch.Tensor]] = None) -> torch.Tensor:
        if params is None:
            params = self.forward_parameters(input.shape)
        return self.apply_transform(input, params, self.flags)


class Resize(_AugmentationBase):
    def __init__(self, size: Tuple[int, int], p: float = 1.0) -> None:
        super().__init__(p=1.0, p_batch=p, same_on_batch=True)
        self.output_size = size
        self.flags = {"size": size}

    def generate_parameters(self, batch_shape) -> Dict[str, torch.Tensor]:
        batch_size = batch_shape[0]
        input_size = (batch_shape[-2], batch_shape[-1])
        output_size = self.output_size
        _input_size = torch.tensor(input_size, device=self.device, dtype=torch.long).expand(batch_size, -1)
        _output_size = torch.tensor(output_size, device=self.device, dtype=torch.long).expand(batch_size, -1)
        return {"input_size": _input_size, "output_size": _output_size}

    def apply_transform(self, input, params, flags):
        out_size: Tuple[int, int] = (int(flags["size"][0]), int(flags["size"][1]))
        return F.interpolate(input, out_size, mode="bilinear", align_corners=False)


class Normalize(_AugmentationBase):
    def __init__(self, mean, std) -> None:
        super().__init__(p=1.0)
        self.flags = {"mean": torch.tensor(mean).view(1, -1, 1, 1), "std": torch.tensor(std).view(1, -1, 1, 1)}

    def apply_transform(self, input, params, flags):
        return (input - flags["mean"]) / flags["std"]


def _get_new_batch_shape(param: ParamItem, batch_shape: torch.Size) -> torch.Size:
    data = param.data
    if data is None:
        return batch_shape
    if isinstance(data, list):
        for p in data:
            batch_shape = _get_new_batch_shape(p, batch_shape)
        return batch_shape
    if "output_size" in data:
        batch_prob = data.get("batch_prob", None)
        if batch_prob is not None:
            prob = batch_prob.item() if batch_prob.numel() == 1 else batch_prob[0].item()
            if prob <= 0.5:
                return batch_shape
        else:
            return batch_shape
        new_batch_shape = list(batch_shape)
        new_batch_shape[-2:] = data["output_size"][0]
        return torch.Size(new_batch_shape)
    return batch_shape


class ImageSequential(nn.Sequential):
    def forward_parameters(self, batch_shape: torch.Size) -> List[ParamItem]:
        params: List[ParamItem] = []
        for name, module in self.named_children():
            if isinstance(module, _AugmentationBase):
                mod_param = module.forward_parameters(batch_shape)
                param = ParamItem(name, mod_param)
            else:
                param = ParamItem(name, None)
            batch_shape = _get_new_batch_shape(param, batch_shape)
            params.append(param)
        return params

    def forward(self, input: torch.Tensor, params: Optional[List[ParamItem]] = None) -> torch.Tensor:
        if params is None:
            params = self.forward_parameters(input.shape)
        for param in params:
            module = self._modules[param.name]
            input = module(input, params=param.data) if isinstance(module, _AugmentationBase) else module(input)
        self._params = params
        return input


def make_model():
    return ImageSequential(
        Resize((64, 64)),
        Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ).eval()


def example_inputs():
    return (torch.rand(2, 3, 96, 128),)


def other_inputs():
    return [(torch.rand(3, 3, 120, 90),), (torch.rand(1, 3, 50, 70),)]


def probe_inputs():
    return other_inputs()
