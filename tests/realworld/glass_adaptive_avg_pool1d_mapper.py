"""GLASS (industrial anomaly detection, PatchCore-style embedding) maps every backbone layer's patch features to a
common size with `F.adaptive_avg_pool1d(features, self.preprocessing_dim)` (MeanMapper) and pools the stacked
layers again to `target_dim` (Aggregator); pth2onnx.py fails with "Unsupported: ONNX export of operator
adaptive_avg_pool1d".

Source: https://github.com/cqylunlun/GLASS/issues/43
"""
import torch
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feat2": {0: "num_patches"}, "feat3": {0: "num_patches"}}
BLIND = "operators-2"


class MeanMapper(torch.nn.Module):
    def __init__(self, preprocessing_dim):
        super(MeanMapper, self).__init__()
        self.preprocessing_dim = preprocessing_dim

    def forward(self, features):
        features = features.reshape(len(features), 1, -1)
        return F.adaptive_avg_pool1d(features, self.preprocessing_dim).squeeze(1)


class Preprocessing(torch.nn.Module):
    def __init__(self, input_dims, output_dim):
        super(Preprocessing, self).__init__()
        self.input_dims = input_dims
        self.output_dim = output_dim

        self.preprocessing_modules = torch.nn.ModuleList()
        for input_dim in input_dims:
            module = MeanMapper(output_dim)
            self.preprocessing_modules.append(module)

    def forward(self, features):
        _features = []
        for module, feature in zip(self.preprocessing_modules, features):
            _features.append(module(feature))
        return torch.stack(_features, dim=1)


class Aggregator(torch.nn.Module):
    def __init__(self, target_dim):
        super(Aggregator, self).__init__()
        self.target_dim = target_dim

    def forward(self, features):
        """Returns reshaped and average pooled features."""
        features = features.reshape(len(features), 1, -1)
        features = F.adaptive_avg_pool1d(features, self.target_dim)
        return features.reshape(len(features), -1)


class PatchEmbedder(torch.nn.Module):
    def __init__(self, input_dims=(40, 72), pretrain_embed_dimension=48, target_embed_dimension=40):
        super().__init__()
        self.preprocessing = Preprocessing(input_dims, pretrain_embed_dimension)
        self.preadapt_aggregator = Aggregator(target_dim=target_embed_dimension)

    def forward(self, feat2, feat3):
        # patchified layer2 / layer3 features: (num_patches, C, patchsize, patchsize)
        features = self.preprocessing([feat2, feat3])
        return self.preadapt_aggregator(features)


def make_model():
    return PatchEmbedder()


def example_inputs():
    return (torch.randn(64, 40, 3, 3), torch.randn(64, 72, 3, 3))


def other_inputs():
    return [(torch.randn(100, 40, 3, 3), torch.randn(100, 72, 3, 3)),
            (torch.randn(9, 40, 3, 3), torch.randn(9, 72, 3, 3))]


def probe_inputs():
    return other_inputs()
