"""TorchGeo FTW field-boundary U-Net (Sentinel-2, remote sensing) exported together with its weights'
inference transforms `K.AugmentationSequential(K.Normalize(mean=0, std=3000))`. The kornia augmentation
`forward` samples per-call params on tensors and branches on their values (`if batch_prob.sum() == 1:`,
`int(to_apply.sum().item())`, `if to_apply.all():`), and stores them on the module
(`self._params = params`). The report moves TorchGeo's inference transforms off kornia "primarily because
kornia augmentations can't be `torch.exported`"; on torch 2.13 torch.export stops with "Could not guard on
data-dependent expression" at `if batch_prob.sum() == 1:`. (kornia base class trimmed to the Normalize
path; U-Net reduced to a small encoder-decoder.)

Source: https://github.com/torchgeo/torchgeo/pull/2893
"""
from typing import Any, Dict, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-71"


def normalize(data: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    shape = data.shape
    mean = mean.to(data.device, data.dtype)
    std = std.to(data.device, data.dtype)
    if mean.shape:
        mean = mean[..., :, None]
    if std.shape:
        std = std[..., :, None]
    out: torch.Tensor = (data.view(shape[0], shape[1], -1) - mean) / std
    return out.view(shape)


class Normalize(nn.Module):
    def __init__(self, mean, std, p: float = 1.0, p_batch: float = 1.0, keepdim: bool = False) -> None:
        super().__init__()
        self.p, self.p_batch, self.keepdim = p, p_batch, keepdim
        self._params: Dict[str, torch.Tensor] = {}
        self.flags = {"mean": mean, "std": std}

    def generate_parameters(self, batch_shape: Tuple[int, ...]) -> Dict[str, torch.Tensor]:
        return {}

    def __batch_prob_generator__(self, batch_shape: Tuple[int, ...], p: float, p_batch: float) -> torch.Tensor:
        batch_prob: torch.Tensor
        if p_batch == 1:
            batch_prob = torch.zeros(1) + 1
        else:
            batch_prob = torch.zeros(1)

        if batch_prob.sum() == 1:
            elem_prob: torch.Tensor
            if p == 1:
                elem_prob = torch.zeros(batch_shape[0]) + 1
            else:
                elem_prob = torch.zeros(batch_shape[0])
            batch_prob = batch_prob * elem_prob
        else:
            batch_prob = batch_prob.repeat(batch_shape[0])
        if len(batch_prob.shape) == 2:
            return batch_prob[..., 0]
        return batch_prob

    def forward_parameters(self, batch_shape: Tuple[int, ...]) -> Dict[str, torch.Tensor]:
        batch_prob = self.__batch_prob_generator__(batch_shape, self.p, self.p_batch)
        to_apply = batch_prob > 0.5
        _params = self.generate_parameters(torch.Size((int(to_apply.sum().item()), *batch_shape[1:])))
        if _params is None:
            _params = {}
        _params["batch_prob"] = batch_prob
        # Added another input_size parameter for geometric transformations
        # This might be needed for correctly inversing.
        input_size = torch.tensor(batch_shape, dtype=torch.long)
        _params.update({"forward_input_shape": input_size})
        return _params

    def transform_inputs(self, input: torch.Tensor, params: Dict[str, torch.Tensor], flags: Dict[str, Any]) -> torch.Tensor:
        self._params = params
        batch_prob = params["batch_prob"]
        to_apply = batch_prob > 0.5  # NOTE: in case of Relaxed Distributions.
        if to_apply.all():
            output = normalize(input, flags["mean"], flags["std"])
        elif not to_apply.any():
            output = input
        else:  # If any torch.Tensor needs to be transformed.
            output = input.index_put((to_apply,), normalize(input[to_apply], flags["mean"], flags["std"]))
        return output

    def forward(self, input: torch.Tensor, params: Optional[Dict[str, torch.Tensor]] = None) -> torch.Tensor:
        batch_shape = input.shape
        if params is None:
            params = self.forward_parameters(batch_shape)
        if "batch_prob" not in params:
            params["batch_prob"] = torch.tensor([True] * batch_shape[0])
        self._params = params
        return self.transform_inputs(input, params, self.flags)


class FTWUnet(nn.Module):
    def __init__(self, in_channels=8, classes=3, width=16):
        super().__init__()
        self.transforms = nn.Sequential(Normalize(mean=torch.tensor(0.0), std=torch.tensor(3000.0)))
        self.enc1 = nn.Sequential(nn.Conv2d(in_channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU())
        self.dec = nn.Sequential(nn.Conv2d(3 * width, width, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(width, classes, 1)

    def forward(self, x):
        x = self.transforms(x)
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        up = F.interpolate(e2, size=e1.shape[-2:], mode="bilinear", align_corners=False)
        return self.head(self.dec(torch.cat([e1, up], dim=1)))


def make_model():
    return FTWUnet().eval()


def example_inputs():
    return (torch.rand(2, 8, 64, 64) * 10000,)


def other_inputs():
    return [(torch.rand(3, 8, 80, 48) * 10000,), (torch.rand(1, 8, 32, 96) * 10000,)]


def probe_inputs():
    return other_inputs()
