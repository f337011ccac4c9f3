"""Stable Diffusion's StableDiffusionSafetyChecker (diffusers 0.2): forward moves the CLIP cosine distances
to NumPy (`.cpu().numpy()`), loops over the batch and the concepts with `.item()` thresholds and
`round(...)`, collects Python lists/dicts and blacks out flagged images with `images[idx] = np.zeros(...)`.
The ONNX exporter PR could not export this forward and added a separate tensor-only `forward_onnx`
("torchify the safety checker") that the export script swaps in. Here the checker is called as the
pipeline of that release calls it (decoded image -> `.cpu().permute(0, 2, 3, 1).numpy()` -> checker), and
the wrapper hands back tensors.

Source: https://github.com/huggingface/diffusers/pull/399
"""
import numpy as np
import torch
import torch.nn as nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"clip_input": {0: "batch"}, "image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-45"


def cosine_distance(image_embeds, text_embeds):
    normalized_image_embeds = nn.functional.normalize(image_embeds)
    normalized_text_embeds = nn.functional.normalize(text_embeds)
    return torch.mm(normalized_image_embeds, normalized_text_embeds.T)


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

        self.register_buffer("concept_embeds_weights", torch.full((17,), 0.5))
        self.register_buffer("special_care_embeds_weights", torch.full((3,), 0.5))

    @torch.no_grad()
    def forward(self, clip_input, images):
        pooled_output = self.vision_model(clip_input)[1]  # pooled_output
        image_embeds = self.visual_projection(pooled_output)

        special_cos_dist = cosine_distance(image_embeds, self.special_care_embeds).cpu().numpy()
        cos_dist = cosine_distance(image_embeds, self.concept_embeds).cpu().numpy()

        result = []
        batch_size = image_embeds.shape[0]
        for i in range(batch_size):
            result_img = {"special_scores": {}, "special_care": [], "concept_scores": {}, "bad_concepts": []}

            # increase this value to create a stronger `nfsw` filter
            # at the cost of increasing the possibility of filtering benign images
            adjustment = 0.0

            for concet_idx in range(len(special_cos_dist[0])):
                concept_cos = special_cos_dist[i][concet_idx]
                concept_threshold = self.special_care_embeds_weights[concet_idx].item()
                result_img["special_scores"][concet_idx] = round(concept_cos - concept_threshold + adjustment, 3)
                if result_img["special_scores"][concet_idx] > 0:
                    result_img["special_care"].append({concet_idx, result_img["special_scores"][concet_idx]})
                    adjustment = 0.01

            for concet_idx in range(len(cos_dist[0])):
                concept_cos = cos_dist[i][concet_idx]
                concept_threshold = self.concept_embeds_weights[concet_idx].item()
                result_img["concept_scores"][concet_idx] = round(concept_cos - concept_threshold + adjustment, 3)
                if result_img["concept_scores"][concet_idx] > 0:
                    result_img["bad_concepts"].append(concet_idx)

            result.append(result_img)

        has_nsfw_concepts = [len(res["bad_concepts"]) > 0 for res in result]

        for idx, has_nsfw_concept in enumerate(has_nsfw_concepts):
            if has_nsfw_concept:
                images[idx] = np.zeros(images[idx].shape)  # black image

        return images, has_nsfw_concepts


class SafetyCheckedDecode(nn.Module):
    """The tail of StableDiffusionPipeline.__call__ (diffusers 0.2) around the safety checker."""

    def __init__(self):
        super().__init__()
        self.safety_checker = StableDiffusionSafetyChecker()

    def forward(self, clip_input, image):
        image = (image / 2 + 0.5).clamp(0, 1)
        image = image.cpu().permute(0, 2, 3, 1).numpy()

        # run safety checker
        image, has_nsfw_concept = self.safety_checker(images=image, clip_input=clip_input)
        return torch.from_numpy(image), torch.tensor(has_nsfw_concept)


def make_model():
    return SafetyCheckedDecode().eval()


def example_inputs():
    # CLIP pixel values from the feature extractor and the VAE-decoded images
    return (torch.randn(4, 3, 64, 64), torch.randn(4, 3, 48, 48))


def other_inputs():
    return [(torch.randn(6, 3, 64, 64), torch.randn(6, 3, 40, 56)), (torch.randn(1, 3, 64, 64), torch.randn(1, 3, 32, 32))]


def probe_inputs():
    return other_inputs()
