"""openpi's PyTorch pi0 `embed_prefix` builds the prefix attention mask as a Python list
(`att_masks += [0] * num_lang_embs`) and turns it into a tensor with `torch.tensor(...)`; NVIDIA's
Jetson Thor export script replaces it because the list length is a trace-time int, so the whole
prefix length is baked into the graph as a constant and pins the language sequence dim regardless of
the declared dynamic axis.

Source: https://github.com/NVIDIA-AI-IOT/jetson-ai-lab/blob/9f08510b7e6dcedc1fe92c1cb8c62a203eb92b0e/public/code-samples/openpi_on_thor/deployment_scripts/pytorch_to_onnx.py
"""
import math

import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {
    "image": {0: "batch"},
    "img_mask": {0: "batch"},
    "lang_tokens": {0: "batch", 1: "lang_len"},
    "lang_masks": {0: "batch", 1: "lang_len"},
}
BLIND = "domains-69"


def make_att_2d_masks(pad_masks, att_masks):
    if att_masks.ndim != 2:
        raise ValueError(att_masks.ndim)
    if pad_masks.ndim != 2:
        raise ValueError(pad_masks.ndim)

    cumsum = torch.cumsum(att_masks, dim=1)
    att_2d_masks = cumsum[:, None, :] <= cumsum[:, :, None]
    pad_2d_masks = pad_masks[:, None, :] * pad_masks[:, :, None]
    return att_2d_masks & pad_2d_masks


class PI0Prefix(nn.Module):
    def __init__(self, width=32, vocab=64):
        super().__init__()
        self.patch = nn.Conv2d(3, width, kernel_size=8, stride=8)  # stands in for SigLIP
        self.embed_tokens = nn.Embedding(vocab, width)

    def embed_image(self, img):
        return self.patch(img).flatten(2).transpose(1, 2)

    def embed_prefix(self, images, img_masks, lang_tokens, lang_masks):
        embs = []
        pad_masks = []
        att_masks = []

        for img, img_mask in zip(images, img_masks):
            img_emb = self.embed_image(img)
            bsize, num_img_embs = img_emb.shape[:2]

            embs.append(img_emb)
            pad_masks.append(img_mask[:, None].expand(bsize, num_img_embs))

            # Create attention masks so that image tokens attend to each other
            att_masks += [0] * num_img_embs

        lang_emb = self.embed_tokens(lang_tokens)
        lang_emb_dim = lang_emb.shape[-1]
        lang_emb = lang_emb * math.sqrt(lang_emb_dim)

        embs.append(lang_emb)
        pad_masks.append(lang_masks)

        # full attention between image and language inputs
        num_lang_embs = lang_emb.shape[1]
        att_masks += [0] * num_lang_embs

        embs = torch.cat(embs, dim=1)
        pad_masks = torch.cat(pad_masks, dim=1)
        att_masks = torch.tensor(att_masks, dtype=torch.bool, device=pad_masks.device)

        # Get batch size from the first dimension of the concatenated tensors
        bsize = pad_masks.shape[0]
        att_masks = att_masks[None, :].expand(bsize, len(att_masks))

        return embs, pad_masks, att_masks

    def forward(self, image, img_mask, lang_tokens, lang_masks):
        prefix_embs, prefix_pad_masks, prefix_att_masks = self.embed_prefix(
            [image], [img_mask], lang_tokens, lang_masks
        )
        prefix_att_2d_masks = make_att_2d_masks(prefix_pad_masks, prefix_att_masks)
        prefix_position_ids = torch.cumsum(prefix_pad_masks, dim=1) - 1
        return prefix_embs, prefix_att_2d_masks, prefix_position_ids


def make_model():
    return PI0Prefix()


def _inputs(b, n):
    lang_masks = torch.ones(b, n, dtype=torch.bool)
    lang_masks[:, n - 2:] = False
    return (
        torch.randn(b, 3, 32, 32),
        torch.ones(b, dtype=torch.bool),
        torch.randint(0, 64, (b, n)),
        lang_masks,
    )


def example_inputs():
    return _inputs(2, 12)


def other_inputs():
    return [_inputs(3, 20), _inputs(1, 7)]


def probe_inputs():
    return other_inputs()
