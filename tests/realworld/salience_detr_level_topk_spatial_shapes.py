"""Salience-DETR's transformer filters encoder tokens level by level: `spatial_shapes` is a tensor built from the
feature-map sizes (`operators.shape_as_tensor` when tracing), the loop upsamples the previous level's score with
`size=spatial_shapes[level_idx].unbind()`, reshapes with `view(batch_size, -1, *spatial_shapes[level_idx])`, and keeps
`topk(level_token_nums[level_idx])` tokens where the count comes from the mask values; the export prints
TracerWarnings on these lines and the exported model's results are not right.

Source: https://github.com/xiuqhou/Salience-DETR/issues/62
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-7"


def _is_tracing():
    # torchvision._is_tracing
    return torch._C._get_tracing_state()


class SalienceTransformer(nn.Module):
    def __init__(self, embed_dim=32, num_feature_levels=3, level_filter_ratio=(0.25, 0.5, 1.0)):
        super().__init__()
        self.register_buffer("level_filter_ratio", torch.Tensor(level_filter_ratio))
        self.level_embeds = nn.Parameter(torch.randn(num_feature_levels, embed_dim))
        self.enc_mask_predictor = nn.Sequential(nn.Linear(embed_dim, embed_dim), nn.ReLU(), nn.Linear(embed_dim, 1))
        self.alpha = nn.Parameter(torch.Tensor(num_feature_levels), requires_grad=True)
        self.alpha.data.uniform_(-0.3, 0.3)

    @staticmethod
    def flatten_multi_level(multi_level_elements):
        multi_level_elements = torch.cat([e.flatten(-2) for e in multi_level_elements], -1)  # (b, [c], s)
        if multi_level_elements.ndim == 3:
            multi_level_elements.transpose_(1, 2)
        return multi_level_elements

    def multi_level_misc(self, multi_level_masks):
        if _is_tracing():
            # torch.Tensor.shape exports not well for ONNX
            # use operators.shape_as_tensor istead
            from torch.onnx import operators
            spatial_shapes = [operators.shape_as_tensor(m)[-2:] for m in multi_level_masks]
            spatial_shapes = torch.stack(spatial_shapes).to(multi_level_masks[0].device)
        else:
            spatial_shapes = [m.shape[-2:] for m in multi_level_masks]
            spatial_shapes = torch.as_tensor(spatial_shapes, device=multi_level_masks[0].device)
        level_start_index = torch.cat((spatial_shapes.new_zeros((1,)), spatial_shapes.prod(1).cumsum(0)[:-1]))
        return spatial_shapes, level_start_index

    def forward(self, multi_level_feats, multi_level_masks):
        feat_flatten = self.flatten_multi_level(multi_level_feats)
        mask_flatten = self.flatten_multi_level(multi_level_masks)
        spatial_shapes, level_start_index = self.multi_level_misc(multi_level_masks)
        backbone_output_memory = feat_flatten + torch.cat(
            [self.level_embeds[i].expand(f.shape[-2] * f.shape[-1], -1) for i, f in enumerate(multi_level_feats)])

        # calculate filtered tokens numbers for each feature map
        reverse_multi_level_masks = [~m for m in multi_level_masks]
        valid_token_nums = torch.stack([m.sum((1, 2)) for m in reverse_multi_level_masks], -1)
        focus_token_nums = (valid_token_nums * self.level_filter_ratio).int()
        level_token_nums = focus_token_nums.max(0)[0]

        # from high level to low level
        batch_size = feat_flatten.shape[0]
        selected_score = []
        selected_inds = []
        for level_idx in range(spatial_shapes.shape[0] - 1, -1, -1):
            start_index = level_start_index[level_idx]
            end_index = level_start_index[level_idx + 1] if level_idx < spatial_shapes.shape[0] - 1 else None
            level_memory = backbone_output_memory[:, start_index:end_index, :]
            mask = mask_flatten[:, start_index:end_index]
            # update the memory using the higher-level score_prediction
            if level_idx != spatial_shapes.shape[0] - 1:
                upsample_score = torch.nn.functional.interpolate(
                    score,
                    size=spatial_shapes[level_idx].unbind(),
                    mode="bilinear",
                    align_corners=True,
                )
                upsample_score = upsample_score.view(batch_size, -1, spatial_shapes[level_idx].prod())
                upsample_score = upsample_score.transpose(1, 2)
                level_memory = level_memory + level_memory * upsample_score * self.alpha[level_idx]
            # predict the foreground score of the current layer
            score = self.enc_mask_predictor(level_memory)
            valid_score = score.squeeze(-1).masked_fill(mask, score.min())
            score = score.transpose(1, 2).view(batch_size, -1, *spatial_shapes[level_idx])

            # get the topk salience index of the current feature map level
            level_score, level_inds = valid_score.topk(level_token_nums[level_idx], dim=1)
            level_inds = level_inds + level_start_index[level_idx]
            selected_inds.append(level_inds)
            selected_score.append(level_score)

        selected_score = torch.cat(selected_score[::-1], 1)
        index = torch.sort(selected_score, dim=1, descending=True)[1]
        selected_inds = torch.cat(selected_inds[::-1], 1).gather(1, index)
        return selected_score, selected_inds


class SalienceDETR(nn.Module):
    """Backbone/neck cut to three strided convs (strides 8, 16, 32); masks as DETR builds them for unpadded images."""

    def __init__(self, embed_dim=32):
        super().__init__()
        self.stem = nn.Conv2d(3, embed_dim, kernel_size=8, stride=8)
        self.down1 = nn.Conv2d(embed_dim, embed_dim, kernel_size=2, stride=2)
        self.down2 = nn.Conv2d(embed_dim, embed_dim, kernel_size=2, stride=2)
        self.transformer = SalienceTransformer(embed_dim)

    def forward(self, images):
        c3 = self.stem(images)
        c4 = self.down1(c3)
        c5 = self.down2(c4)
        multi_level_feats = [c3, c4, c5]
        mask = torch.zeros_like(images[:, 0], dtype=torch.bool)
        multi_level_masks = [F.interpolate(mask[None].float(), size=f.shape[-2:]).to(torch.bool)[0]
                             for f in multi_level_feats]
        return self.transformer(multi_level_feats, multi_level_masks)


def make_model():
    return SalienceDETR().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 192),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 160),), (torch.randn(1, 3, 160, 128),)]


def probe_inputs():
    return other_inputs()
