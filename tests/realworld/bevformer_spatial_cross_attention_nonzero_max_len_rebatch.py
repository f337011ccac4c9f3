"""BEVFormer's SpatialCrossAttention picks, per camera, the BEV queries whose reference points hit that
camera (`mask_per_img[0].sum(-1).nonzero().squeeze(-1)`), sizes the rebatched queries with
`max_len = max([len(each) for each in indexes])` and copies/scatters them back with
`queries_rebatch[j, i, :len(index_query_per_img)] = ...` / `slots[j, index_query_per_img] += ...`;
plain torch.onnx.export of BEVFormer does not work, and the TensorRT port (BEVFormer_tensorrt's
SpatialCrossAttentionTRT) had to drop the nonzero/max_len rebatching for a dense `max_len = bev_mask.shape[2]`
plus mask multiply.

Source: https://github.com/fundamentalvision/BEVFormer/issues/85
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"query": {0: "batch"}, "reference_points_cam": {1: "batch"}}
BLIND = "domains-36"


class MSDeformableAttention3D(nn.Module):
    """Stand-in for the deformable attention: mixes each query with its projected reference points."""

    def __init__(self, embed_dims=32, num_Z_anchors=4):
        super().__init__()
        self.value_proj = nn.Linear(embed_dims, embed_dims)
        self.ref_proj = nn.Linear(num_Z_anchors * 2, embed_dims)

    def forward(self, query, reference_points):
        return self.value_proj(query) + self.ref_proj(reference_points.flatten(2))


class SpatialCrossAttention(nn.Module):
    def __init__(self, embed_dims=32, num_cams=6, num_Z_anchors=4, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.deformable_attention = MSDeformableAttention3D(embed_dims, num_Z_anchors)
        self.embed_dims = embed_dims
        self.num_cams = num_cams
        self.output_proj = nn.Linear(embed_dims, embed_dims)

    def forward(self, query, residual=None, query_pos=None, reference_points_cam=None, bev_mask=None):
        if residual is None:
            inp_residual = query
            slots = torch.zeros_like(query)
        if query_pos is not None:
            query = query + query_pos

        bs, num_query, _ = query.size()

        D = reference_points_cam.size(3)
        indexes = []
        for i, mask_per_img in enumerate(bev_mask):
            index_query_per_img = mask_per_img[0].sum(-1).nonzero().squeeze(-1)
            indexes.append(index_query_per_img)
        max_len = max([len(each) for each in indexes])

        # each camera only interacts with its corresponding BEV queries. This step can  greatly save GPU memory.
        queries_rebatch = query.new_zeros(
            [bs, self.num_cams, max_len, self.embed_dims])
        reference_points_rebatch = reference_points_cam.new_zeros(
            [bs, self.num_cams, max_len, D, 2])

        for j in range(bs):
            for i, reference_points_per_img in enumerate(reference_points_cam):
                index_query_per_img = indexes[i]
                queries_rebatch[j, i, :len(index_query_per_img)] = query[j, index_query_per_img]
                reference_points_rebatch[j, i, :len(index_query_per_img)] = reference_points_per_img[j, index_query_per_img]

        queries = self.deformable_attention(query=queries_rebatch.view(bs * self.num_cams, max_len, self.embed_dims),
                                            reference_points=reference_points_rebatch.view(bs * self.num_cams, max_len, D, 2)
                                            ).view(bs, self.num_cams, max_len, self.embed_dims)
        for j in range(bs):
            for i, index_query_per_img in enumerate(indexes):
                slots[j, index_query_per_img] += queries[j, i, :len(index_query_per_img)]

        count = bev_mask.sum(-1) > 0
        count = count.permute(1, 2, 0).sum(-1)
        count = torch.clamp(count, min=1.0)
        slots = slots / count[..., None]
        slots = self.output_proj(slots)

        return self.dropout(slots) + inp_residual


class BEVEncoderLayer(nn.Module):
    """The encoder side: camera-visibility mask from the projected reference points, then SCA."""

    def __init__(self):
        super().__init__()
        self.sca = SpatialCrossAttention()

    def forward(self, query, reference_points_cam):
        # reference_points_cam: (num_cams, bs, num_query, D, 2), normalised image coords
        bev_mask = ((reference_points_cam[..., 1:2] > 0.0)
                    & (reference_points_cam[..., 1:2] < 1.0)
                    & (reference_points_cam[..., 0:1] < 1.0)
                    & (reference_points_cam[..., 0:1] > 0.0))
        bev_mask = bev_mask.squeeze(-1)
        return self.sca(query, reference_points_cam=reference_points_cam, bev_mask=bev_mask)


def make_model():
    return BEVEncoderLayer().eval()


def _inputs(bs, num_query=64):
    return (torch.randn(bs, num_query, 32), torch.rand(6, bs, num_query, 4, 2) * 2.0 - 0.5)


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(3), _inputs(1)]


def probe_inputs():
    return other_inputs()
