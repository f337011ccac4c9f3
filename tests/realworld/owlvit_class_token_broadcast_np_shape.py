"""OWL-ViT zero-shot (text-queried) object detection, transformers OwlViTForObjectDetection: image_text_embedder
merges the class token with `new_size = tuple(np.array(image_embeds.shape) - np.array((0, 1, 0)))` and
`torch.broadcast_to(image_embeds[:, :1, :], new_size)`, so the export's batch size is baked in; the exported
model then reshapes the text queries with that batch and onnxruntime fails on another image/query count
("The input tensor cannot be reshaped to the requested shape. Input shape:{9,16}, requested shape:{2,4,16}").
(CLIP vision/text towers trimmed to a patch embedding and a token embedding; class and box heads kept small.)

Source: https://github.com/huggingface/optimum/issues/1057
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"input_ids": {0: "num_queries"}, "pixel_values": {0: "batch"}}
BLIND = "domains-20"


class OwlViTClassPredictionHead(nn.Module):
    def __init__(self, hidden=32, query_dim=24):
        super().__init__()
        self.dense0 = nn.Linear(hidden, query_dim)
        self.logit_shift = nn.Linear(hidden, 1)
        self.logit_scale = nn.Linear(hidden, 1)
        self.elu = nn.ELU()

    def forward(self, image_embeds, query_embeds, query_mask):
        image_class_embeds = self.dense0(image_embeds)
        image_class_embeds = image_class_embeds / (torch.linalg.norm(image_class_embeds, dim=-1, keepdim=True) + 1e-6)
        query_embeds = query_embeds / (torch.linalg.norm(query_embeds, dim=-1, keepdim=True) + 1e-6)
        pred_logits = torch.einsum("...pd,...qd->...pq", image_class_embeds, query_embeds)
        logit_shift = self.logit_shift(image_embeds)
        logit_scale = self.elu(self.logit_scale(image_embeds)) + 1
        pred_logits = (pred_logits + logit_shift) * logit_scale
        if query_mask is not None:
            if query_mask.ndim > 1:
                query_mask = torch.unsqueeze(query_mask, dim=-2)
            pred_logits = torch.where(query_mask == 0, -1e6, pred_logits)
        return (pred_logits, image_class_embeds)


class OwlViTForObjectDetection(nn.Module):
    def __init__(self, hidden=32, query_dim=24, patch=8, vocab=100):
        super().__init__()
        self.patch_embedding = nn.Conv2d(3, hidden, patch, patch)
        self.class_embedding = nn.Parameter(torch.randn(hidden))
        self.post_layernorm = nn.LayerNorm(hidden)
        self.token_embedding = nn.Embedding(vocab, query_dim)
        self.text_projection = nn.Linear(query_dim, query_dim)
        self.layer_norm = nn.LayerNorm(hidden)
        self.class_head = OwlViTClassPredictionHead(hidden, query_dim)
        self.box_head = nn.Linear(hidden, 4)
        self.sigmoid = nn.Sigmoid()

    def image_text_embedder(self, input_ids, pixel_values):
        # vision tower (trimmed): [CLS] + patch tokens
        patches = self.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        cls = self.class_embedding.expand(patches.shape[0], 1, -1)
        last_hidden_state = torch.cat([cls, patches], dim=1)
        # text tower (trimmed): pooled at the EOS token (highest id)
        text_hidden = self.token_embedding(input_ids)
        text_embeds = self.text_projection(text_hidden[torch.arange(text_hidden.shape[0]), input_ids.argmax(dim=-1)])

        # Get image embeddings
        image_embeds = self.post_layernorm(last_hidden_state)
        # Resize class token
        new_size = tuple(np.array(image_embeds.shape) - np.array((0, 1, 0)))
        class_token_out = torch.broadcast_to(image_embeds[:, :1, :], new_size)
        # Merge image embedding with class tokens
        image_embeds = image_embeds[:, 1:, :] * class_token_out
        image_embeds = self.layer_norm(image_embeds)
        # Resize to [batch_size, num_patches, num_patches, hidden_size]
        new_size = (
            image_embeds.shape[0],
            int(np.sqrt(image_embeds.shape[1])),
            int(np.sqrt(image_embeds.shape[1])),
            image_embeds.shape[-1],
        )
        image_embeds = image_embeds.reshape(new_size)
        return (text_embeds, image_embeds)

    def forward(self, input_ids, pixel_values):
        query_embeds, feature_map = self.image_text_embedder(input_ids=input_ids, pixel_values=pixel_values)
        batch_size, num_patches, num_patches, hidden_dim = feature_map.shape
        image_feats = torch.reshape(feature_map, (batch_size, num_patches * num_patches, hidden_dim))
        # Reshape from [batch_size * max_text_queries, hidden_dim] -> [batch_size, max_text_queries, hidden_dim]
        max_text_queries = input_ids.shape[0] // batch_size
        query_embeds = query_embeds.reshape(batch_size, max_text_queries, query_embeds.shape[-1])
        # If first token is 0, then this is a padded query [batch_size, num_queries].
        input_ids = input_ids.reshape(batch_size, max_text_queries, input_ids.shape[-1])
        query_mask = input_ids[..., 0] > 0
        (pred_logits, class_embeds) = self.class_head(image_feats, query_embeds, query_mask)
        pred_boxes = self.sigmoid(self.box_head(image_feats))
        return pred_logits, pred_boxes


def make_model():
    return OwlViTForObjectDetection().eval()


def _inputs(num_images, queries_per_image):
    input_ids = torch.randint(1, 99, (num_images * queries_per_image, 16))
    return (input_ids, torch.randn(num_images, 3, 32, 32))


def example_inputs():
    return _inputs(2, 4)


def other_inputs():
    return [_inputs(1, 9), _inputs(3, 2)]


def probe_inputs():
    return other_inputs()
