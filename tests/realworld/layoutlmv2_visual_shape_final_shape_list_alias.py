"""LayoutLMv2 (document understanding, text + layout + image): the forward builds `visual_shape = list(input_shape)`
and `final_shape = list(input_shape); final_shape[1] += visual_shape[1]` from `input_ids.size()`. The ONNX export of
the model fails ("torch.cat(): Tensors must have same number of dimensions" during constant folding, wrong sizes
afterwards); the PR's author says they "get tensor size error" unless the two lists are rebuilt with
`list(torch.empty(size=input_shape).size())`, because under tracing the size entries are shared tensors and the
in-place `+=` also changes `input_shape[1]`.

Source: https://github.com/huggingface/transformers/pull/14555
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "bbox": {0: "batch", 1: "sequence"}, "image": {0: "batch"}}
BLIND = "domains-15"

HIDDEN = 32
IMAGE_FEATURE_POOL_SHAPE = [7, 7, 16]


class LayoutLMv2Embeddings(nn.Module):
    def __init__(self, vocab_size=100, max_position=128, max_2d=1024, coord=6, shape=4):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, HIDDEN)
        self.position_embeddings = nn.Embedding(max_position, HIDDEN)
        self.x_position_embeddings = nn.Embedding(max_2d, coord)
        self.y_position_embeddings = nn.Embedding(max_2d, coord)
        self.h_position_embeddings = nn.Embedding(max_2d, shape)
        self.w_position_embeddings = nn.Embedding(max_2d, shape)
        self.token_type_embeddings = nn.Embedding(2, HIDDEN)
        self.LayerNorm = nn.LayerNorm(HIDDEN)
        self.register_buffer("position_ids", torch.arange(max_position).expand((1, -1)))

    def _calc_spatial_position_embeddings(self, bbox):
        left_position_embeddings = self.x_position_embeddings(bbox[:, :, 0])
        upper_position_embeddings = self.y_position_embeddings(bbox[:, :, 1])
        right_position_embeddings = self.x_position_embeddings(bbox[:, :, 2])
        lower_position_embeddings = self.y_position_embeddings(bbox[:, :, 3])
        h_position_embeddings = self.h_position_embeddings(bbox[:, :, 3] - bbox[:, :, 1])
        w_position_embeddings = self.w_position_embeddings(bbox[:, :, 2] - bbox[:, :, 0])
        return torch.cat(
            [left_position_embeddings, upper_position_embeddings, right_position_embeddings,
             lower_position_embeddings, h_position_embeddings, w_position_embeddings],
            dim=-1,
        )


class LayoutLMv2VisualBackbone(nn.Module):
    # stand-in for the detectron2 ResNet-FPN; the pooling to image_feature_pool_shape is LayoutLMv2's
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, IMAGE_FEATURE_POOL_SHAPE[2], 7, stride=4, padding=3), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(IMAGE_FEATURE_POOL_SHAPE[:2])

    def forward(self, images):
        features = self.backbone(images)
        features = self.pool(features).flatten(start_dim=2).transpose(1, 2).contiguous()
        return features


class LayoutLMv2Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = LayoutLMv2Embeddings()
        self.visual = LayoutLMv2VisualBackbone()
        self.visual_proj = nn.Linear(IMAGE_FEATURE_POOL_SHAPE[-1], HIDDEN)
        self.visual_segment_embedding = nn.Parameter(torch.randn(HIDDEN) * 0.02)
        self.visual_LayerNorm = nn.LayerNorm(HIDDEN)
        self.attention = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.output = nn.Linear(HIDDEN, HIDDEN)

    def _calc_text_embeddings(self, input_ids, bbox, position_ids, token_type_ids):
        words_embeddings = self.embeddings.word_embeddings(input_ids)
        position_embeddings = self.embeddings.position_embeddings(position_ids)
        spatial_position_embeddings = self.embeddings._calc_spatial_position_embeddings(bbox)
        token_type_embeddings = self.embeddings.token_type_embeddings(token_type_ids)
        embeddings = words_embeddings + position_embeddings + spatial_position_embeddings + token_type_embeddings
        return self.embeddings.LayerNorm(embeddings)

    def _calc_img_embeddings(self, image, bbox, position_ids):
        visual_embeddings = self.visual_proj(self.visual(image))
        position_embeddings = self.embeddings.position_embeddings(position_ids)
        spatial_position_embeddings = self.embeddings._calc_spatial_position_embeddings(bbox)
        embeddings = visual_embeddings + position_embeddings + spatial_position_embeddings
        embeddings += self.visual_segment_embedding
        return self.visual_LayerNorm(embeddings)

    def forward(self, input_ids, bbox, image):
        input_shape = input_ids.size()
        device = input_ids.device

        visual_shape = list(input_shape)
        visual_shape[1] = IMAGE_FEATURE_POOL_SHAPE[0] * IMAGE_FEATURE_POOL_SHAPE[1]
        visual_shape = torch.Size(visual_shape)
        final_shape = list(input_shape)
        final_shape[1] += visual_shape[1]
        final_shape = torch.Size(final_shape)

        visual_bbox_x = (
            torch.arange(0, 1000 * (IMAGE_FEATURE_POOL_SHAPE[1] + 1), 1000, device=device, dtype=bbox.dtype)
            // IMAGE_FEATURE_POOL_SHAPE[1]
        )
        visual_bbox_y = (
            torch.arange(0, 1000 * (IMAGE_FEATURE_POOL_SHAPE[0] + 1), 1000, device=device, dtype=bbox.dtype)
            // IMAGE_FEATURE_POOL_SHAPE[0]
        )
        visual_bbox = torch.stack(
            [
                visual_bbox_x[:-1].repeat(IMAGE_FEATURE_POOL_SHAPE[0], 1),
                visual_bbox_y[:-1].repeat(IMAGE_FEATURE_POOL_SHAPE[1], 1).transpose(0, 1),
                visual_bbox_x[1:].repeat(IMAGE_FEATURE_POOL_SHAPE[0], 1),
                visual_bbox_y[1:].repeat(IMAGE_FEATURE_POOL_SHAPE[1], 1).transpose(0, 1),
            ],
            dim=-1,
        ).view(-1, bbox.size(-1))
        visual_bbox = visual_bbox.repeat(final_shape[0], 1, 1)
        final_bbox = torch.cat([bbox, visual_bbox], dim=1)

        attention_mask = torch.ones(input_shape, device=device)
        visual_attention_mask = torch.ones(visual_shape, device=device)
        final_attention_mask = torch.cat([attention_mask, visual_attention_mask], dim=1)

        token_type_ids = torch.zeros(input_shape, dtype=torch.long, device=device)

        seq_length = input_shape[1]
        position_ids = self.embeddings.position_ids[:, :seq_length]
        position_ids = position_ids.expand_as(input_ids)

        visual_position_ids = torch.arange(0, visual_shape[1], dtype=torch.long, device=device).repeat(
            input_shape[0], 1
        )
        final_position_ids = torch.cat([position_ids, visual_position_ids], dim=1)

        text_layout_emb = self._calc_text_embeddings(input_ids, bbox, position_ids, token_type_ids)
        visual_emb = self._calc_img_embeddings(image, visual_bbox, visual_position_ids)
        final_emb = torch.cat([text_layout_emb, visual_emb], dim=1)

        extended_attention_mask = final_attention_mask.unsqueeze(1)
        extended_attention_mask = (1.0 - extended_attention_mask) * -10000.0

        # one self-attention layer standing in for the encoder (rel-pos/2D bias from final_bbox/final_position_ids)
        rel_2d = (final_bbox[:, :, 0].unsqueeze(-1) - final_bbox[:, :, 0].unsqueeze(-2)).float() / 1000.0
        rel_1d = (final_position_ids.unsqueeze(-1) - final_position_ids.unsqueeze(-2)).float() / 128.0
        q, k, v = self.attention(final_emb).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / HIDDEN ** 0.5 + rel_2d + rel_1d + extended_attention_mask
        sequence_output = self.output(scores.softmax(-1) @ v)
        return sequence_output


def make_model():
    return LayoutLMv2Model().eval()


def _inputs(batch, seq):
    input_ids = torch.randint(0, 100, (batch, seq))
    x0 = torch.randint(0, 500, (batch, seq, 1))
    y0 = torch.randint(0, 500, (batch, seq, 1))
    bbox = torch.cat([x0, y0, x0 + torch.randint(1, 400, (batch, seq, 1)), y0 + torch.randint(1, 400, (batch, seq, 1))], -1)
    image = torch.randn(batch, 3, 64, 64)
    return (input_ids, bbox, image)


def example_inputs():
    return _inputs(2, 12)


def other_inputs():
    return [_inputs(3, 20), _inputs(1, 7)]


def probe_inputs():
    return other_inputs()
