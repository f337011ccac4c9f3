"""SRFormer (DETR-style polygon text detector) deformable transformer: `spatial_shapes` is built with
`torch.as_tensor` from the feature sizes, the encoder memory is cut back into per-level maps with
`torch.split` on sizes taken from `level_start_index` and `reshape(bs, -1, spatial_shapes[i][0],
spatial_shapes[i][1])`, and the encoder proposals loop over the `spatial_shapes` tensor. Users converting
it to ONNX report that the export runs but the input shape can no longer be dynamic.

Source: https://github.com/retsuh-bqw/SRFormer-Text-Det/issues/17
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-32"


class AnchorDeformableTransformer(nn.Module):
    def __init__(self, d_model=32, num_feature_levels=2, num_proposals=20):
        super().__init__()
        self.d_model = d_model
        self.total_num_feature_levels = num_feature_levels
        self.num_proposals = num_proposals
        self.level_embed = nn.Parameter(torch.randn(num_feature_levels, d_model))
        self.encoder = nn.Linear(d_model, d_model)          # stands in for the deformable encoder layers
        self.enc_output = nn.Linear(d_model, d_model)
        self.enc_output_norm = nn.LayerNorm(d_model)
        self.bbox_class_embed = nn.Linear(d_model, 1)
        self.bbox_embed = nn.Linear(d_model, 4)

    def feature_fuse(self, encoder_features):
        fused = [encoder_features[-1]]
        for feat in encoder_features[-2::-1]:
            fused.insert(0, feat + F.interpolate(fused[0], size=feat.shape[-2:], mode="nearest"))
        return fused

    def gen_encoder_output_proposals(self, memory, memory_padding_mask, spatial_shapes):
        N_, S_, C_ = memory.shape
        proposals = []
        _cur = 0
        for lvl, (H_, W_) in enumerate(spatial_shapes):
            mask_flatten_ = memory_padding_mask[:, _cur:(_cur + H_ * W_)].view(N_, H_, W_, 1)
            valid_H = torch.sum(~mask_flatten_[:, :, 0, 0], 1)
            valid_W = torch.sum(~mask_flatten_[:, 0, :, 0], 1)

            grid_y, grid_x = torch.meshgrid(torch.linspace(0, H_ - 1, H_, dtype=torch.float32, device=memory.device),
                                            torch.linspace(0, W_ - 1, W_, dtype=torch.float32, device=memory.device))
            grid = torch.cat([grid_x.unsqueeze(-1), grid_y.unsqueeze(-1)], -1)

            scale = torch.cat([valid_W.unsqueeze(-1), valid_H.unsqueeze(-1)], 1).view(N_, 1, 1, 2)
            grid = (grid.unsqueeze(0).expand(N_, -1, -1, -1) + 0.5) / scale
            wh = torch.ones_like(grid) * 0.05 * (2.0 ** lvl)
            proposal = torch.cat((grid, wh), -1).view(N_, -1, 4)
            proposals.append(proposal)
            _cur += (H_ * W_)
        output_proposals = torch.cat(proposals, 1)
        output_proposals_valid = ((output_proposals > 0.01) & (output_proposals < 0.99)).all(-1, keepdim=True)
        output_proposals = torch.log(output_proposals / (1 - output_proposals))
        output_proposals = output_proposals.masked_fill(memory_padding_mask.unsqueeze(-1), float('inf'))
        output_proposals = output_proposals.masked_fill(~output_proposals_valid, float('inf'))

        output_memory = memory
        output_memory = output_memory.masked_fill(memory_padding_mask.unsqueeze(-1), float(0))
        output_memory = output_memory.masked_fill(~output_proposals_valid, float(0))
        output_memory = self.enc_output_norm(self.enc_output(output_memory))
        return output_memory, output_proposals

    def forward(self, srcs, masks):
        src_flatten = []
        mask_flatten = []
        spatial_shapes = []
        for lvl, (src, mask) in enumerate(zip(srcs, masks)):
            bs, c, h, w = src.shape
            spatial_shape = (h, w)
            spatial_shapes.append(spatial_shape)
            src = src.flatten(2).transpose(1, 2) + self.level_embed[lvl].view(1, 1, -1)
            mask = mask.flatten(1)
            src_flatten.append(src)
            mask_flatten.append(mask)
        src_flatten = torch.cat(src_flatten, 1)
        mask_flatten = torch.cat(mask_flatten, 1)
        spatial_shapes = torch.as_tensor(spatial_shapes, dtype=torch.long, device=src_flatten.device)
        level_start_index = torch.cat((spatial_shapes.new_zeros((1,)), spatial_shapes.prod(1).cumsum(0)[:-1]))

        memory = self.encoder(src_flatten)

        # Rebuild Feature Maps form Encoder Queries
        split_size_or_sections = [None] * self.total_num_feature_levels
        for i in range(self.total_num_feature_levels):
            if i < self.total_num_feature_levels - 1:
                split_size_or_sections[i] = level_start_index[i + 1] - level_start_index[i]
            else:
                split_size_or_sections[i] = memory.shape[1] - level_start_index[i]
        y = torch.split(memory, split_size_or_sections, dim=1)

        encoder_features = []
        for i, z in enumerate(y):
            encoder_features.append(z.transpose(1, 2).reshape(bs, -1, spatial_shapes[i][0], spatial_shapes[i][1]))

        multiscale_feature = self.feature_fuse(encoder_features)
        src_flatten = []
        for idx in range(self.total_num_feature_levels):
            bs, c, h, w = multiscale_feature[idx].shape
            src_flatten.append(multiscale_feature[idx].flatten(2).transpose(1, 2))
        memory = torch.cat(src_flatten, 1)

        output_memory, output_proposals = self.gen_encoder_output_proposals(memory, mask_flatten, spatial_shapes)
        enc_outputs_class = self.bbox_class_embed(output_memory)
        enc_outputs_anchor_unact = self.bbox_embed(output_memory) + output_proposals
        topk_proposals = torch.topk(enc_outputs_class[..., 0], self.num_proposals, dim=1)[1]
        topk_anchors_unact = torch.gather(enc_outputs_anchor_unact, 1, topk_proposals.unsqueeze(-1).repeat(1, 1, 4))
        return enc_outputs_class.gather(1, topk_proposals.unsqueeze(-1)).sigmoid(), topk_anchors_unact.sigmoid()


class SRFormerDet(nn.Module):
    def __init__(self, d_model=32):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, d_model, 3, stride=4, padding=1), nn.ReLU(),
                                  nn.Conv2d(d_model, d_model, 3, stride=2, padding=1), nn.ReLU())
        self.down = nn.Conv2d(d_model, d_model, 3, stride=2, padding=1)
        self.transformer = AnchorDeformableTransformer(d_model)

    def forward(self, images):
        p3 = self.stem(images)
        p4 = self.down(p3)
        srcs = [p3, p4]
        m = torch.zeros_like(images[:, 0], dtype=torch.bool)   # NestedTensor padding mask (no padding)
        masks = [F.interpolate(m[None].float(), size=s.shape[-2:]).to(torch.bool)[0] for s in srcs]
        return self.transformer(srcs, masks)


def make_model():
    return SRFormerDet().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 224),), (torch.randn(1, 3, 192, 128),)]


def probe_inputs():
    return other_inputs()
