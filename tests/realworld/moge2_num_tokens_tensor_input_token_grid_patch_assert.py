"""MoGe-2 (monocular geometry: point map, normal, mask and metric scale) exported with the ViT token
budget `num_tokens` as a second graph input (`torch.tensor(1800, dtype=torch.int32)`): the model
derives its token grid from it (`base_h, base_w = (num_tokens / aspect_ratio) ** 0.5, ...` then
`.round().long()`), resizes the image to that grid and the DINOv2 patch embedding asserts
`H % patch_H == 0`; with a runtime value the grid is an unbacked symbol and the dynamo export dies with
"GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(Mod(u0, 14), 0)". The fix
commit passes num_tokens as a plain Python int instead. (DINOv2 ViT-S reduced to a patch embedding and
two 1x1 blocks, the conv neck/heads to single convs, 2 pyramid levels instead of 5.)

Source: https://github.com/yester31/Monocular_Depth_Estimation_TRT/commit/001424b42c251914681c4dec1a2055d091e6970b
"""
from typing import Dict, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-71"


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


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=14, in_chans=3, embed_dim=32):
        super().__init__()
        self.patch_size = (patch_size, patch_size)
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.norm = nn.Identity()

    def forward(self, x):
        _, _, H, W = x.shape
        patch_H, patch_W = self.patch_size

        assert H % patch_H == 0, f"Input image height {H} is not a multiple of patch height {patch_H}"
        assert W % patch_W == 0, f"Input image width {W} is not a multiple of patch width: {patch_W}"

        x = self.proj(x)  # B C H W
        H, W = x.size(2), x.size(3)
        x = x.flatten(2).transpose(1, 2)  # B HW C
        x = self.norm(x)
        return x


class DINOv2Encoder(nn.Module):
    def __init__(self, dim_features=32, dim_out=16, num_features=2):
        super().__init__()
        self.onnx_compatible_mode = False
        self.patch_embed = PatchEmbed(embed_dim=dim_features)
        self.blocks = nn.ModuleList([nn.Linear(dim_features, dim_features) for _ in range(num_features)])
        self.output_projections = nn.ModuleList([
            nn.Conv2d(in_channels=dim_features, out_channels=dim_out, kernel_size=1, stride=1, padding=0,)
                for _ in range(num_features)
        ])
        self.register_buffer("image_mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("image_std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def get_intermediate_layers(self, x):
        x = self.patch_embed(x)
        outputs = []
        for blk in self.blocks:
            x = x + F.gelu(blk(x))
            outputs.append((x, x.mean(dim=1)))
        return outputs

    def forward(self, image, token_rows, token_cols, return_class_token=False):
        image_14 = F.interpolate(image, (token_rows * 14, token_cols * 14), mode="bilinear", align_corners=False, antialias=not self.onnx_compatible_mode)
        image_14 = (image_14 - self.image_mean) / self.image_std

        # Get intermediate layers from the backbone
        features = self.get_intermediate_layers(image_14)

        # Project features to the desired dimensionality
        x = torch.stack([
            proj(feat.permute(0, 2, 1).unflatten(2, (token_rows, token_cols)).contiguous())
                for proj, (feat, clstoken) in zip(self.output_projections, features)
        ], dim=1).sum(dim=1)

        if return_class_token:
            return x, features[-1][1]
        return x


class MoGeModel(nn.Module):
    def __init__(self, dim=16, levels=2):
        super().__init__()
        self.levels = levels
        self.encoder = DINOv2Encoder(dim_out=dim)
        self.neck = nn.ModuleList([nn.Conv2d(dim + 2 if l == 0 else 2, dim, 3, padding=1) for l in range(levels)])
        self.points_head = nn.Conv2d(dim, 3, 3, padding=1)
        self.normal_head = nn.Conv2d(dim, 3, 3, padding=1)
        self.mask_head = nn.Conv2d(dim, 1, 3, padding=1)
        self.scale_head = nn.Linear(32, 1)

    def forward(self, image: torch.Tensor, num_tokens: Union[int, torch.LongTensor]) -> Dict[str, torch.Tensor]:
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

        # Shared neck (reduced): coarse-to-fine conv + upsample
        x = self.neck[0](features[0])
        for level in range(1, self.levels):
            x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False) + self.neck[level](features[level])

        points, normal, mask = self.points_head(x), self.normal_head(x), self.mask_head(x)
        metric_scale = self.scale_head(cls_token)

        # Resize
        points, normal, mask = (F.interpolate(v, (img_h, img_w), mode='bilinear', align_corners=False, antialias=False) if v is not None else None for v in [points, normal, mask])

        points = points.permute(0, 2, 3, 1)
        normal = F.normalize(normal.permute(0, 2, 3, 1), dim=-1)
        mask = mask.squeeze(1).sigmoid()
        metric_scale = metric_scale.squeeze(1).exp()
        return {'points': points, 'normal': normal, 'mask': mask, 'metric_scale': metric_scale}


class MoGeModelWrapper(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = MoGeModel()

    def forward(self, image: torch.Tensor, num_tokens: torch.Tensor):
        original_interpolate = F.interpolate

        def safe_interpolate(*args, **kwargs):
            kwargs['antialias'] = False
            return original_interpolate(*args, **kwargs)

        F.interpolate = safe_interpolate
        try:
            out = self.model(image, num_tokens)
        finally:
            F.interpolate = original_interpolate

        return out['points'], out['normal'], out['mask'], out['metric_scale']


def make_model():
    return MoGeModelWrapper().eval()


def example_inputs():
    return (torch.rand(1, 3, 96, 128), torch.tensor(48, dtype=torch.int32))


def other_inputs():
    return [
        (torch.rand(2, 3, 120, 100), torch.tensor(64, dtype=torch.int32)),
        (torch.rand(3, 3, 72, 160), torch.tensor(40, dtype=torch.int32)),
    ]


def probe_inputs():
    return other_inputs()
