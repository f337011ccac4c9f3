"""Stable Diffusion ONNX pipeline: the safety checker is exported through its tensor-only `forward_onnx`
(the export script passes batch-1 dummies with a dynamic "batch" axis), which blacks out flagged images
with a boolean-mask assignment `images[has_nsfw_concepts] = 0.0`. The exported checker failed for more
than one image ("There will throw an error if use safety_checker batchsize>1"), so the ONNX pipeline was
changed to call it once per image.

Source: https://github.com/huggingface/diffusers/pull/2366
"""
import torch
import torch.nn as nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"clip_input": {0: "batch"}, "images": {0: "batch", 1: "height", 2: "width"}}
BLIND = "domains-45"


def cosine_distance(image_embeds, text_embeds):
    normalized_image_embeds = nn.functional.normalize(image_embeds)
    normalized_text_embeds = nn.functional.normalize(text_embeds)
    return torch.mm(normalized_image_embeds, normalized_text_embeds.t())


class TinyCLIPVision(nn.Module):
    """Stands in for transformers' CLIPVisionModel: returns (last_hidden_state, pooled_output)."""

    def __init__(self, hidden_size=32):
        super().__init__()
        self.patch = nn.Conv2d(3, hidden_size, 16, stride=16)
        self.post_layernorm = nn.LayerNorm(hidden_size)

    def forward(self, pixel_values):
        hidden = self.patch(pixel_values).flatten(2).transpose(1, 2)
        pooled = self.post_layernorm(hidden.mean(dim=1))
        return hidden, pooled


class StableDiffusionSafetyChecker(nn.Module):
    def __init__(self, hidden_size=32, projection_dim=16):
        super().__init__()

        self.vision_model = TinyCLIPVision(hidden_size)
        self.visual_projection = nn.Linear(hidden_size, projection_dim, bias=False)

        self.concept_embeds = nn.Parameter(torch.randn(17, projection_dim), requires_grad=False)
        self.special_care_embeds = nn.Parameter(torch.randn(3, projection_dim), requires_grad=False)

        self.register_buffer("concept_embeds_weights", torch.full((17,), 0.4))
        self.register_buffer("special_care_embeds_weights", torch.full((3,), 0.4))

    @torch.no_grad()
    def forward_onnx(self, clip_input: torch.FloatTensor, images: torch.FloatTensor):
        pooled_output = self.vision_model(clip_input)[1]  # pooled_output
        image_embeds = self.visual_projection(pooled_output)

        special_cos_dist = cosine_distance(image_embeds, self.special_care_embeds)
        cos_dist = cosine_distance(image_embeds, self.concept_embeds)

        # increase this value to create a stronger `nsfw` filter
        # at the cost of increasing the possibility of filtering benign images
        adjustment = 0.0

        special_scores = special_cos_dist - self.special_care_embeds_weights + adjustment
        # special_scores = special_scores.round(decimals=3)
        special_care = torch.any(special_scores > 0, dim=1)
        special_adjustment = special_care * 0.01
        special_adjustment = special_adjustment.unsqueeze(1).expand(-1, cos_dist.shape[1])

        concept_scores = (cos_dist - self.concept_embeds_weights) + special_adjustment
        # concept_scores = concept_scores.round(decimals=3)
        has_nsfw_concepts = torch.any(concept_scores > 0, dim=1)

        images[has_nsfw_concepts] = 0.0  # black image

        return images, has_nsfw_concepts


def make_model():
    safety_checker = StableDiffusionSafetyChecker().eval()
    # as the export script does: safety_checker.forward = safety_checker.forward_onnx
    safety_checker.forward = safety_checker.forward_onnx
    return safety_checker


def example_inputs():
    # the export script's dummies: batch 1, CLIP pixel values and NHWC decoded images
    return (torch.randn(1, 3, 64, 64), torch.rand(1, 48, 48, 3))


def other_inputs():
    return [(torch.randn(4, 3, 64, 64), torch.rand(4, 40, 56, 3)), (torch.randn(3, 3, 64, 64), torch.rand(3, 32, 32, 3))]


def probe_inputs():
    return other_inputs()
