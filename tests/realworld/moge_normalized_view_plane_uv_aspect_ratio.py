"""MoGe (monocular geometry on a DINOv2 backbone): `forward` derives `aspect_ratio = img_w / img_h` and the token
grid `base_h, base_w = round((num_tokens / aspect_ratio) ** 0.5), ...` in Python from the image size, then builds the
UV encodings with `normalized_view_plane_uv` (`torch.linspace` over Python-float spans) for every level; the
maintainers' ONNX tracking issue says these on-the-fly UV encodings "introduce large constant tensors" and the
untraceable shape induction keeps the export from supporting dynamic image sizes.

Source: https://github.com/microsoft/MoGe/issues/83
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-21"


def normalized_view_plane_uv(width: int, height: int, aspect_ratio: float = None, dtype: torch.dtype = None, device: torch.device = None) -> torch.Tensor:
    "UV with left-top corner as (-width / diagonal, -height / diagonal) and right-bottom corner as (width / diagonal, height / diagonal)"
    if aspect_ratio is None:
        aspect_ratio = width / height

    span_x = aspect_ratio / (1 + aspect_ratio ** 2) ** 0.5
    span_y = 1 / (1 + aspect_ratio ** 2) ** 0.5

    u = torch.linspace(-span_x * (width - 1) / width, span_x * (width - 1) / width, width, dtype=dtype, device=device)
    v = torch.linspace(-span_y * (height - 1) / height, span_y * (height - 1) / height, height, dtype=dtype, device=device)
    u, v = torch.meshgrid(u, v, indexing='xy')
    uv = torch.stack([u, v], dim=-1)
    return uv


class DINOv2Encoder(nn.Module):
    # stand-in for the DINOv2 ViT: patch-14 embedding at the requested token grid + 1x1 output projection
    def __init__(self, dim_features=32, dim_out=16):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim_features, kernel_size=14, stride=14)
        self.output_projection = nn.Conv2d(dim_features, dim_out, kernel_size=1)
        self.register_buffer("image_mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("image_std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, image, token_rows, token_cols, return_class_token=False):
        image_14 = F.interpolate(image, (token_rows * 14, token_cols * 14), mode="bilinear", align_corners=False)
        image_14 = (image_14 - self.image_mean) / self.image_std
        feat = self.patch_embed(image_14)
        x = self.output_projection(feat)
        cls_token = feat.mean(dim=(2, 3))
        return x, cls_token


class MoGeModel(nn.Module):
    def __init__(self, dim=16, levels=3):
        super().__init__()
        self.levels = levels
        self.encoder = DINOv2Encoder(dim_out=dim)
        self.input_blocks = nn.ModuleList([nn.Conv2d(dim + 2 if i == 0 else 2, dim, 1) for i in range(levels)])
        self.resamplers = nn.ModuleList([nn.Upsample(scale_factor=2, mode='bilinear', align_corners=False) for _ in range(levels - 1)])
        self.points_head = nn.Conv2d(dim, 3, 3, padding=1)

    def forward(self, image: torch.Tensor, num_tokens: int = 48):
        batch_size, _, img_h, img_w = image.shape
        device, dtype = image.device, image.dtype

        aspect_ratio = img_w / img_h
        base_h, base_w = (num_tokens / aspect_ratio) ** 0.5, (num_tokens * aspect_ratio) ** 0.5
        if isinstance(base_h, torch.Tensor):
            base_h, base_w = base_h.round().long(), base_w.round().long()
        else:
            base_h, base_w = round(base_h), round(base_w)

        # Backbones encoding
        features, cls_token = self.encoder(image, base_h, base_w, return_class_token=True)
        features = [features] + [None] * (self.levels - 1)

        # Concat UVs for aspect ratio input
        for level in range(self.levels):
            uv = normalized_view_plane_uv(width=base_w * 2 ** level, height=base_h * 2 ** level, aspect_ratio=aspect_ratio, dtype=dtype, device=device)
            uv = uv.permute(2, 0, 1).unsqueeze(0).expand(batch_size, -1, -1, -1)
            if features[level] is None:
                features[level] = uv
            else:
                features[level] = torch.concat([features[level], uv], dim=1)

        # Shared neck (stand-in for ConvStack)
        x = None
        for i in range(self.levels):
            feature = self.input_blocks[i](features[i])
            x = feature if x is None else x + feature
            if i < self.levels - 1:
                x = self.resamplers[i](x)
        points = self.points_head(x)

        # Resize
        points = F.interpolate(points, (img_h, img_w), mode='bilinear', align_corners=False, antialias=False)
        return points.permute(0, 2, 3, 1)


def make_model():
    return MoGeModel().eval()


def example_inputs():
    return (torch.rand(1, 3, 120, 160),)


def other_inputs():
    return [(torch.rand(2, 3, 160, 96),), (torch.rand(3, 3, 100, 200),)]


def probe_inputs():
    return other_inputs()
