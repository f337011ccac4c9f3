"""Gemma 3 multimodal model: `Gemma3Model.get_placeholder_mask` builds the image-token mask and checks
`if inputs_embeds[special_image_mask].numel() != image_features.numel(): raise ValueError("Image features and image
tokens do not match ...")` before `masked_scatter`; onnx-diagnostic's export patches for image-text-to-text
(PR "Improves export settings for image-text-to-text", first steps for gemma3) replace the data-dependent check
with `torch._check` so torch.export can get through.

Source: https://github.com/sdpython/onnx-diagnostic/pull/237
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "pixel_values": {0: "batch"}}
BLIND = "domains-53"

IMAGE_TOKEN_ID = 7


class Gemma3Config:
    image_token_id = IMAGE_TOKEN_ID
    vocab_size = 64
    hidden_size = 48
    vision_hidden_size = 32
    image_size = 32
    patch_size = 4
    mm_tokens_per_image = 4


class Gemma3RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float())
        output = output * (1.0 + self.weight.float())
        return output.type_as(x)


class VisionTower(nn.Module):
    # stands in for SiglipVisionModel: patch embedding + layer norm -> (num_images, num_patches, vision_hidden)
    def __init__(self, config):
        super().__init__()
        self.patch_embedding = nn.Conv2d(3, config.vision_hidden_size, config.patch_size, stride=config.patch_size)
        self.post_layernorm = nn.LayerNorm(config.vision_hidden_size)

    def forward(self, pixel_values):
        x = self.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        return self.post_layernorm(x)


class Gemma3MultiModalProjector(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.mm_input_projection_weight = nn.Parameter(torch.randn(config.vision_hidden_size, config.hidden_size) * 0.1)
        self.mm_soft_emb_norm = Gemma3RMSNorm(config.vision_hidden_size)
        self.patches_per_image = int(config.image_size // config.patch_size)
        self.tokens_per_side = int(config.mm_tokens_per_image**0.5)
        self.kernel_size = self.patches_per_image // self.tokens_per_side
        self.avg_pool = nn.AvgPool2d(kernel_size=self.kernel_size, stride=self.kernel_size)

    def forward(self, vision_outputs: torch.Tensor):
        batch_size, _, seq_length = vision_outputs.shape

        reshaped_vision_outputs = vision_outputs.transpose(1, 2)
        reshaped_vision_outputs = reshaped_vision_outputs.reshape(
            batch_size, seq_length, self.patches_per_image, self.patches_per_image
        )
        reshaped_vision_outputs = reshaped_vision_outputs.contiguous()

        pooled_vision_outputs = self.avg_pool(reshaped_vision_outputs)
        pooled_vision_outputs = pooled_vision_outputs.flatten(2)
        pooled_vision_outputs = pooled_vision_outputs.transpose(1, 2)

        normed_vision_outputs = self.mm_soft_emb_norm(pooled_vision_outputs)

        projected_vision_outputs = torch.matmul(normed_vision_outputs, self.mm_input_projection_weight)
        return projected_vision_outputs.type_as(vision_outputs)


class Gemma3Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.vision_tower = VisionTower(config)
        self.multi_modal_projector = Gemma3MultiModalProjector(config)
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.language_model = nn.Sequential(nn.Linear(config.hidden_size, config.hidden_size), nn.GELU())

    def get_input_embeddings(self):
        return self.embed_tokens

    def get_image_features(self, pixel_values: torch.Tensor) -> torch.Tensor:
        vision_outputs = self.vision_tower(pixel_values=pixel_values)
        image_features = self.multi_modal_projector(vision_outputs)
        return image_features

    def get_placeholder_mask(
        self, input_ids: torch.LongTensor, inputs_embeds: torch.FloatTensor, image_features: torch.FloatTensor
    ):
        """
        Obtains multimodal placeholdr mask from `input_ids` or `inputs_embeds`, and checks that the placeholder token
        count is equal to the length of multimodal features. If the lengths are different, an error is raised.
        """
        if input_ids is None:
            special_image_mask = inputs_embeds == self.get_input_embeddings()(
                torch.tensor(self.config.image_token_id, dtype=torch.long, device=inputs_embeds.device)
            )
            special_image_mask = special_image_mask.all(-1)
        else:
            special_image_mask = input_ids == self.config.image_token_id

        n_image_tokens = special_image_mask.sum()
        special_image_mask = special_image_mask.unsqueeze(-1).expand_as(inputs_embeds).to(inputs_embeds.device)
        n_image_features = image_features.shape[0] * image_features.shape[1]
        if inputs_embeds[special_image_mask].numel() != image_features.numel():
            raise ValueError(
                f"Image features and image tokens do not match: tokens: {n_image_tokens}, features {n_image_features}"
            )
        return special_image_mask

    def forward(self, input_ids, pixel_values):
        inputs_embeds = self.get_input_embeddings()(input_ids)

        # Merge text and images
        if pixel_values is not None:
            image_features = self.get_image_features(pixel_values)
            image_features = image_features.to(inputs_embeds.device, inputs_embeds.dtype)
            special_image_mask = self.get_placeholder_mask(
                input_ids, inputs_embeds=inputs_embeds, image_features=image_features
            )
            inputs_embeds = inputs_embeds.masked_scatter(special_image_mask, image_features)

        return self.language_model(inputs_embeds)


def make_model():
    return Gemma3Model(Gemma3Config()).eval()


def _prompt(batch, seq, starts):
    input_ids = torch.randint(8, 64, (batch, seq))
    for b, s in enumerate(starts):
        input_ids[b, s:s + 4] = IMAGE_TOKEN_ID  # mm_tokens_per_image soft tokens per image
    return input_ids, torch.randn(batch, 3, 32, 32)


def example_inputs():
    return _prompt(2, 12, [1, 5])


def other_inputs():
    return [_prompt(3, 20, [2, 9, 14]), _prompt(1, 7, [3])]


def probe_inputs():
    return other_inputs()
