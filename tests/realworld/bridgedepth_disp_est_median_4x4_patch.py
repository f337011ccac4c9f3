"""BridgeDepth stereo: the stage-0 disparity (argmax-selected hypothesis per pixel) is grouped into
4x4 patches and reduced with `torch.median(..., dim=-1, keepdim=True)` to seed stage 1; the authors
had to replace that median with `torch.sort(...)[0][..., 7:8]` "for onnx export" (aten::median does
not export).

Source: https://github.com/aeolusguan/BridgeDepth/blob/8ebee3a92a32b5774ebbc7d004c1c75ef2460d4e/bridgedepth/bridgedepth.py
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"disp_0": {0: "batch", 1: "height", 2: "width"}, "logit": {0: "batch", 1: "height", 2: "width"}}
BLIND = "operators-29"


def patchify(x, hs=4, ws=4):
    # einops: rearrange(x, 'b (h hs) (w ws) -> b h w (hs ws)', hs=4, ws=4)
    b, H, W = x.shape
    x = x.reshape(b, H // hs, hs, W // ws, ws).permute(0, 1, 3, 2, 4)
    return x.reshape(b, H // hs, W // ws, hs * ws)


def unpatchify(x, hs=4, ws=4):
    # einops: rearrange(x, 'b h w (hs ws) -> b (h hs) (w ws)', hs=4)
    b, h, w, _ = x.shape
    x = x.reshape(b, h, w, hs, ws).permute(0, 1, 3, 2, 4)
    return x.reshape(b, h * hs, w * ws)


class BridgeDepthStage1Seed(nn.Module):
    def __init__(self):
        super().__init__()
        self.refine_head = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16))

    def forward(self, disp_0, logit):
        # disp_0, logit: [B, H, W, N] per-pixel disparity hypotheses and their scores
        _, indices = torch.max(logit, dim=-1, keepdim=True)
        disp_est = torch.gather(disp_0, dim=-1, index=indices).squeeze(-1).detach() * 2  # [B,H,W]
        disp_est = patchify(disp_est, hs=4, ws=4)
        disp_patch = disp_est
        disp_est = torch.median(disp_est.detach(), dim=-1, keepdim=True)[0]
        disp_update = self.refine_head(disp_patch - disp_est)
        disp_1 = F.relu(disp_est + disp_update)
        return unpatchify(disp_1, hs=4, ws=4) * 4


def make_model():
    return BridgeDepthStage1Seed()


def example_inputs():
    return (torch.rand(2, 32, 48, 4) * 64, torch.randn(2, 32, 48, 4))


def other_inputs():
    return [
        (torch.rand(3, 40, 24, 4) * 64, torch.randn(3, 40, 24, 4)),
        (torch.rand(1, 16, 64, 4) * 64, torch.randn(1, 16, 64, 4)),
    ]


def probe_inputs():
    return other_inputs()
