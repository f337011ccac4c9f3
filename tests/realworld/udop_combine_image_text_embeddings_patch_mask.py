"""UDOP (document AI, transformers) `combine_image_text_embeddings`: the patch of each OCR token box is
found from the bbox values, `rows, cols = zip(*ind)` iterates the index tensor, the kept visual
patches of every sample are selected with a boolean mask (`image_embeddings[i][patch_inds[i]]`, a
data-dependent length) and padded back with `pad_sequence`; after patching the `full_like(.., True)`
line the export still fails here (TracerWarnings on `len(ocr_points)` / tensor iteration, then a
data-dependent guard under dynamo_export).

Source: https://github.com/pytorch/pytorch/issues/122898
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {
    "pixel_values": {0: "batch"},
    "input_ids": {0: "batch", 1: "seq"},
    "bbox": {0: "batch", 1: "seq"},
    "attention_mask": {0: "batch", 1: "seq"},
}
BLIND = "domains-13"


def get_visual_bbox(image_size=224, patch_size=16):
    image_feature_pool_shape = [image_size // patch_size, image_size // patch_size]
    visual_bbox_x = torch.arange(0, 1.0 * (image_feature_pool_shape[1] + 1), 1.0)
    visual_bbox_x /= image_feature_pool_shape[1]

    visual_bbox_y = torch.arange(0, 1.0 * (image_feature_pool_shape[0] + 1), 1.0)
    visual_bbox_y /= image_feature_pool_shape[0]

    visual_bbox_input = torch.stack(
        [
            visual_bbox_x[:-1].repeat(image_feature_pool_shape[0], 1),
            visual_bbox_y[:-1].repeat(image_feature_pool_shape[1], 1).transpose(0, 1),
            visual_bbox_x[1:].repeat(image_feature_pool_shape[0], 1),
            visual_bbox_y[1:].repeat(image_feature_pool_shape[1], 1).transpose(0, 1),
        ],
        dim=-1,
    )

    visual_bbox_input = visual_bbox_input.view(-1, 4)

    return visual_bbox_input


def pad_sequence(seq, target_len, pad_value=0):
    if isinstance(seq, torch.Tensor):
        n = seq.shape[0]
    else:
        n = len(seq)
        seq = torch.tensor(seq)
    m = target_len - n
    if m > 0:
        ret = torch.stack([pad_value] * m).to(seq)
        seq = torch.cat([seq, ret], dim=0)
    return seq[:target_len]


def combine_image_text_embeddings(
    image_embeddings,
    inputs_embeds,
    bbox,
    visual_bbox,
    attention_mask=None,
    num_patches=14,
    max_len=0,
    image_size=224,
    patch_size=16,
):
    sequence_length = num_patches
    ocr_points_x = torch.clip(
        torch.floor((bbox[:, :, 0] + bbox[:, :, 2]) / 2.0 * sequence_length).long(), 0, sequence_length - 1
    )
    ocr_points_y = (
        torch.clip(torch.floor((bbox[:, :, 1] + bbox[:, :, 3]) / 2.0 * sequence_length).long(), 0, sequence_length - 1)
        * sequence_length
    )
    ocr_points = ocr_points_x + ocr_points_y
    # make sure bounding boxes are of type float to calculate means
    bbox = bbox.to(torch.float64)
    target_seg = (bbox.mean(-1) == 0.0) | (bbox.mean(-1) == 1.0)
    repeated_vision_embeds = torch.gather(
        image_embeddings, 1, ocr_points.unsqueeze(-1).repeat(1, 1, image_embeddings.size(-1))
    )
    repeated_vision_embeds[target_seg] = 0.0
    inputs_embeds += repeated_vision_embeds

    patch_inds = torch.full_like(image_embeddings[:, :, 0], True).bool()
    ind = torch.cat(
        [
            torch.arange(len(ocr_points))[:, None].repeat(1, ocr_points.size(-1))[:, :, None].to(ocr_points),
            ocr_points[:, :, None],
        ],
        dim=-1,
    )
    ind = ind.flatten(0, 1)
    rows, cols = zip(*ind)
    patch_inds[rows, cols] = False

    input_vision_patches = [image_embeddings[i][patch_inds[i]] for i in range(len(patch_inds))]

    if visual_bbox is None:
        visual_bbox = get_visual_bbox(image_size=image_size, patch_size=patch_size)
        visual_bbox = visual_bbox.unsqueeze(0).repeat(image_embeddings.size(0), 1, 1)
        visual_bbox = visual_bbox.to(image_embeddings.device)

    visual_bbox = [visual_bbox[i][patch_inds[i]] for i in range(len(patch_inds))]
    if attention_mask is not None:
        visual_attention_mask = [torch.tensor([1] * len(item)).to(attention_mask) for item in visual_bbox]

    if max_len == 0:
        max_len = image_embeddings.size(1)
    else:
        max_len = max_len - inputs_embeds.size(1)
    inputs_vision_patches = torch.stack(
        [pad_sequence(item, max_len, torch.zeros_like(image_embeddings[0, 0])) for item in input_vision_patches]
    )
    visual_bbox = torch.stack([pad_sequence(item, max_len, torch.zeros_like(bbox[0, 0])) for item in visual_bbox])
    if attention_mask is not None:
        visual_attention_mask = torch.stack(
            [pad_sequence(item, max_len, torch.zeros_like(attention_mask[0, 0])) for item in visual_attention_mask]
        )

    inputs_embeds = torch.cat([inputs_embeds, inputs_vision_patches], 1)
    bbox = torch.cat([bbox, visual_bbox], 1)
    if attention_mask is not None:
        attention_mask = torch.cat([attention_mask, visual_attention_mask], 1)
    return inputs_embeds, bbox, attention_mask


class UdopEncoderInputs(nn.Module):
    """UdopStack front: patch embeddings + token embeddings, merged by combine_image_text_embeddings."""

    def __init__(self, vocab_size=100, d_model=32, image_size=64, patch_size=16):
        super().__init__()
        self.image_size = image_size
        self.patch_size = patch_size
        self.num_patches = image_size // patch_size
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.proj = nn.Conv2d(3, d_model, kernel_size=patch_size, stride=patch_size)

    def forward(self, pixel_values, input_ids, bbox, attention_mask):
        image_embeddings = self.proj(pixel_values).flatten(2).transpose(1, 2)
        inputs_embeds = self.embed_tokens(input_ids)
        inputs_embeds, bbox, attention_mask = combine_image_text_embeddings(
            image_embeddings=image_embeddings,
            inputs_embeds=inputs_embeds,
            bbox=bbox,
            visual_bbox=None,
            attention_mask=attention_mask,
            num_patches=self.num_patches,
            max_len=0,
            image_size=self.image_size,
            patch_size=self.patch_size,
        )
        return inputs_embeds, bbox, attention_mask


def _inputs(b, n, seed):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(b, n, 2, generator=g) * 0.8
    wh = torch.rand(b, n, 2, generator=g) * 0.2
    bbox = torch.cat([xy, xy + wh], dim=-1)
    return (torch.randn(b, 3, 64, 64, generator=g), torch.randint(0, 100, (b, n), generator=g), bbox,
            torch.ones(b, n, dtype=torch.long))


def make_model():
    return UdopEncoderInputs()


def example_inputs():
    return _inputs(2, 6, 0)


def other_inputs():
    return [_inputs(3, 9, 1), _inputs(1, 4, 2)]


def probe_inputs():
    return other_inputs()
