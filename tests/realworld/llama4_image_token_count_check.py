"""Llama 4 multimodal forward: merges projected image patches into the text embeddings, but first checks
`if num_tokens_to_fill != projected_vision_flat.size(0): raise ValueError(...)` where num_tokens_to_fill
is the sum of the image-token mask; export stops on the data-dependent comparison.

Source: https://github.com/pytorch/pytorch/issues/150891
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "pixel_values": {0: "num_images"}}
BLIND = "domains-11"

IMAGE_TOKEN_INDEX = 7
VOCAB = 32
TOKENS_PER_IMAGE = 4


class Llama4MultiModalProjector(nn.Module):
    def __init__(self, vision_dim=12, text_dim=16):
        super().__init__()
        self.linear_1 = nn.Linear(vision_dim, text_dim, bias=False)

    def forward(self, image_features):
        return self.linear_1(image_features)


class Llama4ForConditionalGeneration(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, 16)
        self.vision_model = nn.Conv2d(3, 12, kernel_size=8, stride=8)  # 16x16 image -> 4 patches
        self.multi_modal_projector = Llama4MultiModalProjector()
        self.lm_head = nn.Linear(16, VOCAB, bias=False)

    def get_image_features(self, pixel_values):
        return self.vision_model(pixel_values).flatten(2).transpose(1, 2).contiguous()

    def forward(self, input_ids, pixel_values):
        inputs_embeds = self.embed_tokens(input_ids)
        image_features = self.get_image_features(pixel_values)
        original_inputs_embeds_shape = inputs_embeds.shape

        vision_flat = image_features.view(-1, image_features.size(-1))
        projected_vision_flat = self.multi_modal_projector(vision_flat)

        special_image_mask = (input_ids == IMAGE_TOKEN_INDEX).unsqueeze(-1)
        final_mask = special_image_mask.to(inputs_embeds.device)
        inputs_embeds = inputs_embeds.view(-1, inputs_embeds.size(-1))

        final_mask_1d = final_mask[..., 0].reshape(-1)
        num_tokens_to_fill = final_mask_1d.sum()

        if num_tokens_to_fill != projected_vision_flat.size(0):
            raise ValueError(
                f"Mismatch: final_mask wants {num_tokens_to_fill} embeddings, "
                f"but multi_modal_projector returned {projected_vision_flat.size(0)}"
            )

        expanded_mask = final_mask_1d.unsqueeze(-1).expand(-1, inputs_embeds.size(-1))
        inputs_embeds = inputs_embeds.masked_scatter(expanded_mask, projected_vision_flat)

        inputs_embeds = inputs_embeds.view(original_inputs_embeds_shape)
        return self.lm_head(inputs_embeds)


def make_model():
    return Llama4ForConditionalGeneration().eval()


def _ids(batch, seq, starts):
    ids = torch.randint(8, VOCAB, (batch, seq))
    for b, s in starts:
        ids[b, s:s + TOKENS_PER_IMAGE] = IMAGE_TOKEN_INDEX
    return ids


def example_inputs():
    return (_ids(2, 12, [(0, 1), (1, 5)]), torch.randn(2, 3, 16, 16))


def other_inputs():
    return [(_ids(3, 20, [(0, 2), (1, 10), (2, 0)]), torch.randn(3, 3, 16, 16)),
            (_ids(1, 9, [(0, 3)]), torch.randn(1, 3, 16, 16))]


def probe_inputs():
    return other_inputs()
