"""anomalib CflowModel: the forward splits the B*H*W feature vectors of each pool layer into fiber batches
with `fiber_batches = embedding_length // self.fiber_batch_size + int(...)`, loops `for batch_num in range(fiber_batches)`
and branches `if batch_num < (fiber_batches - 1)`; exporting it for OpenVINO prints the TracerWarning on that line
(the loop count, which depends on the batch size, is frozen into the trace).

Source: https://github.com/open-edge-platform/anomalib/issues/612
"""
import math
from typing import List, Tuple

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "domains-47"


def get_logp(dim_feature_vector: int, p_u: torch.Tensor, logdet_j: torch.Tensor) -> torch.Tensor:
    ln_sqrt_2pi = -np.log(np.sqrt(2 * np.pi))  # ln(sqrt(2*pi))
    logp = dim_feature_vector * ln_sqrt_2pi - 0.5 * torch.sum(p_u**2, 1) + logdet_j
    return logp


def positional_encoding_2d(condition_vector: int, height: int, width: int) -> torch.Tensor:
    if condition_vector % 4 != 0:
        raise ValueError(f"Cannot use sin/cos positional encoding with odd dimension (got dim={condition_vector})")
    pos_encoding = torch.zeros(condition_vector, height, width)
    # Each dimension use half of condition_vector
    condition_vector = condition_vector // 2
    div_term = torch.exp(torch.arange(0.0, condition_vector, 2) * -(math.log(1e4) / condition_vector))
    pos_w = torch.arange(0.0, width).unsqueeze(1)
    pos_h = torch.arange(0.0, height).unsqueeze(1)
    pos_encoding[0:condition_vector:2, :, :] = (
        torch.sin(pos_w * div_term).transpose(0, 1).unsqueeze(1).repeat(1, height, 1)
    )
    pos_encoding[1:condition_vector:2, :, :] = (
        torch.cos(pos_w * div_term).transpose(0, 1).unsqueeze(1).repeat(1, height, 1)
    )
    pos_encoding[condition_vector::2, :, :] = (
        torch.sin(pos_h * div_term).transpose(0, 1).unsqueeze(2).repeat(1, 1, width)
    )
    pos_encoding[condition_vector + 1 :: 2, :, :] = (
        torch.cos(pos_h * div_term).transpose(0, 1).unsqueeze(2).repeat(1, 1, width)
    )
    return pos_encoding


class FeatureExtractor(nn.Module):
    """Stand-in for the timm backbone: returns a dict of layer activations."""

    def __init__(self):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
        self.out_dims = [16, 32]

    def forward(self, x):
        f1 = self.layer1(x)
        f2 = self.layer2(f1)
        return {"layer1": f1, "layer2": f2}


class ConditionalCoupling(nn.Module):
    """Stand-in for the FrEIA conditional flow head: returns (z, log_jac_det)."""

    def __init__(self, n_features, condition_vector):
        super().__init__()
        self.scale = nn.Linear(condition_vector, n_features)
        self.shift = nn.Linear(condition_vector, n_features)

    def forward(self, x, c):
        s = torch.tanh(self.scale(c[0]))
        return x * torch.exp(s) + self.shift(c[0]), s.sum(1)


class AnomalyMapGenerator(nn.Module):
    def __init__(self, image_size: Tuple, pool_layers: List[str]):
        super().__init__()
        self.image_size = image_size if isinstance(image_size, tuple) else tuple(image_size)
        self.pool_layers: List[str] = pool_layers

    def compute_anomaly_map(self, distribution: List[torch.Tensor], height: List[int], width: List[int]) -> torch.Tensor:
        layer_maps: List[torch.Tensor] = []
        for layer_idx in range(len(self.pool_layers)):
            layer_distribution = distribution[layer_idx].clone().detach()
            # Normalize the likelihoods to (-Inf:0] and convert to probs in range [0:1]
            layer_probabilities = torch.exp(layer_distribution - layer_distribution.max())
            layer_map = layer_probabilities.reshape(-1, height[layer_idx], width[layer_idx])
            # upsample
            layer_maps.append(
                F.interpolate(
                    layer_map.unsqueeze(1), size=self.image_size, mode="bilinear", align_corners=True
                ).squeeze(1)
            )
        # score aggregation
        score_map = torch.zeros_like(layer_maps[0])
        for layer_idx in range(len(self.pool_layers)):
            score_map += layer_maps[layer_idx]

        # Invert probs to anomaly scores
        anomaly_map = score_map.max() - score_map

        return anomaly_map

    def forward(self, **kwargs):
        return self.compute_anomaly_map(kwargs["distribution"], kwargs["height"], kwargs["width"])


class CflowModel(nn.Module):
    """CFLOW: Conditional Normalizing Flows."""

    def __init__(self, input_size=(64, 64), layers=("layer1", "layer2"), fiber_batch_size: int = 64,
                 condition_vector: int = 16):
        super().__init__()
        self.fiber_batch_size = fiber_batch_size
        self.condition_vector: int = condition_vector
        self.pool_layers = list(layers)
        self.encoder = FeatureExtractor()
        self.pool_dims = self.encoder.out_dims
        self.decoders = nn.ModuleList(
            [ConditionalCoupling(pool_dim, self.condition_vector) for pool_dim in self.pool_dims]
        )
        self.anomaly_map_generator = AnomalyMapGenerator(image_size=tuple(input_size), pool_layers=self.pool_layers)

    def forward(self, images):
        self.encoder.eval()
        self.decoders.eval()
        with torch.no_grad():
            activation = self.encoder(images)

        distribution = [torch.Tensor(0).to(images.device) for _ in self.pool_layers]

        height: List[int] = []
        width: List[int] = []
        for layer_idx, layer in enumerate(self.pool_layers):
            encoder_activations = activation[layer]  # BxCxHxW

            batch_size, dim_feature_vector, im_height, im_width = encoder_activations.size()
            image_size = im_height * im_width
            embedding_length = batch_size * image_size  # number of rows in the conditional vector

            height.append(im_height)
            width.append(im_width)
            # repeats positional encoding for the entire batch 1 C H W to B C H W
            # (einops.repeat "b c h w-> (tile b) c h w" / einops.rearrange "b c h w -> (b h w) c" in the original)
            pos_encoding = positional_encoding_2d(self.condition_vector, im_height, im_width).unsqueeze(0).repeat(
                batch_size, 1, 1, 1
            ).to(images.device)
            c_r = pos_encoding.permute(0, 2, 3, 1).reshape(-1, self.condition_vector)  # BHWxP
            e_r = encoder_activations.permute(0, 2, 3, 1).reshape(-1, dim_feature_vector)  # BHWxC
            decoder = self.decoders[layer_idx].to(images.device)

            # Sometimes during validation, the last batch E / N is not a whole number. Hence we need to add 1.
            fiber_batches = embedding_length // self.fiber_batch_size + int(
                embedding_length % self.fiber_batch_size > 0
            )

            for batch_num in range(fiber_batches):  # per-fiber processing
                if batch_num < (fiber_batches - 1):
                    idx = torch.arange(batch_num * self.fiber_batch_size, (batch_num + 1) * self.fiber_batch_size)
                else:  # When non-full batch is encountered batch_num+1 * N will go out of bounds
                    idx = torch.arange(batch_num * self.fiber_batch_size, embedding_length)
                c_p = c_r[idx]  # NxP
                e_p = e_r[idx]  # NxC
                # decoder returns the transformed variable z and the log Jacobian determinant
                with torch.no_grad():
                    p_u, log_jac_det = decoder(e_p, [c_p])
                #
                decoder_log_prob = get_logp(dim_feature_vector, p_u, log_jac_det)
                log_prob = decoder_log_prob / dim_feature_vector  # likelihood per dim
                distribution[layer_idx] = torch.cat((distribution[layer_idx], log_prob))

        output = self.anomaly_map_generator(distribution=distribution, height=height, width=width)
        self.decoders.train()

        return output.to(images.device)


def make_model():
    return CflowModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
