"""RF-DETR two-stage query selection: gen_encoder_output_proposals() decodes one proposal box per
encoder token using `N_, S_, C_ = memory.shape` (torch.tensor([H_ for _ in range(N_)]), .view(N_, ...),
.expand(N_, ...)); exported with a dynamic batch axis, the export batch is baked in as a constant.

Source: https://github.com/roboflow/rf-detr/issues/949
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "domains-3"


def gen_encoder_output_proposals(memory, memory_padding_mask, spatial_shapes, unsigmoid=True):
    N_, S_, C_ = memory.shape
    proposals = []
    _cur = 0
    for lvl, (H_, W_) in enumerate(spatial_shapes):
        if memory_padding_mask is not None:
            mask_flatten_ = memory_padding_mask[:, _cur:(_cur + H_ * W_)].view(N_, H_, W_, 1)
            valid_H = torch.sum(~mask_flatten_[:, :, 0, 0], 1)
            valid_W = torch.sum(~mask_flatten_[:, 0, :, 0], 1)
        else:
            valid_H = torch.tensor([H_ for _ in range(N_)], device=memory.device)
            valid_W = torch.tensor([W_ for _ in range(N_)], device=memory.device)

        grid_y, grid_x = torch.meshgrid(torch.linspace(0, H_ - 1, H_, dtype=torch.float32, device=memory.device),
                                        torch.linspace(0, W_ - 1, W_, dtype=torch.float32, device=memory.device))
        grid = torch.cat([grid_x.unsqueeze(-1), grid_y.unsqueeze(-1)], -1)  # H_, W_, 2

        scale = torch.cat([valid_W.unsqueeze(-1), valid_H.unsqueeze(-1)], 1).view(N_, 1, 1, 2)
        grid = (grid.unsqueeze(0).expand(N_, -1, -1, -1) + 0.5) / scale

        wh = torch.ones_like(grid) * 0.05 * (2.0 ** lvl)

        proposal = torch.cat((grid, wh), -1).view(N_, -1, 4)
        proposals.append(proposal)
        _cur += (H_ * W_)

    output_proposals = torch.cat(proposals, 1)
    output_proposals_valid = ((output_proposals > 0.01) & (output_proposals < 0.99)).all(-1, keepdim=True)

    if unsigmoid:
        output_proposals = torch.log(output_proposals / (1 - output_proposals))  # unsigmoid
        output_proposals = output_proposals.masked_fill(~output_proposals_valid, float('inf'))

    output_memory = memory
    output_memory = output_memory.masked_fill(~output_proposals_valid, float(0))
    return output_memory.to(memory.dtype), output_proposals.to(memory.dtype)


class TwoStageSelector(nn.Module):
    def __init__(self, d_model=32, num_classes=5, num_queries=20):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, d_model, 4, 4), nn.ReLU())
        self.down = nn.Conv2d(d_model, d_model, 3, 2, 1)
        self.enc_output = nn.Linear(d_model, d_model)
        self.enc_output_norm = nn.LayerNorm(d_model)
        self.enc_out_class_embed = nn.Linear(d_model, num_classes)
        self.enc_out_bbox_embed = nn.Linear(d_model, 4)
        self.num_queries = num_queries

    def forward(self, images):
        f0 = self.backbone(images)
        srcs = [f0, self.down(f0)]
        src_flatten, spatial_shapes = [], []
        for src in srcs:
            bs, c, h, w = src.shape
            spatial_shapes.append((h, w))
            src_flatten.append(src.flatten(2).transpose(1, 2))
        memory = torch.cat(src_flatten, 1)
        spatial_shapes = torch.as_tensor(spatial_shapes, dtype=torch.long, device=memory.device)

        output_memory, output_proposals = gen_encoder_output_proposals(memory, None, spatial_shapes, unsigmoid=True)
        output_memory = self.enc_output_norm(self.enc_output(output_memory))
        enc_outputs_class = self.enc_out_class_embed(output_memory)
        enc_outputs_coord = self.enc_out_bbox_embed(output_memory) + output_proposals  # unsigmoid
        topk = min(self.num_queries, enc_outputs_class.shape[-2])
        topk_proposals = torch.topk(enc_outputs_class.max(-1)[0], topk, dim=1)[1]
        refpoint = torch.gather(enc_outputs_coord, 1, topk_proposals.unsqueeze(-1).repeat(1, 1, 4))
        return refpoint.sigmoid()


def make_model():
    return TwoStageSelector().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(4, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
