"""waifu2x (nunif) test-time augmentation for the onnxruntime-web build: `tta_split` makes the 8 views of a
tile (h/v flips and `torch.rot90(x, 1, (1, 2))` transposes), the denoiser runs on the batch of views and
`tta_merge` undoes them with `torch.rot90(x, -1, (1, 2))` and averages.  When the ONNX TTA helper models were
added, the 8-view level was left out: "tta_level=8 is not supported due to rot90 is not supported" (the
TorchScript exporter has no symbolic for `aten::rot90`).  (The waifu2x CNN is reduced to a small conv stand-in.)

Source: https://github.com/nagadomi/nunif/commit/16274febda48b9693788a0ca8c48af873c75cb76
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {1: "size", 2: "size"}}
BLIND = "operators-42"


def _hflip(x):
    return torch.flip(x, (2,))


def _vflip(x):
    return torch.flip(x, (1,))


def _tr_f(x):
    return torch.rot90(x, 1, (1, 2))


def _itr_f(x):
    return torch.rot90(x, -1, (1, 2))


def tta_split(x):
    assert (isinstance(x, torch.Tensor) and x.dim() == 3)
    x_hflip = _hflip(x)
    x_vflip = _vflip(x)
    x_vflip_hflip = _hflip(x_vflip)
    x_tr = _tr_f(x)
    x_tr_hflip = _hflip(x_tr)
    x_tr_vflip = _vflip(x_tr)
    x_tr_vflip_hflip = _hflip(x_tr_vflip)

    return (x, x_hflip, x_vflip, x_vflip_hflip,
            x_tr, x_tr_hflip, x_tr_vflip, x_tr_vflip_hflip)


def tta_merge(xs):
    (x, x_hflip, x_vflip, x_vflip_hflip,
     x_tr, x_tr_hflip, x_tr_vflip, x_tr_vflip_hflip) = xs

    avg = x.clone()
    avg += _hflip(x_hflip)
    avg += _vflip(x_vflip)
    avg += _vflip(_hflip(x_vflip_hflip))
    avg += _itr_f(x_tr)
    avg += _itr_f(_hflip(x_tr_hflip))
    avg += _itr_f(_vflip(x_tr_vflip))
    avg += _itr_f(_vflip(_hflip(x_tr_vflip_hflip)))
    avg *= 1 / 8.0

    return torch.clamp_(avg, 0, 1)


class Denoiser(nn.Module):
    # stand-in for the waifu2x 1x (noise) model
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1), nn.LeakyReLU(0.1), nn.Conv2d(16, 3, 3, 1, 1))

    def forward(self, x):
        return torch.clamp(x + self.body(x), 0., 1.)


class TTA8(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        xs = tta_split(x)
        z = self.model(torch.stack(xs, dim=0))
        return tta_merge(z.unbind(0))


def make_model():
    return TTA8(Denoiser()).eval()


def example_inputs():
    return (torch.rand(3, 64, 64),)


def other_inputs():
    return [(torch.rand(3, 48, 48),), (torch.rand(3, 80, 80),)]


def probe_inputs():
    return other_inputs()
