"""DeepSeek-OCR's DeepseekOCRModel.forward only runs the SAM + CLIP vision towers when
`torch.sum(images[0][1]).item() != 0`, then per image branches again on `torch.sum(patches).item() != 0`,
views the local features with the crop counts read from `images_spatial_crop` and splices them into the
text embeddings with `masked_scatter_`; tt-forge-models' tt-xla bring-up failed there ("a Tensor with
3145728 elements cannot be converted to Scalar": the `.item()` of the image sum was not captured in the
graph) and patched the sum (and the numpy token counts of the MoE).

Source: https://github.com/tenstorrent/tt-forge-models/pull/383
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {1: "seq"}, "patches": {0: "crops"}, "images_seq_mask": {1: "seq"}}
BLIND = "domains-56"


class TinySam(nn.Module):
    # stands in for build_sam_vit_b(): (n, 3, H, W) -> (n, C, H/16, W/16)
    def __init__(self, c=12):
        super().__init__()
        self.patch = nn.Conv2d(3, c, 16, 16)
        self.neck = nn.Conv2d(c, c, 3, 1, 1)

    def forward(self, x):
        return self.neck(torch.relu(self.patch(x)))


class TinyClip(nn.Module):
    # stands in for build_clip_l(): takes the SAM features as patch embeddings, returns [cls] + tokens
    def __init__(self, c=12, d=20):
        super().__init__()
        self.proj = nn.Linear(c, d)
        self.class_embedding = nn.Parameter(torch.randn(d))
        self.layer = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU())

    def forward(self, x, patch_embeds):
        tokens = self.proj(patch_embeds.flatten(2).permute(0, 2, 1))
        cls = self.class_embedding[None, None, :].expand(tokens.shape[0], 1, -1)
        return self.layer(torch.cat([cls, tokens], dim=1))


class DeepseekOCRModel(nn.Module):
    def __init__(self, vocab=100, n_embed=32):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, n_embed)
        self.sam_model = TinySam()
        self.vision_model = TinyClip()
        self.projector = nn.Linear(12 + 20, n_embed)  # MlpProjector(projector_type="linear", input_dim=2048)
        embed_std = 1 / torch.sqrt(torch.tensor(n_embed, dtype=torch.float32))
        self.image_newline = nn.Parameter(torch.randn(n_embed) * embed_std)
        self.view_seperator = nn.Parameter(torch.randn(n_embed) * embed_std)
        self.norm = nn.LayerNorm(n_embed)  # stands in for the DeepseekV2 decoder (super().forward)

    def get_input_embeddings(self):
        return self.embed_tokens

    def forward(self, input_ids, images=None, images_seq_mask=None, images_spatial_crop=None,
                inputs_embeds=None):
        if inputs_embeds is None:
            inputs_embeds = self.get_input_embeddings()(input_ids)

        sam_model = getattr(self, "sam_model", None)
        vision_model = getattr(self, "vision_model", None)

        if (
            sam_model is not None
            and (input_ids.shape[1] != 1 or self.training)
            and torch.sum(images[0][1]).item() != 0
        ):

            idx = 0
            for image, crop_shape in zip(images, images_spatial_crop):
                images_in_this_batch = []

                patches = image[0]
                image_ori = image[1]

                with torch.no_grad():

                    if torch.sum(patches).item() != 0:
                        local_features_1 = sam_model(patches)
                        local_features_2 = vision_model(patches, local_features_1)
                        local_features = torch.cat(
                            (local_features_2[:, 1:], local_features_1.flatten(2).permute(0, 2, 1)),
                            dim=-1,
                        )
                        local_features = self.projector(local_features)
                        global_features_1 = sam_model(image_ori)
                        global_features_2 = vision_model(image_ori, global_features_1)
                        global_features = torch.cat(
                            (global_features_2[:, 1:], global_features_1.flatten(2).permute(0, 2, 1)),
                            dim=-1,
                        )
                        global_features = self.projector(global_features)
                        _, hw, n_dim = global_features.shape
                        h = w = int(hw**0.5)

                        _2, hw2, n_dim2 = local_features.shape
                        h2 = w2 = int(hw2**0.5)

                        width_crop_num, height_crop_num = crop_shape[0], crop_shape[1]

                        global_features = global_features.view(h, w, n_dim)
                        global_features = torch.cat(
                            [global_features, self.image_newline[None, None, :].expand(h, 1, n_dim)],
                            dim=1,
                        )
                        global_features = global_features.view(-1, n_dim)

                        local_features = (
                            local_features.view(height_crop_num, width_crop_num, h2, w2, n_dim2)
                            .permute(0, 2, 1, 3, 4)
                            .reshape(height_crop_num * h2, width_crop_num * w2, n_dim2)
                        )
                        local_features = torch.cat(
                            [local_features,
                             self.image_newline[None, None, :].expand(height_crop_num * h2, 1, n_dim2)],
                            dim=1,
                        )
                        local_features = local_features.view(-1, n_dim2)

                        global_local_features = torch.cat(
                            [local_features, global_features, self.view_seperator[None, :]], dim=0
                        )

                    else:
                        global_features_1 = sam_model(image_ori)
                        global_features_2 = vision_model(image_ori, global_features_1)
                        global_features = torch.cat(
                            (global_features_2[:, 1:], global_features_1.flatten(2).permute(0, 2, 1)),
                            dim=-1,
                        )
                        global_features = self.projector(global_features)
                        _, hw, n_dim = global_features.shape
                        h = w = int(hw**0.5)

                        global_features = global_features.view(h, w, n_dim)
                        global_features = torch.cat(
                            [global_features, self.image_newline[None, None, :].expand(h, 1, n_dim)],
                            dim=1,
                        )
                        global_features = global_features.view(-1, n_dim)
                        global_local_features = torch.cat(
                            [global_features, self.view_seperator[None, :]], dim=0
                        )

                    images_in_this_batch.append(global_local_features)

                if images_in_this_batch:
                    images_in_this_batch = torch.cat(images_in_this_batch, dim=0)
                    inputs_embeds[idx].masked_scatter_(
                        images_seq_mask[idx].unsqueeze(-1),
                        images_in_this_batch,
                    )

                idx += 1

        return self.norm(inputs_embeds)


class OCRExport(nn.Module):
    # the loader's call: images=[(images_crop, images_ori)], images_spatial_crop=[[w_crops, h_crops]]
    def __init__(self):
        super().__init__()
        self.model = DeepseekOCRModel()

    def forward(self, input_ids, patches, image_ori, images_seq_mask, images_spatial_crop):
        return self.model(input_ids, images=[(patches, image_ori)], images_seq_mask=images_seq_mask,
                          images_spatial_crop=images_spatial_crop)


def make_model():
    return OCRExport().eval()


def _inputs(seq, w_crops, h_crops):
    # global view 64x64 -> 4x4 tokens (+ newline per row) ; each 32x32 crop -> 2x2 tokens
    n_img = h_crops * 2 * (w_crops * 2 + 1) + 4 * (4 + 1) + 1
    input_ids = torch.randint(0, 100, (1, seq))
    mask = torch.zeros(1, seq, dtype=torch.bool)
    mask[0, 2:2 + n_img] = True
    patches = torch.randn(w_crops * h_crops, 3, 32, 32)
    image_ori = torch.randn(1, 3, 64, 64)
    crop = torch.tensor([[w_crops, h_crops]])
    return (input_ids, patches, image_ori, mask, crop)


def example_inputs():
    return _inputs(40, 2, 1)


def other_inputs():
    return [_inputs(45, 1, 2), _inputs(60, 3, 2)]


def probe_inputs():
    return other_inputs()
