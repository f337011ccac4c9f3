"""anomalib PatchCore inference after PR #3415 ("Solves GPU memory bottleneck (kNN) during inference"):
`nearest_neighbors` now takes `n = embedding.shape[0]` (batch * h * w patches) and branches on
`if n <= chunk_size`, else loops `for start_idx in range(0, n, chunk_size)` with
`end_idx = min(start_idx + chunk_size, n)` slices and `torch.cat`s the per-chunk min distances. The PR
notes an earlier version of the chunking "breaks ONNX export"; the merged branch/loop still depends on the
exported (dynamic) batch size, so the chunk count and slice ends are fixed at export time.

Source: https://github.com/open-edge-platform/anomalib/pull/3415
(code: https://github.com/open-edge-platform/anomalib/blob/6af6cb05fecd498ffc8157bdbea30de7611ca52c/src/anomalib/models/image/patchcore/torch_model.py)
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_tensor": {0: "batch"}}
BLIND = "domains-84"

DEFAULT_CHUNK_SIZE = 1024


class PatchcoreModel(nn.Module):
    def __init__(self, channels=32, memory_bank_size=200):
        super().__init__()
        # wide_resnet50 layer2/layer3 stand-in: stride-8 features, 28x28 patches for 224x224 inputs
        self.feature_extractor = nn.Sequential(
            nn.Conv2d(3, channels, 3, stride=4, padding=1), nn.ReLU(),
            nn.Conv2d(channels, channels, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.feature_pooler = nn.AvgPool2d(3, 1, 1)
        self.register_buffer("memory_bank", torch.randn(memory_bank_size, channels))
        self.num_neighbors = 1

    @staticmethod
    def reshape_embedding(embedding: torch.Tensor) -> torch.Tensor:
        embedding_size = embedding.size(1)
        return embedding.permute(0, 2, 3, 1).reshape(-1, embedding_size)

    @staticmethod
    def euclidean_dist(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x_norm = x.pow(2).sum(dim=-1, keepdim=True)
        y_norm = y.pow(2).sum(dim=-1, keepdim=True)
        res = torch.matmul(x, y.transpose(-2, -1))
        res.mul_(-2)
        res.add_(x_norm)
        res.add_(y_norm.transpose(-2, -1))
        return res.clamp_min_(0).sqrt_()

    def nearest_neighbors(self, embedding: torch.Tensor, n_neighbors: int):
        n = embedding.shape[0]
        chunk_size = DEFAULT_CHUNK_SIZE

        if n <= chunk_size:
            # Small embedding set: process all at once
            distances = self.euclidean_dist(embedding, self.memory_bank)
            if n_neighbors == 1:
                patch_scores, locations = distances.min(1)
            else:
                patch_scores, locations = distances.topk(k=n_neighbors, largest=False, dim=1)
        else:
            # Large embedding set: process in chunks
            all_scores = []
            all_locations = []

            for start_idx in range(0, n, chunk_size):
                end_idx = min(start_idx + chunk_size, n)
                embedding_chunk = embedding[start_idx:end_idx]

                distances = self.euclidean_dist(embedding_chunk, self.memory_bank)

                if n_neighbors == 1:
                    chunk_scores, chunk_locations = distances.min(1)
                else:
                    chunk_scores, chunk_locations = distances.topk(k=n_neighbors, largest=False, dim=1)

                all_scores.append(chunk_scores)
                all_locations.append(chunk_locations)
                del distances

            patch_scores = torch.cat(all_scores, dim=0)
            locations = torch.cat(all_locations, dim=0)

        return patch_scores, locations

    def forward(self, input_tensor):
        input_tensor = input_tensor.type(self.memory_bank.dtype)
        output_size = input_tensor.shape[-2:]
        with torch.no_grad():
            features = self.feature_extractor(input_tensor)
        embedding = self.feature_pooler(features)

        batch_size, _, width, height = embedding.shape
        embedding = self.reshape_embedding(embedding)

        patch_scores, locations = self.nearest_neighbors(embedding=embedding, n_neighbors=1)
        patch_scores = patch_scores.reshape((batch_size, -1))
        locations = locations.reshape((batch_size, -1))
        pred_score = patch_scores.amax(1)
        patch_scores = patch_scores.reshape((batch_size, 1, width, height))
        anomaly_map = F.interpolate(patch_scores, size=(output_size[0], output_size[1]))
        return pred_score, anomaly_map


def make_model():
    return PatchcoreModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 224, 224),)


def other_inputs():
    return [(torch.randn(3, 3, 224, 224),), (torch.randn(1, 3, 224, 224),)]


def probe_inputs():
    return other_inputs()
