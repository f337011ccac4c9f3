"""RoMa v2's "precise" setting takes the 1280x1280 pair and derives the 800x800 low-res pass in-graph
with `F.interpolate(..., mode="bicubic", align_corners=False, antialias=True)` (as `RoMaV2.match` does);
the antialiased bicubic downscale could not be kept as an exported resize (the ONNX port replaced it
with a hand-built constant-tap gather after the Resize(antialias=1) path produced wrong pixels).

Source: https://github.com/ilanmotiei/romav2-onnx/pull/8
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img_A": {0: "batch"}, "img_B": {0: "batch"}}
BLIND = "operators-20"


class PreciseRoMaV2(nn.Module):
    """Stand-in for the RoMa v2 precise pipeline: coarse features on the low-res pass,
    fine features on the high-res pass (the 1280 -> 800 ratio kept, 64 -> 40 here)."""

    def __init__(self, H_lr=40, W_lr=40, H_hr=64, W_hr=64):
        super().__init__()
        self.H_lr, self.W_lr, self.H_hr, self.W_hr = H_lr, W_lr, H_hr, W_hr
        self.coarse = nn.Conv2d(3, 16, kernel_size=8, stride=8)
        self.fine = nn.Conv2d(3, 8, kernel_size=3, padding=1)

    def forward(self, img_A, img_B):
        img_A_lr = F.interpolate(
            img_A,
            size=(self.H_lr, self.W_lr),
            mode="bicubic",
            align_corners=False,
            antialias=True,
        )
        img_B_lr = F.interpolate(
            img_B,
            size=(self.H_lr, self.W_lr),
            mode="bicubic",
            align_corners=False,
            antialias=True,
        )
        f_A = self.coarse(img_A_lr).flatten(2)
        f_B = self.coarse(img_B_lr).flatten(2)
        corr = torch.einsum("bcn,bcm->bnm", f_A, f_B) / f_A.shape[1] ** 0.5
        fine_A = self.fine(img_A)
        fine_B = self.fine(img_B)
        return corr.softmax(dim=-1), fine_A, fine_B


def make_model():
    return PreciseRoMaV2().eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 64), torch.rand(1, 3, 64, 64))


def other_inputs():
    return [
        (torch.rand(2, 3, 64, 64), torch.rand(2, 3, 64, 64)),
        (torch.rand(3, 3, 64, 64), torch.rand(3, 3, 64, 64)),
    ]


def probe_inputs():
    return other_inputs()
