"""Phi-4-multimodal (trust_remote_code `Phi4MMImageEmbedding`) HD transform: a Python loop over the images reads
`h, w = img_sizes[_bs][0].item(), img_sizes[_bs][1].item()`, keeps the `B_ = h * w` real crops, and trims the
padded canvas with `useful_height = reshaped_image_attention_mask[0, :, 0].sum().to(torch.int64).item()` (and
`useful_width`) before `sub_img[:, :useful_height, :useful_width]` / `sub_GN.repeat(1, useful_height, 1, 1)`.
onnx-diagnostic's Phi4-MM export had to rewrite this loop (a `simple_loop_for` with `torch.sym_int`/`torch._check`).
(Vision encoder output taken as input; the scatter into the text embeddings is left out.)

Source: https://github.com/sdpython/onnx-diagnostic/pull/360
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {
    "img_features": {0: "num_images", 1: "num_crops"},
    "img_sizes": {0: "num_images"},
    "image_attention_mask": {0: "num_images", 1: "num_crops"},
}
BLIND = "domains-53"


class Phi4MMImageEmbedding(nn.Module):
    def __init__(self, image_dim_out=8, hidden_size=16, crop_size=448):
        super().__init__()
        self.image_dim_out = image_dim_out
        self.crop_size = crop_size
        self.base_feat_height_reduction = 1
        r = self.base_feat_height_reduction
        self.glb_GN = nn.Parameter(torch.randn([1, 1, image_dim_out * r ** 2]))
        self.sub_GN = nn.Parameter(torch.randn([1, 1, 1, image_dim_out * r ** 2]))
        self.img_projection = nn.Sequential(nn.Linear(image_dim_out, hidden_size), nn.GELU(),
                                            nn.Linear(hidden_size, hidden_size))

    def forward(self, img_features, img_sizes, image_attention_mask):
        base_resolution = self.crop_size
        base_feat_height_reduction = self.base_feat_height_reduction
        base_feat_height = base_feat_width = int(img_features.shape[2] ** 0.5)

        # bs x max_num_crops x (24x24) x C
        bs = img_features.shape[0]
        C = self.image_dim_out
        H = base_feat_height
        glb_GN, sub_GN = self.glb_GN, self.sub_GN

        output_imgs = []
        output_len = []
        # training is tensor, inference is list
        if isinstance(img_sizes, torch.Tensor):
            img_sizes = img_sizes.view(-1, 2)
        for _bs in range(bs):
            h, w = img_sizes[_bs][0].item(), img_sizes[_bs][1].item()
            h = h // base_resolution
            w = w // base_resolution
            B_ = h * w

            # 1 x (24x24) x 1024
            global_img_feature = img_features[_bs, :1]

            # 1 x 12 x 12 x 4096
            glb_img = global_img_feature.reshape(1, H, H, C).reshape(
                1, H // base_feat_height_reduction, base_feat_height_reduction,
                H // base_feat_height_reduction, base_feat_height_reduction, C,
            ).contiguous().permute(0, 1, 3, 2, 4, 5).reshape(
                1, H // base_feat_height_reduction, H // base_feat_height_reduction,
                base_feat_height_reduction * base_feat_height_reduction * C,
            ).contiguous()
            temp_glb_GN = sub_GN.repeat(1, H // base_feat_height_reduction, 1, 1)

            # 1 x 156 x 4096
            glb_img = torch.cat([glb_img, temp_glb_GN], dim=2).reshape(
                1, -1, base_feat_height_reduction * base_feat_height_reduction * C
            )

            # (max_num_crops-1) x (12x12) x C
            sub_img = img_features[_bs, 1:]
            # get rid of padding sub_img
            sub_img = sub_img[:B_]

            sub_img = sub_img.reshape(B_, H, H, C).reshape(
                B_, H // base_feat_height_reduction, base_feat_height_reduction,
                H // base_feat_height_reduction, base_feat_height_reduction, C,
            ).contiguous().permute(0, 1, 3, 2, 4, 5).reshape(
                B_, -1, base_feat_height_reduction * base_feat_height_reduction * C
            ).contiguous()
            sub_img = sub_img.reshape(
                1, h, w, base_feat_height // base_feat_height_reduction,
                base_feat_width // base_feat_height_reduction, -1,
            ).permute(0, 1, 3, 2, 4, 5).reshape(
                1, h * base_feat_height // base_feat_height_reduction,
                w * base_feat_width // base_feat_height_reduction,
                base_feat_height_reduction * base_feat_height_reduction * C,
            )

            if image_attention_mask is not None and len(image_attention_mask) > 0:
                reshaped_image_attention_mask = image_attention_mask[_bs, 1 : B_ + 1, 0::2, 0::2].reshape(
                    1, h, w, base_feat_height // base_feat_height_reduction,
                    base_feat_width // base_feat_height_reduction,
                ).permute(0, 1, 3, 2, 4).reshape(
                    1, h * base_feat_height // base_feat_height_reduction,
                    w * base_feat_width // base_feat_height_reduction,
                )
                useful_height = reshaped_image_attention_mask[0, :, 0].sum().to(torch.int64).item()
                useful_width = reshaped_image_attention_mask[0, 0, :].sum().to(torch.int64).item()
                sub_img = sub_img[:, :useful_height, :useful_width]
                temp_sub_GN = sub_GN.repeat(1, useful_height, 1, 1)
                temp_len = (
                    image_attention_mask[_bs, : B_ + 1, 0::2, 0::2].sum().to(torch.int64).item()
                    + (useful_height + 1)
                    + base_feat_height // base_feat_height_reduction
                )
            else:
                temp_sub_GN = sub_GN.repeat(1, h * base_feat_height // base_feat_height_reduction, 1, 1)
                temp_len = int((h * w + 1) * H * H + 1 + (h + 1) * base_feat_height // base_feat_height_reduction)

            sub_img = torch.cat([sub_img, temp_sub_GN], dim=2).reshape(
                1, -1, base_feat_height_reduction * base_feat_height_reduction * C
            )
            # sub_glb
            output_imgs.append(torch.cat([sub_img, glb_GN, glb_img], dim=1))
            output_len.append(temp_len)

        img_set_tensor = []
        for _output_img in output_imgs:
            img_feature_proj = self.img_projection(_output_img)
            img_set_tensor.append(img_feature_proj)
        # Shape: (merged_N_tokens, C)
        merged_img_set_tensor = torch.cat(img_set_tensor, dim=1).squeeze(0)
        return merged_img_set_tensor


H, C, CROP = 4, 8, 448


def _inputs(images, max_crops):
    """images: list of (h_crops, w_crops, valid_rows, valid_cols) on the 2H-per-crop mask grid."""
    bs = len(images)
    feats = torch.randn(bs, 1 + max_crops, H * H, C)
    sizes = torch.tensor([[hc * CROP, wc * CROP] for hc, wc, _, _ in images], dtype=torch.int64)
    mask = torch.zeros(bs, 1 + max_crops, 2 * H, 2 * H)
    for b, (hc, wc, vr, vc) in enumerate(images):
        mask[b, 0] = 1.0
        canvas = torch.zeros(hc * 2 * H, wc * 2 * H)
        canvas[:vr, :vc] = 1.0
        k = 1
        for i in range(hc):
            for j in range(wc):
                mask[b, k] = canvas[i * 2 * H:(i + 1) * 2 * H, j * 2 * H:(j + 1) * 2 * H]
                k += 1
    return feats, sizes, mask


def make_model():
    return Phi4MMImageEmbedding().eval()


def example_inputs():
    return _inputs([(2, 1, 16, 6), (1, 2, 6, 14)], max_crops=2)


def other_inputs():
    return [
        _inputs([(2, 2, 12, 16), (1, 1, 8, 8), (1, 3, 8, 20)], max_crops=4),
        _inputs([(3, 1, 22, 8)], max_crops=3),
    ]


def probe_inputs():
    return other_inputs()
