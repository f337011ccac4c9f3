"""Depth Anything 3 (monocular metric) exported through a wrapper that returns depth and sky: the
network's forward ends with `_process_mono_sky_estimation`, which masks out sky pixels
(`sky < 0.3`), returns early when fewer than 10 sky / non-sky pixels exist, indexes depth with the
boolean mask, draws `torch.randint(0, non_sky_depth.numel(), (100000,))` when more than 100000
pixels remain and fills the sky with the 0.99 quantile. The exporter rejects it ("SymbolicValueError:
ONNX symbolic expected a constant value of the 'high' argument, got ... onnx::ReduceProd"); the fix
commit drops the sky pass from the exported graph. (DINOv2 backbone and DPT heads reduced to a few
convs; addict.Dict replaced by a tiny attribute dict.)

Source: https://github.com/yester31/Monocular_Depth_Estimation_TRT/commit/323bc43643715394cce3e2cb0593c2093cd257e2
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-71"


class Dict(dict):
    # the few lines of addict.Dict the model uses: attribute access to keys
    def __getattr__(self, name):
        return self[name]

    def __setattr__(self, name, value):
        self[name] = value


def compute_sky_mask(sky_prediction: torch.Tensor, threshold: float = 0.3) -> torch.Tensor:
    return sky_prediction < threshold


def set_sky_regions_to_max_depth(depth, depth_conf, non_sky_mask, max_depth=200.0):
    depth = depth.clone()

    # Set sky regions to max depth and high confidence
    depth[~non_sky_mask] = max_depth
    if depth_conf is not None:
        depth_conf = depth_conf.clone()
        depth_conf[~non_sky_mask] = 1.0
        return depth, depth_conf
    return depth, None


class DepthAnything3Net(nn.Module):
    def __init__(self, dim=16, patch=14):
        super().__init__()
        self.patch = patch
        self.backbone = nn.Conv2d(3, dim, patch, stride=patch)
        self.depth_head = nn.Sequential(nn.Conv2d(dim, dim, 3, padding=1), nn.ReLU(), nn.Conv2d(dim, 1, 1))
        self.sky_head = nn.Conv2d(3, 1, patch, stride=patch)

    def _process_depth_head(self, feats, sky_logits, H, W):
        depth = F.interpolate(self.depth_head(feats), size=(H, W), mode="bilinear", align_corners=True)
        sky = F.interpolate(sky_logits, size=(H, W), mode="bilinear", align_corners=True)
        return Dict(depth=torch.exp(depth), sky=torch.sigmoid(sky))

    def forward(self, x):
        B, N = x.shape[:2]
        feats = self.backbone(x.flatten(0, 1))
        sky_logits = self.sky_head(x.flatten(0, 1))
        H, W = x.shape[-2], x.shape[-1]
        output = self._process_depth_head(feats, sky_logits, H, W)
        output = self._process_mono_sky_estimation(output)
        return output

    def _process_mono_sky_estimation(self, output):
        """Process mono sky estimation."""
        if "sky" not in output:
            return output
        non_sky_mask = compute_sky_mask(output.sky, threshold=0.3)
        if non_sky_mask.sum() <= 10:
            return output
        if (~non_sky_mask).sum() <= 10:
            return output

        non_sky_depth = output.depth[non_sky_mask]
        if non_sky_depth.numel() > 100000:
            idx = torch.randint(0, non_sky_depth.numel(), (100000,), device=non_sky_depth.device)
            sampled_depth = non_sky_depth[idx]
        else:
            sampled_depth = non_sky_depth
        non_sky_max = torch.quantile(sampled_depth, 0.99)

        # Set sky regions to maximum depth and high confidence
        output.depth, _ = set_sky_regions_to_max_depth(
            output.depth, None, non_sky_mask, max_depth=non_sky_max
        )
        return output


class DepthAnything3OnnxWrapper(nn.Module):
    """Simplified forward that takes (B, 3, H, W) and returns depth (+ sky mask if available)."""

    def __init__(self):
        super().__init__()
        self.model = DepthAnything3Net()

    def forward(self, image: torch.Tensor):
        model_in = image.unsqueeze(1)  # add single-view dimension
        with torch.no_grad():
            output = self.model(model_in)
        depth = output["depth"]  # [B, 1, H, W] for monocular models
        sky = output["sky"]
        return depth, sky


def make_model():
    return DepthAnything3OnnxWrapper().eval()


def example_inputs():
    return (torch.randn(1, 3, 126, 168),)


def other_inputs():
    return [(torch.randn(2, 3, 98, 140),), (torch.randn(3, 3, 154, 112),)]


def probe_inputs():
    return other_inputs()
