"""DeepSolo (text spotting on Deformable-DETR) encoder: `spatial_shapes` is turned into a tensor with
`torch.as_tensor(spatial_shapes)` and then iterated (`for lvl, (H_, W_) in enumerate(spatial_shapes)`) to build the
reference points and encoder proposals with `torch.linspace(0.5, H_ - 0.5, H_)`; the exported model "only can
inference on the image that used to export the model, but for other image it can't work" (size mismatch error).
(The MSDeformAttn layers and the Bezier heads are reduced to a linear layer; the grid code is the repository's.)

Source: https://github.com/fundamentalvision/Deformable-DETR/issues/211
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "shape_math"
DYNAMIC = {"src0": {0: "batch", 2: "h0", 3: "w0"}, "src1": {0: "batch", 2: "h1", 3: "w1"}}
BLIND = "domains-29"


class DeformableTransformerEncoderProposals(nn.Module):
    def __init__(self, d_model=32):
        super().__init__()
        self.level_embed = nn.Parameter(torch.randn(2, d_model))
        self.enc_output = nn.Linear(d_model, d_model)
        self.enc_output_norm = nn.LayerNorm(d_model)

    @staticmethod
    def get_reference_points(spatial_shapes, valid_ratios, device):
        reference_points_list = []
        for lvl, (H_, W_) in enumerate(spatial_shapes):

            ref_y, ref_x = torch.meshgrid(torch.linspace(0.5, H_ - 0.5, H_, dtype=torch.float32, device=device),
                                          torch.linspace(0.5, W_ - 0.5, W_, dtype=torch.float32, device=device))
            ref_y = ref_y.reshape(-1)[None] / (valid_ratios[:, None, lvl, 1] * H_)
            ref_x = ref_x.reshape(-1)[None] / (valid_ratios[:, None, lvl, 0] * W_)
            ref = torch.stack((ref_x, ref_y), -1)
            reference_points_list.append(ref)
        reference_points = torch.cat(reference_points_list, 1)
        reference_points = reference_points[:, :, None] * valid_ratios[:, None]
        return reference_points

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
            proposal = grid.repeat(1, 1, 1, 4)
            proposal = proposal.view(N_, -1, 8)
            proposals.append(proposal)
            _cur += (H_ * W_)
        output_proposals = torch.cat(proposals, 1)
        output_proposals_valid = ((output_proposals > 0.01) & (output_proposals < 0.99)).all(-1, keepdim=True)
        output_proposals = torch.log(output_proposals / (1 - output_proposals))
        output_proposals = output_proposals.masked_fill(~output_proposals_valid, float('inf'))
        output_memory = memory.masked_fill(~output_proposals_valid, float(0))
        output_memory = self.enc_output_norm(self.enc_output(output_memory))
        return output_memory, output_proposals

    def get_valid_ratio(self, mask):
        _, H, W = mask.shape
        valid_H = torch.sum(~mask[:, :, 0], 1)
        valid_W = torch.sum(~mask[:, 0, :], 1)
        valid_ratio_h = valid_H.float() / H
        valid_ratio_w = valid_W.float() / W
        valid_ratio = torch.stack([valid_ratio_w, valid_ratio_h], -1)
        return valid_ratio

    def forward(self, src0, src1):
        srcs = [src0, src1]
        masks = [torch.zeros(s.shape[0], s.shape[2], s.shape[3], dtype=torch.bool, device=s.device) for s in srcs]
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
        valid_ratios = torch.stack([self.get_valid_ratio(m) for m in masks], 1)

        reference_points = self.get_reference_points(spatial_shapes, valid_ratios, device=src_flatten.device)
        memory = src_flatten  # the deformable encoder layers would consume reference_points here
        output_memory, output_proposals = self.gen_encoder_output_proposals(memory, mask_flatten, spatial_shapes)
        return reference_points, output_memory, output_proposals


def make_model():
    return DeformableTransformerEncoderProposals().eval()


def example_inputs():
    return (torch.randn(2, 32, 16, 20), torch.randn(2, 32, 8, 10))


def other_inputs():
    return [(torch.randn(3, 32, 24, 12), torch.randn(3, 32, 12, 6)),
            (torch.randn(1, 32, 10, 14), torch.randn(1, 32, 5, 7))]


def probe_inputs():
    return other_inputs()
