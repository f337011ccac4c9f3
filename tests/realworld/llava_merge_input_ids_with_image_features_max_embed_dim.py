"""LLaVA-1.5 (transformers `LlavaForConditionalGeneration`): `_merge_input_ids_with_image_features` sizes the merged
sequence with `max_embed_dim = (num_special_image_tokens.max() * (num_image_patches - 1)) + sequence_length`,
locates text with `torch.where(input_ids != image_token_index)`, branches on `left_padding = not torch.sum(...)` and
raises if `image_to_overwrite.sum() != image_features.shape[:-1].numel()`; ExecuTorch's LLaVA model definition
rewrites prefill to take the prompt before/after the image as separate inputs ("Avoiding the torch.where() call to
find <image> placeholder and insert image embedding") so it can be exported.

Source: https://github.com/pytorch/executorch/pull/4259
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "pixel_values": {0: "batch"},
           "attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "domains-53"


class LlavaConfig:
    image_token_index = 31
    pad_token_id = 0
    ignore_index = -100
    vocab_size = 32
    hidden_size = 48
    vision_hidden_size = 32
    patch_size = 8
    vision_feature_layer = -2
    vision_feature_select_strategy = "default"


class CLIPVisionTower(nn.Module):
    # stands in for CLIPVisionModel(output_hidden_states=True): patch + class embeddings and two encoder layers
    def __init__(self, config):
        super().__init__()
        self.patch_embedding = nn.Conv2d(3, config.vision_hidden_size, config.patch_size, stride=config.patch_size)
        self.class_embedding = nn.Parameter(torch.randn(config.vision_hidden_size))
        self.pre_layrnorm = nn.LayerNorm(config.vision_hidden_size)
        self.layers = nn.ModuleList([nn.Sequential(nn.Linear(config.vision_hidden_size, config.vision_hidden_size),
                                                   nn.GELU()) for _ in range(2)])

    def forward(self, pixel_values):
        patch_embeds = self.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        class_embeds = self.class_embedding.expand(pixel_values.shape[0], 1, -1)
        hidden_states = self.pre_layrnorm(torch.cat([class_embeds, patch_embeds], dim=1))
        all_hidden_states = (hidden_states,)
        for layer in self.layers:
            hidden_states = hidden_states + layer(hidden_states)
            all_hidden_states = all_hidden_states + (hidden_states,)
        return all_hidden_states


class LlavaMultiModalProjector(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.linear_1 = nn.Linear(config.vision_hidden_size, config.hidden_size, bias=True)
        self.act = nn.GELU()
        self.linear_2 = nn.Linear(config.hidden_size, config.hidden_size, bias=True)

    def forward(self, image_features):
        hidden_states = self.linear_1(image_features)
        hidden_states = self.act(hidden_states)
        hidden_states = self.linear_2(hidden_states)
        return hidden_states


class LlavaForConditionalGeneration(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.vision_tower = CLIPVisionTower(config)
        self.multi_modal_projector = LlavaMultiModalProjector(config)
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.language_model = nn.Sequential(nn.Linear(config.hidden_size, config.hidden_size), nn.SiLU())
        self.pad_token_id = self.config.pad_token_id if self.config.pad_token_id is not None else -1

    def get_input_embeddings(self):
        return self.embed_tokens

    def _merge_input_ids_with_image_features(self, image_features, inputs_embeds, input_ids, attention_mask, labels):
        num_images, num_image_patches, embed_dim = image_features.shape
        batch_size, sequence_length = input_ids.shape
        left_padding = not torch.sum(input_ids[:, -1] == torch.tensor(self.pad_token_id))
        # 1. Create a mask to know where special image tokens are
        special_image_token_mask = input_ids == self.config.image_token_index
        num_special_image_tokens = torch.sum(special_image_token_mask, dim=-1)
        # Compute the maximum embed dimension
        max_embed_dim = (num_special_image_tokens.max() * (num_image_patches - 1)) + sequence_length
        batch_indices, non_image_indices = torch.where(input_ids != self.config.image_token_index)

        # 2. Compute the positions where text should be written
        # Calculate new positions for text tokens in merged image-text sequence.
        # `special_image_token_mask` identifies image tokens. Each image token will be replaced by `nb_text_tokens_per_images - 1` text tokens.
        # `torch.cumsum` computes how each image token shifts subsequent text token positions.
        # - 1 to adjust for zero-based indexing, as `cumsum` inherently increases indices by one.
        new_token_positions = torch.cumsum((special_image_token_mask * (num_image_patches - 1) + 1), -1) - 1
        nb_image_pad = max_embed_dim - 1 - new_token_positions[:, -1]
        if left_padding:
            new_token_positions += nb_image_pad[:, None]  # offset for left padding
        text_to_overwrite = new_token_positions[batch_indices, non_image_indices]

        # 3. Create the full embedding, already padded to the maximum position
        final_embedding = torch.zeros(
            batch_size, max_embed_dim, embed_dim, dtype=inputs_embeds.dtype, device=inputs_embeds.device
        )
        final_attention_mask = torch.zeros(
            batch_size, max_embed_dim, dtype=attention_mask.dtype, device=inputs_embeds.device
        )
        if labels is not None:
            final_labels = torch.full(
                (batch_size, max_embed_dim), self.config.ignore_index, dtype=input_ids.dtype, device=input_ids.device
            )
        # In case the Vision model or the Language model has been offloaded to CPU, we need to manually
        # set the corresponding tensors into their correct target device.
        target_device = inputs_embeds.device
        batch_indices, non_image_indices, text_to_overwrite = (
            batch_indices.to(target_device),
            non_image_indices.to(target_device),
            text_to_overwrite.to(target_device),
        )
        attention_mask = attention_mask.to(target_device)

        # 4. Fill the embeddings based on the mask. If we have ["hey" "<image>", "how", "are"]
        # we need to index copy on [0, 577, 578, 579] for the text and [1:576] for the image features
        final_embedding[batch_indices, text_to_overwrite] = inputs_embeds[batch_indices, non_image_indices]
        final_attention_mask[batch_indices, text_to_overwrite] = attention_mask[batch_indices, non_image_indices]
        if labels is not None:
            final_labels[batch_indices, text_to_overwrite] = labels[batch_indices, non_image_indices]

        # 5. Fill the embeddings corresponding to the images. Anything that is not `text_positions` needs filling (#29835)
        image_to_overwrite = torch.full(
            (batch_size, max_embed_dim), True, dtype=torch.bool, device=inputs_embeds.device
        )
        image_to_overwrite[batch_indices, text_to_overwrite] = False
        image_to_overwrite &= image_to_overwrite.cumsum(-1) - 1 >= nb_image_pad[:, None].to(target_device)

        if image_to_overwrite.sum() != image_features.shape[:-1].numel():
            raise ValueError(
                f"The input provided to the model are wrong. The number of image tokens is {torch.sum(special_image_token_mask)} while"
                f" the number of image given to the model is {num_images}. This prevents correct indexing and breaks batch generation."
            )

        final_embedding[image_to_overwrite] = image_features.contiguous().reshape(-1, embed_dim).to(target_device)
        final_attention_mask |= image_to_overwrite
        position_ids = (final_attention_mask.cumsum(-1) - 1).masked_fill_((final_attention_mask == 0), 1)

        # 6. Mask out the embedding at padding positions, as we later use the past_key_value value to determine the non-attended tokens.
        batch_indices, pad_indices = torch.where(input_ids == self.pad_token_id)
        indices_to_mask = new_token_positions[batch_indices, pad_indices]

        final_embedding[batch_indices, indices_to_mask] = 0

        if labels is None:
            final_labels = None

        return final_embedding, final_attention_mask, final_labels, position_ids

    def forward(self, input_ids, pixel_values, attention_mask):
        vision_feature_layer = self.config.vision_feature_layer
        vision_feature_select_strategy = self.config.vision_feature_select_strategy
        labels = None

        # 1. Extra the input embeddings
        inputs_embeds = self.get_input_embeddings()(input_ids)

        # 2. Merge text and images
        if pixel_values is not None and input_ids.shape[1] != 1:
            image_outputs = self.vision_tower(pixel_values)
            # this is not memory efficient at all (output_hidden_states=True) will save all the hidden stated.
            selected_image_feature = image_outputs[vision_feature_layer]

            if vision_feature_select_strategy == "default":
                selected_image_feature = selected_image_feature[:, 1:]
            elif vision_feature_select_strategy == "full":
                selected_image_feature = selected_image_feature
            else:
                raise ValueError(f"Unexpected select feature strategy: {self.config.vision_feature_select_strategy}")

            image_features = self.multi_modal_projector(selected_image_feature)
            inputs_embeds = inputs_embeds.to(image_features.dtype)
            inputs_embeds, attention_mask, labels, position_ids = self._merge_input_ids_with_image_features(
                image_features, inputs_embeds, input_ids, attention_mask, labels
            )

        hidden_states = self.language_model(inputs_embeds)
        return hidden_states, attention_mask, position_ids


def make_model():
    return LlavaForConditionalGeneration(LlavaConfig()).eval()


def _prompt(batch, seq, image_pos, size=32):
    # one "<image>" token per prompt, left-padded as for batched generation
    input_ids = torch.randint(1, 31, (batch, seq))
    attention_mask = torch.ones(batch, seq, dtype=torch.long)
    for b, p in enumerate(image_pos):
        input_ids[b, p] = LlavaConfig.image_token_index
    if batch > 1:
        input_ids[-1, 0] = LlavaConfig.pad_token_id
        attention_mask[-1, 0] = 0
    return input_ids, torch.randn(batch, 3, size, size), attention_mask


def example_inputs():
    return _prompt(2, 9, [2, 4])


def other_inputs():
    return [_prompt(3, 14, [1, 6, 10]), _prompt(1, 6, [3])]


def probe_inputs():
    return other_inputs()
