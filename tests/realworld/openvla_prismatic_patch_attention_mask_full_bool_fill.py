"""OpenVLA / Prismatic multimodal forward: after projecting the vision patches it builds the patch
attention mask with `torch.full(..., fill_value=True, dtype=attention_mask.dtype)` (a bool fill
into the int64 attention-mask dtype) and splices it after <BOS>. Exporting openvla/openvla-7b with
torch.onnx.export stops with "INTERNAL ASSERT FAILED at alias_analysis.cpp ... We don't have an op
for aten::full but it isn't a special case. Argument types: int[], bool, int, NoneType, Device, bool".

Source: https://github.com/pytorch/pytorch/issues/150986
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "input_ids": {0: "batch", 1: "sequence"},
    "attention_mask": {0: "batch", 1: "sequence"},
    "pixel_values": {0: "batch"},
}
BLIND = "operators-34"


class PrismaticProjector(nn.Module):
    def __init__(self, vision_dim, llm_dim):
        super().__init__()
        self.fc1 = nn.Linear(vision_dim, llm_dim, bias=True)
        self.fc2 = nn.Linear(llm_dim, llm_dim, bias=True)
        self.act_fn1 = nn.GELU()

    def forward(self, img_patches):
        return self.fc2(self.act_fn1(self.fc1(img_patches)))


class TinyPrismatic(nn.Module):
    def __init__(self, vocab_size=320, vision_dim=48, llm_dim=32, patch=8):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, vision_dim, kernel_size=patch, stride=patch)
        self.projector = PrismaticProjector(vision_dim, llm_dim)
        self.embed_tokens = nn.Embedding(vocab_size, llm_dim)
        self.lm_head = nn.Linear(llm_dim, vocab_size, bias=False)

    def vision_backbone(self, pixel_values):
        return self.patch_embed(pixel_values).flatten(2).transpose(1, 2)

    def forward(self, input_ids, attention_mask, pixel_values):
        # Visual Feature Extraction
        patch_features = self.vision_backbone(pixel_values)

        # Projection Logic =>> Update Attention Mask
        projected_patch_embeddings = self.projector(patch_features)
        projected_patch_attention_mask = None
        if attention_mask is not None:
            projected_patch_attention_mask = torch.full(
                (projected_patch_embeddings.shape[0], projected_patch_embeddings.shape[1]),
                fill_value=True,
                dtype=attention_mask.dtype,
                device=attention_mask.device,
            )

        # Get Input Embeddings (from Language Model Embeddings)
        input_embeddings = self.embed_tokens(input_ids)

        # Build Multimodal Embeddings & Attention Mask =>> Prismatic defaults to inserting after <BOS> token (1:)
        multimodal_embeddings = torch.cat(
            [input_embeddings[:, :1, :], projected_patch_embeddings, input_embeddings[:, 1:, :]], dim=1
        )
        multimodal_attention_mask = None
        if attention_mask is not None:
            multimodal_attention_mask = torch.cat(
                [attention_mask[:, :1], projected_patch_attention_mask, attention_mask[:, 1:]], dim=1
            )

        # stand-in for the language model: masked mean pooling + head
        m = multimodal_attention_mask.unsqueeze(-1).to(multimodal_embeddings.dtype)
        pooled = (multimodal_embeddings * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.lm_head(pooled), multimodal_attention_mask


def make_model():
    return TinyPrismatic()


def _batch(b, n):
    ids = torch.randint(1, 320, (b, n))
    mask = torch.ones(b, n, dtype=torch.long)
    mask[0, n - 2:] = 0
    return ids, mask, torch.randn(b, 3, 32, 32)


def example_inputs():
    return _batch(2, 12)


def other_inputs():
    return [_batch(3, 20), _batch(1, 7)]


def probe_inputs():
    return other_inputs()
