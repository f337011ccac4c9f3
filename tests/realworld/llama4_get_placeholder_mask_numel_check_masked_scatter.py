"""Llama 4 (Llama4ForConditionalGeneration): image features from the vision tower are flattened
(`image_features.view(-1, image_features.size(-1))`), projected, and spliced into the text embeddings with
`masked_scatter`; the mask comes from `get_placeholder_mask`, which checks
`if inputs_embeds[special_image_mask].numel() != image_features.numel(): raise ValueError(...)`.
TensorRT-LLM's AutoDeploy export patch for Llama 4 inlines the mask without that check, noting
"get_placeholder_mask is not supported by torch.export due to numel check".
(Vision tower and language model reduced to linear layers.)

Source: https://github.com/NVIDIA/TensorRT-LLM/blob/019b1db43842962921cdc7323cb3985aef67bf21/tensorrt_llm/_torch/auto_deploy/models/patches/llama4.py
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {1: "sequence"}, "pixel_values": {0: "num_tiles"}}
BLIND = "domains-78"


class Llama4Config:
    image_token_id = 5
    vocab_size = 64
    hidden_size = 32
    vision_output_dim = 24
    patch_size = 4


class Llama4VisionModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.patch_embedding = nn.Conv2d(3, config.vision_output_dim, config.patch_size, config.patch_size)
        self.adapter = nn.Linear(config.vision_output_dim, config.vision_output_dim)

    def forward(self, pixel_values):
        hidden = self.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        return self.adapter(hidden)


class Llama4ForConditionalGeneration(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.vision_model = Llama4VisionModel(config)
        self.multi_modal_projector = nn.Linear(config.vision_output_dim, config.hidden_size, bias=False)
        self.language_model = nn.Linear(config.hidden_size, config.vocab_size)

    def get_input_embeddings(self):
        return self.embed_tokens

    def get_image_features(self, pixel_values):
        return self.vision_model(pixel_values)

    def get_placeholder_mask(self, input_ids, inputs_embeds, image_features):
        if input_ids is None:
            special_image_mask = inputs_embeds == self.get_input_embeddings()(
                torch.tensor(self.config.image_token_id, dtype=torch.long, device=inputs_embeds.device)
            )
            special_image_mask = special_image_mask.all(-1)
        else:
            special_image_mask = input_ids == self.config.image_token_id

        n_image_tokens = special_image_mask.sum()
        special_image_mask = special_image_mask.unsqueeze(-1).expand_as(inputs_embeds).to(inputs_embeds.device)
        if inputs_embeds[special_image_mask].numel() != image_features.numel():
            raise ValueError(
                f"Image features and image tokens do not match: tokens: {n_image_tokens}, features {image_features.shape[0]}"
            )
        return special_image_mask

    def forward(self, input_ids, pixel_values):
        inputs_embeds = self.get_input_embeddings()(input_ids)

        if pixel_values is not None:
            image_features = self.get_image_features(pixel_values=pixel_values)

            vision_flat = image_features.view(-1, image_features.size(-1))
            projected_vision_flat = self.multi_modal_projector(vision_flat).to(inputs_embeds.device, inputs_embeds.dtype)
            special_image_mask = self.get_placeholder_mask(
                input_ids, inputs_embeds=inputs_embeds, image_features=projected_vision_flat
            )
            inputs_embeds = inputs_embeds.masked_scatter(special_image_mask, projected_vision_flat)

        return self.language_model(inputs_embeds)


def make_model():
    return Llama4ForConditionalGeneration(Llama4Config()).eval()


def _inputs(num_tiles, text_before, text_after):
    n_img = num_tiles * 4  # 8x8 tiles, patch 4 -> 4 tokens per tile
    ids = torch.cat([
        torch.randint(10, 64, (1, text_before)),
        torch.full((1, n_img), 5),
        torch.randint(10, 64, (1, text_after)),
    ], dim=1)
    return (ids, torch.randn(num_tiles, 3, 8, 8))


def example_inputs():
    return _inputs(2, 3, 4)


def other_inputs():
    return [_inputs(3, 5, 2), _inputs(1, 2, 6)]


def probe_inputs():
    return other_inputs()
