"""LLaVA-JP (tosiyuki/LLaVA-JP, llava/model/llava_arch.py): prepare_inputs_labels_for_multimodal strips padding with
boolean masks, loops over the batch, finds the <image> placeholder with
`torch.where(cur_input_ids == IMAGE_TOKEN_INDEX)[0].tolist()`, splits the text embeddings around it with Python lists
of sizes, splices the projected image features in and re-pads to `max(x.shape[0] ...)`. When ailia-models exported the
model to ONNX this merge could not go into the graph: it was cut out under `torch.onnx.is_in_onnx_export()` and only
the image encoder and the plain token embedding were exported. Vision tower and GPT-2 are reduced to a few layers.

Source: https://github.com/ailia-ai/ailia-models/issues/1519
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}, "images": {0: "batch"}}
BLIND = "domains-14"

IGNORE_INDEX = -100
IMAGE_TOKEN_INDEX = -200


class TinyVisionTower(nn.Module):
    def __init__(self, hidden=24, patch=8):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, hidden, patch, patch)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, images):
        x = self.patch_embed(images).flatten(2).transpose(1, 2)  # B, 16, hidden
        return self.norm(x)


class LlavaGpt2ForCausalLM(nn.Module):
    base_model = "gpt2"

    def __init__(self, vocab=100, n_embd=32):
        super().__init__()
        self.transformer = nn.Module()
        self.transformer.wte = nn.Embedding(vocab, n_embd)
        self.vision_tower = TinyVisionTower()
        self.mm_projector = nn.Sequential(nn.Linear(24, n_embd), nn.GELU(), nn.Linear(n_embd, n_embd))
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)

    def encode_images(self, images):
        image_features = self.vision_tower(images)
        image_features = self.mm_projector(image_features)
        return image_features

    def embed(self, input_ids):
        if self.base_model == "gpt2":
            return self.transformer.wte(input_ids)

    def prepare_inputs_labels_for_multimodal(self, input_ids, position_ids, attention_mask, labels, images):
        image_features = self.encode_images(images)

        _labels = labels
        _attention_mask = attention_mask
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids, dtype=torch.bool)
        else:
            attention_mask = attention_mask.bool()
        if position_ids is None:
            position_ids = torch.arange(0, input_ids.shape[1], dtype=torch.long, device=input_ids.device)
        if labels is None:
            labels = torch.full_like(input_ids, IGNORE_INDEX)

        # remove the padding using attention_mask -- TODO: double check
        input_ids = [cur_input_ids[cur_attention_mask] for cur_input_ids, cur_attention_mask in zip(input_ids, attention_mask)]
        labels = [cur_labels[cur_attention_mask] for cur_labels, cur_attention_mask in zip(labels, attention_mask)]

        new_input_embeds = []
        new_labels = []
        cur_image_idx = 0
        for batch_idx, cur_input_ids in enumerate(input_ids):
            num_images = (cur_input_ids == IMAGE_TOKEN_INDEX).sum()
            if num_images == 0:
                cur_image_features = image_features[cur_image_idx]
                cur_input_embeds_1 = self.embed(cur_input_ids)
                cur_input_embeds = torch.cat([cur_input_embeds_1, cur_image_features[0:0]], dim=0)
                new_input_embeds.append(cur_input_embeds)
                new_labels.append(labels[batch_idx])
                cur_image_idx += 1
                continue

            image_token_indices = [-1] + torch.where(cur_input_ids == IMAGE_TOKEN_INDEX)[0].tolist() + [cur_input_ids.shape[0]]
            cur_input_ids_noim = []
            cur_labels = labels[batch_idx]
            cur_labels_noim = []
            for i in range(len(image_token_indices) - 1):
                cur_input_ids_noim.append(cur_input_ids[image_token_indices[i]+1:image_token_indices[i+1]])
                cur_labels_noim.append(cur_labels[image_token_indices[i]+1:image_token_indices[i+1]])
            split_sizes = [x.shape[0] for x in cur_labels_noim]
            cur_input_embeds = self.embed(torch.cat(cur_input_ids_noim))
            cur_input_embeds_no_im = torch.split(cur_input_embeds, split_sizes, dim=0)
            cur_new_input_embeds = []
            cur_new_labels = []
            for i in range(num_images + 1):
                cur_new_input_embeds.append(cur_input_embeds_no_im[i])
                cur_new_labels.append(cur_labels_noim[i])
                if i < num_images:
                    cur_image_features = image_features[cur_image_idx]
                    cur_image_idx += 1
                    cur_new_input_embeds.append(cur_image_features)
                    cur_new_labels.append(torch.full((cur_image_features.shape[0],), IGNORE_INDEX, device=cur_labels.device, dtype=cur_labels.dtype))
            cur_new_input_embeds = torch.cat(cur_new_input_embeds)
            cur_new_labels = torch.cat(cur_new_labels)
            new_input_embeds.append(cur_new_input_embeds)
            new_labels.append(cur_new_labels)

        # Combine them
        max_len = max(x.shape[0] for x in new_input_embeds)
        batch_size = len(new_input_embeds)

        new_input_embeds_padded = []
        new_labels_padded = torch.full((batch_size, max_len), IGNORE_INDEX, dtype=new_labels[0].dtype, device=new_labels[0].device)
        attention_mask = torch.zeros((batch_size, max_len), dtype=attention_mask.dtype, device=attention_mask.device)
        position_ids = torch.zeros((batch_size, max_len), dtype=position_ids.dtype, device=position_ids.device)

        for i, (cur_new_embed, cur_new_labels) in enumerate(zip(new_input_embeds, new_labels)):
            cur_len = cur_new_embed.shape[0]
            new_input_embeds_padded.append(torch.cat((
                cur_new_embed,
                torch.zeros((max_len - cur_len, cur_new_embed.shape[1]), dtype=cur_new_embed.dtype, device=cur_new_embed.device)
            ), dim=0))
            if cur_len > 0:
                new_labels_padded[i, :cur_len] = cur_new_labels
                attention_mask[i, :cur_len] = True
                position_ids[i, :cur_len] = torch.arange(0, cur_len, dtype=position_ids.dtype, device=position_ids.device)

        new_input_embeds = torch.stack(new_input_embeds_padded, dim=0)
        attention_mask = attention_mask.to(dtype=_attention_mask.dtype)
        return None, position_ids, attention_mask, new_input_embeds, None

    def forward(self, input_ids, attention_mask, images):
        _, position_ids, attention_mask, inputs_embeds, _ = self.prepare_inputs_labels_for_multimodal(
            input_ids, None, attention_mask, None, images)
        logits = self.lm_head(inputs_embeds) * attention_mask.unsqueeze(-1).to(inputs_embeds.dtype)
        return logits, position_ids


def make_model():
    return LlavaGpt2ForCausalLM().eval()


def _batch(lengths, image_pos, seq):
    """Right-padded prompts, one <image> placeholder (-200) per row at image_pos[row]."""
    ids = torch.zeros(len(lengths), seq, dtype=torch.long)
    mask = torch.zeros(len(lengths), seq, dtype=torch.long)
    for row, (n, p) in enumerate(zip(lengths, image_pos)):
        ids[row, :n] = torch.randint(1, 100, (n,))
        ids[row, p] = IMAGE_TOKEN_INDEX
        mask[row, :n] = 1
    return ids, mask, torch.randn(len(lengths), 3, 32, 32)


def example_inputs():
    return _batch([9, 6], [2, 1], 9)


def other_inputs():
    return [_batch([5, 12, 8], [0, 5, 7], 12), _batch([7], [3], 7)]


def probe_inputs():
    return other_inputs()
