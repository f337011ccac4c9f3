"""DeDoDe keypoint detector: `detect` softmaxes the keypoint logits and calls `sample_keypoints`, which builds the
normalized pixel grid with `get_grid(B, H, W)` -- `torch.meshgrid(*[torch.linspace(-1 + 1 / n, 1 - 1 / n, n)
for n in (B, H, W)])` from the score-map size -- and picks the top-k with `grid[torch.arange(B)[:, None], inds]`.
The DeDoDe-ONNX-TensorRT port ("Support ONNX & TensorRT") had to rewrite this sampling (gather instead of the
arange indexing, explicit meshgrid indexing, sampling moved into forward) to get an exportable detector.

Source: https://github.com/fabio-sim/DeDoDe-ONNX-TensorRT/pull/2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image": {2: "height", 3: "width"}}
BLIND = "domains-41"


def get_best_device():
    return torch.device("cpu")


def get_grid(B, H, W, device=get_best_device()):
    x1_n = torch.meshgrid(
        *[
            torch.linspace(
                -1 + 1 / n, 1 - 1 / n, n, device=device
            )
            for n in (B, H, W)
        ]
    )
    x1_n = torch.stack((x1_n[2], x1_n[1]), dim=-1).reshape(B, H * W, 2)
    return x1_n


def sample_keypoints(scoremap, num_samples=8192, device=get_best_device(), use_nms=True,
                     sample_topk=False, return_scoremap=False, sharpen=False, upsample=False,
                     increase_coverage=False, remove_borders=False):
    log_scoremap = (scoremap + 1e-10).log()
    if upsample:
        log_scoremap = F.interpolate(log_scoremap[:, None], scale_factor=3, mode="bicubic", align_corners=False)[:, 0]
        scoremap = log_scoremap.exp()
    B, H, W = scoremap.shape
    if increase_coverage:
        weights = (-torch.linspace(-2, 2, steps=51, device=device)**2).exp()[None, None]
        # 10000 is just some number for maybe numerical stability, who knows. :), result is invariant anyway
        local_density_x = F.conv2d((scoremap[:, None] + 1e-6) * 10000, weights[..., None, :], padding=(0, 51 // 2))
        local_density = F.conv2d(local_density_x, weights[..., None], padding=(51 // 2, 0))[:, 0]
        scoremap = scoremap * (local_density + 1e-8)**(-1 / 2)
    grid = get_grid(B, H, W, device=device).reshape(B, H * W, 2)
    if use_nms:
        scoremap = scoremap * (scoremap == F.max_pool2d(scoremap, (3, 3), stride=1, padding=1))
    if sample_topk:
        inds = torch.topk(scoremap.reshape(B, H * W), k=num_samples).indices
    else:
        inds = torch.multinomial(scoremap.reshape(B, H * W), num_samples=num_samples, replacement=False)
    kps = grid[torch.arange(B, device=device)[:, None], inds]
    if return_scoremap:
        return kps, torch.gather(scoremap.reshape(B, H * W), dim=1, index=inds)
    return kps


class Encoder(nn.Module):
    # stand-in for the VGG19-BN encoder: features before each max-pool and their sizes
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        ])

    def forward(self, x):
        feats = []
        sizes = []
        for layer in self.layers:
            if isinstance(layer, nn.MaxPool2d):
                feats.append(x)
                sizes.append(x.shape[-2:])
            x = layer(x)
        return feats, sizes


class Decoder(nn.Module):
    def __init__(self, layers, num_prototypes=1):
        super().__init__()
        self.layers = layers
        self.num_prototypes = num_prototypes

    def forward(self, features, context=None, scale=None):
        if context is not None:
            features = torch.cat((features, context), dim=1)
        stuff = self.layers[scale](features)
        logits, context = stuff[:, :self.num_prototypes], stuff[:, self.num_prototypes:]
        return logits, context


class DeDoDeDetector(nn.Module):
    def __init__(self, num_keypoints=64):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder(nn.ModuleDict({
            "8": nn.Conv2d(32, 1 + 8, 3, padding=1),
            "4": nn.Conv2d(16 + 8, 1 + 8, 3, padding=1),
            "2": nn.Conv2d(16 + 8, 1 + 8, 3, padding=1),
            "1": nn.Conv2d(8 + 8, 1 + 8, 3, padding=1),
        }))
        self.num_keypoints = num_keypoints

    def forward(self, image):
        features, sizes = self.encoder(image)
        logits = 0
        context = None
        scales = ["8", "4", "2", "1"]
        for idx, (feature_map, scale) in enumerate(zip(reversed(features), scales)):
            delta_logits, context = self.decoder(feature_map, context=context, scale=scale)
            logits = logits + delta_logits.float()
            if idx < len(scales) - 1:
                size = sizes[-(idx + 2)]
                logits = F.interpolate(logits, size=size, mode="bicubic", align_corners=False)
                context = F.interpolate(context.float(), size=size, mode="bilinear", align_corners=False)

        # detect()
        B, K, H, W = logits.shape
        keypoint_p = logits.reshape(B, K * H * W).softmax(dim=-1).reshape(B, K, H * W).sum(dim=1)
        keypoints, confidence = sample_keypoints(keypoint_p.reshape(B, H, W),
                                                 use_nms=False, sample_topk=True, num_samples=self.num_keypoints,
                                                 return_scoremap=True, sharpen=False, upsample=False,
                                                 increase_coverage=True)
        return keypoints, confidence


def make_model():
    return DeDoDeDetector().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 80),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 64),), (torch.randn(1, 3, 48, 112),)]


def probe_inputs():
    return other_inputs()
