"""Mistral 3 / Ministral 3 vision path (transformers): the Pixtral tower crops each image's patch grid with
`image_sizes`, `Mistral3PatchMerger` loops `for image_size in image_sizes` to compute per-image (h, w) and
`tokens_per_image`, and `get_image_features` builds `split_sizes` with a list comprehension over `image_sizes`
before `torch.split`. The per-image sizes come from tensor values, so torch.export fails on data-dependent
sizes; the upstream PR rewrote the loop with torch ops "to make Ministral 3, Llava, etc. torch exportable".
(Vision transformer trimmed to the patch conv + norm.)

Source: https://github.com/huggingface/transformers/pull/42822
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {2: "height", 3: "width"}}
BLIND = "domains-35"


class Mistral3RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class PixtralVisionModel(nn.Module):
    def __init__(self, hidden_size=16, patch_size=4):
        super().__init__()
        self.patch_size = patch_size
        self.patch_conv = nn.Conv2d(3, hidden_size, kernel_size=patch_size, stride=patch_size, bias=False)
        self.ln_pre = Mistral3RMSNorm(hidden_size, eps=1e-5)

    def forward(self, pixel_values, image_sizes):
        patch_embeds = self.patch_conv(pixel_values)
        patch_embeds_list = [
            embed[..., : (size[0] // self.patch_size), : (size[1] // self.patch_size)]
            for embed, size in zip(patch_embeds, image_sizes)
        ]
        patch_embeds = torch.cat([p.flatten(1).T for p in patch_embeds_list], dim=0).unsqueeze(0)
        return self.ln_pre(patch_embeds)


class Mistral3PatchMerger(nn.Module):
    def __init__(self, hidden_size=16, spatial_merge_size=2, patch_size=4):
        super().__init__()
        self.spatial_merge_size = spatial_merge_size
        self.patch_size = patch_size
        self.merging_layer = nn.Linear(hidden_size * self.spatial_merge_size**2, hidden_size, bias=False)

    def forward(self, image_features: torch.Tensor, image_sizes: torch.Tensor) -> torch.Tensor:
        image_sizes = [
            (image_size[0] // self.patch_size, image_size[1] // self.patch_size) for image_size in image_sizes
        ]

        tokens_per_image = [h * w for h, w in image_sizes]
        d = image_features.shape[-1]

        permuted_tensor = []
        for image_index, image_tokens in enumerate(image_features.split(tokens_per_image)):
            # Reshape image_tokens into a 2D grid
            h, w = image_sizes[image_index]
            image_grid = image_tokens.view(h, w, d).permute(2, 0, 1).unsqueeze(0)
            grid = torch.nn.functional.unfold(
                image_grid, kernel_size=self.spatial_merge_size, stride=self.spatial_merge_size
            )
            grid = grid.view(d * self.spatial_merge_size**2, -1).t()
            permuted_tensor.append(grid)

        image_features = torch.cat(permuted_tensor, dim=0)
        image_features = self.merging_layer(image_features)
        return image_features


class Mistral3MultiModalProjector(nn.Module):
    def __init__(self, hidden_size=16, text_hidden_size=24):
        super().__init__()
        self.norm = Mistral3RMSNorm(hidden_size)
        self.patch_merger = Mistral3PatchMerger(hidden_size)
        self.linear_1 = nn.Linear(hidden_size, text_hidden_size, bias=False)
        self.act = nn.GELU()
        self.linear_2 = nn.Linear(text_hidden_size, text_hidden_size, bias=False)

    def forward(self, image_features: torch.Tensor, image_sizes: torch.Tensor):
        image_features = self.norm(image_features)
        image_features = self.patch_merger(image_features, image_sizes)
        hidden_states = self.linear_1(image_features)
        hidden_states = self.act(hidden_states)
        hidden_states = self.linear_2(hidden_states)
        return hidden_states


class Mistral3ImageFeatures(nn.Module):
    def __init__(self, spatial_merge_size=2):
        super().__init__()
        self.spatial_merge_size = spatial_merge_size
        self.vision_tower = PixtralVisionModel()
        self.multi_modal_projector = Mistral3MultiModalProjector()

    def forward(self, pixel_values, image_sizes):
        selected_image_feature = self.vision_tower(pixel_values, image_sizes)
        image_features = self.multi_modal_projector(selected_image_feature.squeeze(0), image_sizes)
        downsample_ratio = self.vision_tower.patch_size * self.spatial_merge_size
        split_sizes = [(height // downsample_ratio) * (width // downsample_ratio) for height, width in image_sizes]
        image_features = torch.split(image_features.squeeze(0), split_sizes)
        return torch.cat(image_features, dim=0)


def make_model():
    return Mistral3ImageFeatures().eval()


def _inputs(h, w):
    return torch.randn(1, 3, h, w), torch.tensor([[h, w]])


def example_inputs():
    return _inputs(32, 48)


def other_inputs():
    return [_inputs(40, 24), _inputs(16, 64)]


def probe_inputs():
    return other_inputs()
