"""OpenTau PI05 VLA policy: `embed_prefix` builds the prefix attention pattern as a bool tensor
(`torch.tensor(att_masks, dtype=torch.bool)`), `make_att_2d_masks` runs `torch.cumsum` on it and the
position ids come from `torch.cumsum(prefix_pad_masks, dim=1) - 1` on the bool padding mask. OpenTau's ONNX
export script must monkey-patch `torch.cumsum` to cast bool to int64 first ("PyTorch allows cumsum on bool
tensors, but ONNX Runtime does not ... always necessary to load the ONNX artifact without error").

Source: https://github.com/TensorAuto/OpenTau/blob/08b20052ffe4b4fdf4a81de129a3259f7579d2f4/src/opentau/utils/monkey_patch.py
"""
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "dtype-gap"
FAMILY = "tensor_data"
DYNAMIC = {
    "images": {0: "batch"},
    "lang_tokens": {0: "batch"},
    "lang_masks": {0: "batch"},
}
BLIND = "domains-42"


def make_att_2d_masks(pad_masks: Tensor, att_masks: Tensor) -> Tensor:
    if att_masks.ndim != 2:
        raise ValueError(att_masks.ndim)
    if pad_masks.ndim != 2:
        raise ValueError(pad_masks.ndim)

    cumsum = torch.cumsum(att_masks, dim=1)
    att_2d_masks = cumsum[:, None, :] <= cumsum[:, :, None]
    pad_2d_masks = pad_masks[:, None, :] * pad_masks[:, :, None]
    att_2d_masks = att_2d_masks & pad_2d_masks
    return att_2d_masks


class PI05Prefix(nn.Module):
    """The prefix pass of PI05's `sample_actions` (PaliGemma trimmed to one attention layer)."""

    def __init__(self, width=64, vocab_size=100, patch=8, max_positions=128):
        super().__init__()
        self.vision = nn.Conv2d(3, width, kernel_size=patch, stride=patch)  # SigLIP stand-in
        self.embed_tokens = nn.Embedding(vocab_size, width)
        self.position_embedding = nn.Embedding(max_positions, width)
        self.qkv = nn.Linear(width, 3 * width)
        self.o_proj = nn.Linear(width, width)
        self.width = width

    def embed_prefix(self, images, img_masks, lang_tokens, lang_masks):
        embs = []
        pad_masks = []
        att_masks = []

        img_emb = self.vision(images).flatten(2).transpose(1, 2)
        bsize, num_img_embs = img_emb.shape[:2]
        img_mask = img_masks[:, None].expand(bsize, num_img_embs)
        embs.append(img_emb)
        pad_masks.append(img_mask)
        att_masks += [0] * num_img_embs

        lang_emb = self.embed_tokens(lang_tokens)
        lang_emb = lang_emb * math.sqrt(lang_emb.shape[-1])
        embs.append(lang_emb)
        pad_masks.append(lang_masks)
        num_lang_embs = lang_emb.shape[1]
        att_masks += [0] * num_lang_embs

        embs = torch.cat(embs, dim=1)
        pad_masks = torch.cat(pad_masks, dim=1)
        att_masks = torch.tensor(att_masks, dtype=torch.bool, device=pad_masks.device)
        att_masks = att_masks[None, :].expand(bsize, len(att_masks))
        return embs, pad_masks, att_masks

    def forward(self, images, lang_tokens, lang_masks):
        img_masks = torch.ones(images.shape[0], dtype=torch.bool, device=images.device)
        prefix_embs, prefix_pad_masks, prefix_att_masks = self.embed_prefix(
            images, img_masks, lang_tokens, lang_masks
        )
        prefix_att_2d_masks = make_att_2d_masks(prefix_pad_masks, prefix_att_masks)
        prefix_position_ids = torch.cumsum(prefix_pad_masks, dim=1) - 1

        # PaliGemma eager attention with the 4D additive mask
        att_2d_masks_4d = prefix_att_2d_masks[:, None, :, :]
        attention_mask = torch.where(att_2d_masks_4d, 0.0, -2.3819763e38)
        h = prefix_embs + self.position_embedding(prefix_position_ids.clamp(min=0))
        q, k, v = self.qkv(h)[:, None].chunk(3, dim=-1)
        attn_weights = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.width) + attention_mask
        attn_weights = F.softmax(attn_weights, dim=-1, dtype=torch.float32)
        out = torch.matmul(attn_weights, v)[:, 0]
        return self.o_proj(out)


def make_model():
    return PI05Prefix().eval()


def _lang(batch, length, valid):
    # prompts are tokenized with padding="max_length", so the sequence length is fixed
    tokens = torch.randint(0, 100, (batch, length))
    masks = torch.arange(length)[None, :] < torch.tensor(valid)[:, None]
    return tokens, masks


def example_inputs():
    tokens, masks = _lang(2, 12, [12, 7])
    return (torch.randn(2, 3, 32, 32), tokens, masks)


def other_inputs():
    t1, m1 = _lang(3, 12, [12, 5, 9])
    t2, m2 = _lang(1, 12, [4])
    return [(torch.randn(3, 3, 32, 32), t1, m1), (torch.randn(1, 3, 32, 32), t2, m2)]


def probe_inputs():
    return other_inputs()
