"""Phi-3-vision / Phi-3.5-vision remote code (image_embedding_phi3_v.py) turns the CLIP crop features
into HD image embeddings in `hd_feature_transform`: a Python loop over `image_sizes` that reads
`h, w = img_size`, computes `h_crop = h // 336`, slices `image_features[i, 1 : 1 + num_crops]` and
reshapes with those values. optimum-intel's Phi-3-vision export keeps only `get_img_features` in the
exported vision model and re-implements `hd_feature_transform` in Python at inference time.

Source: https://github.com/huggingface/optimum-intel/pull/977
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"img_features": {0: "num_images", 1: "num_crops"}, "image_sizes": {0: "num_images"}}
BLIND = "domains-44"


class Phi3ImageEmbeddingHD(nn.Module):
    def __init__(self, image_dim_out=1024, hidden_size=64):
        super().__init__()
        self.image_dim_out = image_dim_out
        self.hd_transform_order = 'sub_glb'
        self.glb_GN = nn.Parameter(torch.zeros([1, 1, self.image_dim_out * 4]))
        self.sub_GN = nn.Parameter(torch.zeros([1, 1, 1, self.image_dim_out * 4]))
        self.img_projection = nn.Sequential(
            nn.Linear(image_dim_out * 4, hidden_size), nn.GELU(), nn.Linear(hidden_size, hidden_size)
        )

    def hd_feature_transform(self, image_features, image_sizes):
        """
        image_features: (num_images, num_crops+1, 24*24, 1024)
        """
        assert (
            self.hd_transform_order == 'sub_glb'
        ), f'hd_transform_order `{self.hd_transform_order}` not implemented'
        if isinstance(self.img_projection, nn.Sequential):
            target_device = self.img_projection[0].bias.device
            target_dtype = self.img_projection[0].bias.dtype
        else:  # It's a single nn.Linear layer
            target_device = self.img_projection.bias.device
            target_dtype = self.img_projection.bias.dtype

        global_image_features = image_features[:, 0]  # (num_images, 24*24, 1024)
        # global feature can be viewed as a special HD case with num_crops 1x1
        global_image_features_hd = self.reshape_hd_patches_2x2merge(global_image_features, 1, 1)
        global_image_features_hd_newline = self.add_image_newline(global_image_features_hd)

        all_image_embeddings = []
        # need a for loop to process each image because of different image sizes
        # (patch arrangement is different for each image)
        for i, img_size in enumerate(image_sizes):
            h, w = img_size
            h_crop = h // 336
            w_crop = w // 336
            num_crops = h_crop * w_crop

            # NOTE: real num_crops is padded
            # (num_crops, 24*24, 1024)
            sub_image_features = image_features[i, 1 : 1 + num_crops]
            sub_image_features_hd = self.reshape_hd_patches_2x2merge(sub_image_features, h_crop, w_crop)
            sub_image_features_hd_newline = self.add_image_newline(sub_image_features_hd)

            # [sub features, separator, global features]
            all_image_embeddings.extend(
                [
                    sub_image_features_hd_newline.squeeze(0),  # (h_crop*12*(w_crop*12+1), 4096)
                    self.glb_GN.squeeze(0),
                    global_image_features_hd_newline[i],
                ]
            )

        image_features_proj = self.img_projection(
            torch.cat(all_image_embeddings, dim=0).to(target_device).to(target_dtype)
        )

        return image_features_proj

    def reshape_hd_patches_2x2merge(self, image_features, h_crop, w_crop):
        """
        image_features: (num_images*num_crops, 24*24, 1024)
        output: (num_images, h_crop*12, w_crop*12, 4096), h_crop*w_crop == num_crops
        """
        N, L, C = image_features.shape
        assert L == 24 * 24 and C == 1024 and N % (h_crop * w_crop) == 0
        num_images = N // (h_crop * w_crop)
        H = int(L**0.5)
        image_features_hd = (
            image_features.reshape(N, H, H, C)  # N, 24, 24, 1024
            .reshape(N, H // 2, 2, H // 2, 2, C)  # N, 12, 2, 12, 2, 1024
            .permute(0, 1, 3, 2, 4, 5)  # N, 12, 12, 2, 2, 1024
            .reshape(N, -1, 4 * C)  # N, 144, 4096
            .reshape(num_images, h_crop, w_crop, H // 2, H // 2, -1)  # n_img, h_crop, w_crop, 12, 12, 4096
            .permute(0, 1, 3, 2, 4, 5)  # n_img, h_crop, 12, w_crop, 12, 4096
            .reshape(num_images, h_crop * H // 2, w_crop * H // 2, 4 * C)  # n_img, h_crop*12, w_crop*12, 4096
        )
        return image_features_hd

    def add_image_newline(self, image_features_hd):
        """
        image_features_hd: (num_images, h_crop*12, w_crop*12, 4096)
        output: (num_images, (h_crop*12) * (w_crop*12+1), 4096)
        """
        num_images, h, w, hid_dim = image_features_hd.shape
        # add the newline token to the HD image feature patches
        newline_embeddings = self.sub_GN.expand(num_images, h, -1, -1)  # (n_img, h, 1, hid_dim)
        image_features_hd_newline = torch.cat(
            [image_features_hd, newline_embeddings], dim=2
        ).reshape(num_images, -1, hid_dim)
        return image_features_hd_newline

    def forward(self, img_features, image_sizes):
        # img_features = self.get_img_features(pixel_values.flatten(0, 1)).reshape(num_images, num_crops, -1, self.image_dim_out)
        return self.hd_feature_transform(img_features, image_sizes)


def make_model():
    return Phi3ImageEmbeddingHD().eval()


def _inputs(sizes, max_crops):
    return (torch.randn(len(sizes), max_crops + 1, 24 * 24, 1024), torch.tensor(sizes, dtype=torch.int64))


def example_inputs():
    return _inputs([[672, 672], [336, 672]], 4)


def other_inputs():
    return [_inputs([[1008, 672], [336, 336], [672, 1008]], 6), _inputs([[336, 672]], 2)]


def probe_inputs():
    return other_inputs()
