"""EfficientSpeech (on-device TTS): the phoneme encoder upsamples the fused features with the predicted
durations in `FeatureUpsampler` (`feature.repeat_interleave(repetition, dim=0)`, `mel_len.append(feature.shape[0])`,
`max(mel_len)` padding and `torch.LongTensor(mel_len)`); the reporter cannot get an ONNX model that accepts a
dynamic-length phoneme array, and the author answers that this upsampling does not export with a dynamic axis,
so the model is exported with a fixed input size and the wav is trimmed afterwards.
(Self-attention / Mix-FFN blocks and the pitch/energy branches are left out.)

Source: https://github.com/roatienza/efficientspeech/issues/5
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"phoneme": {1: "phoneme_len"}}
BLIND = "domains-10"


class Encoder(nn.Module):
    """ Phoneme Encoder """

    def __init__(self, n_symbols=60, depth=2, embed_dim=128, kernel_size=5, reduction=4):
        super().__init__()

        small_embed_dim = embed_dim // reduction
        dim_ins = [small_embed_dim*(2**i) for i in range(depth-1)]
        dim_ins.insert(0, embed_dim)
        self.dim_outs = [small_embed_dim*2**i for i in range(depth)]
        kernels = [kernel_size-(2 if i > 0 else 0) for i in range(depth)]
        paddings = [k//2 for k in kernels]
        strides = [2 for _ in range(depth-1)]
        strides.insert(0, 1)

        self.embed = nn.Embedding(n_symbols + 1, embed_dim, padding_idx=0)

        self.attn_blocks = nn.ModuleList([])
        for dim_in, dim_out, kernel, stride, padding in zip(dim_ins, self.dim_outs, kernels, strides, paddings):
            self.attn_blocks.append(
                    nn.ModuleList([
                        nn.Conv1d(dim_in, dim_in, kernel_size=kernel, stride=stride, padding=padding, bias=False),
                        nn.Conv1d(dim_in, dim_out, kernel_size=1, bias=False),
                        nn.LayerNorm(dim_out),
                        ]))

    def get_feature_dims(self):
        return self.dim_outs

    def forward(self, phoneme, mask=None):
        features = []
        x = self.embed(phoneme)
        for merge3x3, merge1x1, norm in self.attn_blocks:
            x = x.permute(0, 2, 1)
            x = merge3x3(x)
            x = merge1x1(x)
            x = x.permute(0, 2, 1)
            x = norm(torch.tanh(x) + x)
            features.append(x)
        return features, None


class Fuse(nn.Module):
    """ Fuse Attn Features"""

    def __init__(self, dims, kernel_size=5):
        super().__init__()
        dim = dims[0]
        self.mlps = nn.ModuleList([])
        for d in dims:
            upsample = d // dim
            self.mlps.append(
                    nn.ModuleList([
                        nn.Linear(d, dim),
                        nn.ConvTranspose1d(dim, dim, kernel_size=kernel_size, stride=upsample) if upsample>1 else nn.Identity()
                        ]))
        self.fuse = nn.Linear(dim*len(dims), dim)

    def forward(self, features, mask=None):
        fused_features = []
        for feature, mlps in zip(features, self.mlps):
            mlp, upsample = mlps
            x = mlp(feature)
            x = x.permute(0, 2, 1)
            x = upsample(x)
            if mask is not None:
                x = x[:,:,:mask.shape[1]]
            elif len(fused_features) > 0:
                x = x[:,:,:fused_features[0].shape[-1]]
            fused_features.append(x)
        fused_features = torch.cat(fused_features, dim=-2)
        fused_features = fused_features.permute(0, 2, 1)
        fused_features = self.fuse(fused_features)
        return fused_features


class AcousticDecoder(nn.Module):
    """ Duration Decoder """

    def __init__(self, dim, duration=False):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv1d(dim, dim, kernel_size=3, padding=1), nn.ReLU())
        self.norm1 = nn.LayerNorm(dim)
        self.linear = nn.Linear(dim, 1)
        self.relu = nn.ReLU()
        self.duration = duration

    def forward(self, fused_features):
        y = fused_features.permute(0, 2, 1)
        y = self.conv1(y)
        y = y.permute(0, 2, 1)
        y = self.norm1(y)
        features = y
        y = self.linear(y)
        if self.duration:
            y = self.relu(y)
            return y, features
        return y


class FeatureUpsampler(nn.Module):
    """ Upsample fused features using target or predicted duration"""

    def forward(self, fused_features, fused_masks, duration, max_mel_len=None, train=False):
        mel_len = list()
        features = list()
        masks = list()
        duration = duration.squeeze()

        for feature, mask, repetition in zip(fused_features, fused_masks, duration):
            repetition = repetition.squeeze().long().clamp(min=1)
            feature = feature.repeat_interleave(repetition, dim=0)
            mask = mask.repeat_interleave(repetition, dim=0)
            mel_len.append(feature.shape[0])
            features.append(feature)
            masks.append(mask)

        if max_mel_len is None:
            max_mel_len = max(mel_len)
            features = [F.pad(feature, (0, 0, 0, max_mel_len - feature.shape[0]),
                              "constant", 0.0) for feature in features]
            masks = [F.pad(mask, (0, 0, 0, max_mel_len - mask.shape[0]),
                           "constant", True) for mask in masks]

        features = torch.stack(features)
        masks = torch.stack(masks)
        len_pred = torch.LongTensor(mel_len).to(features.device)
        return features, masks, len_pred


class Phoneme2Mel(nn.Module):
    def __init__(self, embed_dim=128, reduction=4, n_mel_channels=80):
        super().__init__()
        self.encoder = Encoder(embed_dim=embed_dim, reduction=reduction)
        dim = embed_dim // reduction
        self.fuse = Fuse(self.encoder.get_feature_dims())
        self.duration_decoder = AcousticDecoder(dim, duration=True)
        self.feature_upsampler = FeatureUpsampler()
        self.mel_linear = nn.Linear(2 * dim, n_mel_channels)

    def forward(self, phoneme):
        features, mask = self.encoder(phoneme)
        fused_features = self.fuse(features, mask=mask)
        duration_pred, duration_features = self.duration_decoder(fused_features)
        fused_features = torch.cat([fused_features, duration_features], dim=-1)
        fused_masks = torch.zeros_like(fused_features).bool()
        duration_target = torch.round(duration_pred).squeeze()
        duration_target = duration_target.unsqueeze(0)
        features, masks, mel_len_pred = self.feature_upsampler(fused_features, fused_masks,
                                                               duration=duration_target)
        mel = self.mel_linear(features)
        return mel, mel_len_pred


def make_model():
    model = Phoneme2Mel().eval()
    with torch.no_grad():
        model.duration_decoder.linear.bias.fill_(2.0)   # a trained model predicts a few frames per phoneme
    return model


def example_inputs():
    return (torch.randint(1, 61, (1, 16)),)


def other_inputs():
    return [(torch.randint(1, 61, (1, 27)),), (torch.randint(1, 61, (1, 9)),)]


def probe_inputs():
    return other_inputs()
