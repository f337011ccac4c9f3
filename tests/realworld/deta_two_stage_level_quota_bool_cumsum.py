"""DETA (transformers) two-stage proposal selection exported with optimum: the per-level query quota is
`is_level_ordered.cumsum(1)` on the boolean `==` result; the ONNX file is written but onnxruntime refuses
to load it: "Type 'tensor(bool)' of input parameter (/model/Equal_7_output_0) of operator (CumSum) ... is invalid".
(batched_nms after the pre-NMS top-k is left out: keep_inds are the pre-NMS indices.)

Source: https://github.com/huggingface/optimum/pull/2025
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {
    "object_query_embedding": {0: "batch", 1: "num_positions"},
    "output_proposals": {0: "batch", 1: "num_positions"},
    "level_ids": {0: "num_positions"},
}
BLIND = "domains-13"


class DetaTwoStageProposals(nn.Module):
    def __init__(self, d_model=32, two_stage_num_proposals=12, pre_nms_topk=8):
        super().__init__()
        self.class_embed = nn.Linear(d_model, 1)
        self.bbox_embed = nn.Linear(d_model, 4)
        self.two_stage_num_proposals = two_stage_num_proposals
        self.pre_nms_topk = pre_nms_topk

    def forward(self, object_query_embedding, output_proposals, level_ids, spatial_shapes):
        batch_size = object_query_embedding.shape[0]
        enc_outputs_class = self.class_embed(object_query_embedding)
        enc_outputs_coord_logits = self.bbox_embed(object_query_embedding) + output_proposals

        topk = self.two_stage_num_proposals
        proposal_logit = enc_outputs_class[..., 0]
        topk_proposals = []
        for b in range(batch_size):
            prop_logits_b = proposal_logit[b]
            pre_nms_topk = self.pre_nms_topk
            pre_nms_inds = []
            for lvl in range(len(spatial_shapes)):
                lvl_mask = level_ids == lvl
                pre_nms_inds.append(torch.topk(prop_logits_b.sigmoid() * lvl_mask, pre_nms_topk)[1])
            keep_inds = torch.cat(pre_nms_inds)
            q_per_l = topk // len(spatial_shapes)
            is_level_ordered = level_ids[keep_inds][None] == torch.arange(len(spatial_shapes), device=level_ids.device)[:, None]
            keep_inds_mask = is_level_ordered & (is_level_ordered.cumsum(1) <= q_per_l)
            keep_inds_mask = keep_inds_mask.any(0)
            if keep_inds_mask.sum() < topk:
                num_to_add = topk - keep_inds_mask.sum()
                pad_inds = (~keep_inds_mask).nonzero()[:num_to_add]
                keep_inds_mask[pad_inds] = True
            keep_inds_topk = keep_inds[keep_inds_mask]
            topk_proposals.append(keep_inds_topk)
        topk_proposals = torch.stack(topk_proposals)

        topk_coords_logits = torch.gather(enc_outputs_coord_logits, 1, topk_proposals.unsqueeze(-1).repeat(1, 1, 4))
        return topk_coords_logits.sigmoid()


def make_model():
    return DetaTwoStageProposals()


def _inputs(batch, shapes):
    spatial_shapes = torch.tensor(shapes, dtype=torch.long)
    level_ids = torch.cat([torch.full((h * w,), lvl, dtype=torch.long) for lvl, (h, w) in enumerate(shapes)])
    num_positions = level_ids.shape[0]
    return (
        torch.randn(batch, num_positions, 32),
        torch.randn(batch, num_positions, 4),
        level_ids,
        spatial_shapes,
    )


def example_inputs():
    return _inputs(2, [(6, 6), (3, 3), (2, 2), (1, 1)])


def other_inputs():
    return [_inputs(3, [(8, 8), (4, 4), (2, 2), (1, 1)]), _inputs(1, [(4, 6), (2, 3), (1, 2), (1, 1)])]


def probe_inputs():
    return other_inputs()
