"""Mask2Former exported end to end (model + image processor post-processing), as transformers' end-to-end vision
export PoC does: `post_process_semantic_segmentation` builds its result as a Python list with one semantic map per
image (`[semantic_segmentation[i] for i in range(semantic_segmentation.shape[0])]`), which is not traceable with a
dynamic batch; the PR splits it into a traceable `(batch, height, width)` tensor and an untraceable list builder.
(Swin backbone / pixel decoder / transformer decoder reduced to a conv stem and learned queries.)

Source: https://github.com/huggingface/transformers/pull/48151
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-53"


class Mask2FormerOutput:
    def __init__(self, class_queries_logits, masks_queries_logits):
        self.class_queries_logits = class_queries_logits
        self.masks_queries_logits = masks_queries_logits


class TinyMask2FormerForUniversalSegmentation(nn.Module):
    def __init__(self, hidden_dim=32, num_queries=8, num_labels=5):
        super().__init__()
        self.pixel_level_module = nn.Sequential(
            nn.Conv2d(3, hidden_dim, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(hidden_dim, hidden_dim, 3, stride=2, padding=1), nn.ReLU())
        self.queries_features = nn.Embedding(num_queries, hidden_dim)
        self.class_predictor = nn.Linear(hidden_dim, num_labels + 1)
        self.mask_embedder = nn.Linear(hidden_dim, hidden_dim)

    def forward(self, pixel_values):
        pixel_embeddings = self.pixel_level_module(pixel_values)
        queries = self.queries_features.weight.unsqueeze(0).expand(pixel_values.shape[0], -1, -1)
        class_queries_logits = self.class_predictor(queries)
        masks_queries_logits = torch.einsum("bqc, bchw -> bqhw", self.mask_embedder(queries), pixel_embeddings)
        return Mask2FormerOutput(class_queries_logits, masks_queries_logits)


class Mask2FormerImageProcessor:
    def post_process_semantic_segmentation(self, outputs, target_sizes=None):
        class_queries_logits = outputs.class_queries_logits  # [batch_size, num_queries, num_classes+1]
        masks_queries_logits = outputs.masks_queries_logits  # [batch_size, num_queries, height, width]

        # Scale back to preprocessed image size - (384, 384) for all models
        masks_queries_logits = torch.nn.functional.interpolate(
            masks_queries_logits, size=(384, 384), mode="bilinear", align_corners=False
        )

        # Remove the null class `[..., :-1]`
        masks_classes = class_queries_logits.softmax(dim=-1)[..., :-1]
        masks_probs = masks_queries_logits.sigmoid()  # [batch_size, num_queries, height, width]

        # Semantic segmentation logits of shape (batch_size, num_classes, height, width)
        segmentation = torch.einsum("bqc, bqhw -> bchw", masks_classes, masks_probs)
        batch_size = class_queries_logits.shape[0]

        # Resize logits and compute semantic segmentation maps
        if target_sizes is not None:
            if batch_size != len(target_sizes):
                raise ValueError(
                    "Make sure that you pass in as many target sizes as the batch dimension of the logits"
                )

            semantic_segmentation = []
            for idx in range(batch_size):
                resized_logits = torch.nn.functional.interpolate(
                    segmentation[idx].unsqueeze(dim=0), size=target_sizes[idx], mode="bilinear", align_corners=False
                )
                semantic_map = resized_logits[0].argmax(dim=0)
                semantic_segmentation.append(semantic_map)
        else:
            semantic_segmentation = segmentation.argmax(dim=1)
            semantic_segmentation = [semantic_segmentation[i] for i in range(semantic_segmentation.shape[0])]

        return semantic_segmentation


class EndToEndModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = TinyMask2FormerForUniversalSegmentation()
        self.image_processor = Mask2FormerImageProcessor()

    def forward(self, pixel_values):
        outputs = self.model(pixel_values)
        return self.image_processor.post_process_semantic_segmentation(outputs)


def make_model():
    return EndToEndModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 64),), (torch.randn(1, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
