"""CED audio tagging transformer: `forward_spectrogram` branches on `x.shape[-1] > self.maximal_allowed_length`
to split long spectrograms into `target_length` chunks; exported with a short (301-frame) example, the ONNX
model keeps only the short path, so inputs longer than ~10 s fail in onnxruntime at the
`x + self.time_pos_embed[:, :, :, :t]` Add ("Attempting to broadcast an axis by a dimension other than 1. 63 by 71").

Source: https://github.com/RicherMans/CED/pull/14
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"mel": {0: "batch_size", 2: "time_dim"}}
BLIND = "domains-8"


class AudioPatchEmbed(nn.Module):
    def __init__(self, input_size=(16, 32), patch_size=4, patch_stride=4, in_chans=1, embed_dim=32):
        super().__init__()
        self.grid_size = (input_size[0] // patch_stride, input_size[1] // patch_stride)
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_stride)

    def forward(self, x):
        return self.proj(x)


class AudioTransformer(nn.Module):
    def __init__(self, outputdim=10, embed_dim=32, n_mels=16, target_length=32, eval_avg='mean'):
        super().__init__()
        self.n_mels = n_mels
        self.pad_last = True
        self.eval_avg = eval_avg
        self.init_bn = torch.nn.BatchNorm2d(self.n_mels, momentum=0.01)
        self.target_length = target_length
        # Allowed length in number of frames, otherwise the positional embedding will throw an error
        self.maximal_allowed_length = self.target_length
        self.patch_embed = AudioPatchEmbed(input_size=(self.n_mels, target_length), embed_dim=embed_dim)
        self.time_pos_embed = nn.Parameter(torch.randn(1, embed_dim, 1, self.patch_embed.grid_size[1]) * .02)
        self.freq_pos_embed = nn.Parameter(torch.randn(1, embed_dim, self.patch_embed.grid_size[0], 1) * .02)
        self.blocks = nn.TransformerEncoderLayer(embed_dim, 4, 64, dropout=0.0, batch_first=True)
        self.norm = nn.LayerNorm(embed_dim)
        self.outputlayer = nn.Sequential(nn.LayerNorm(embed_dim), nn.Linear(embed_dim, outputdim))

    def forward_features(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(x)
        b, c, f, t = x.shape
        x = x + self.time_pos_embed[:, :, :, :t]
        x = x + self.freq_pos_embed[:, :, :, :]  # Just to support __getitem__ in posembed
        x = x.flatten(2).transpose(1, 2)  # rearrange(x, 'b c f t -> b (f t) c')
        x = self.blocks(x)
        x = self.norm(x)
        return x

    def forward_head(self, x: torch.Tensor) -> torch.Tensor:
        x = x.mean(1)
        return self.outputlayer(x).sigmoid()

    def forward_spectrogram(self, x: torch.Tensor) -> torch.Tensor:
        x = x.unsqueeze(1)  # rearrange(x, 'b f t -> b 1 f t')
        x = self.init_bn(x.transpose(1, 2)).transpose(1, 2)
        if x.shape[-1] > self.maximal_allowed_length:
            splits = x.split(self.target_length, -1)

            if splits[-1].shape[-1] < self.target_length:
                if self.pad_last:
                    pad = torch.zeros(*x.shape[:-1], self.target_length, device=x.device)
                    pad[..., :splits[-1].shape[-1]] = splits[-1]
                    splits = torch.stack((*splits[:-1], pad), dim=0)
                else:
                    splits = torch.stack(splits[:-1], dim=0)
            else:
                splits = torch.stack(splits[:-1], dim=0)
            n_splits = len(splits)
            x = splits.reshape(-1, *splits.shape[2:])  # 'spl b c f t-> (spl b) c f t'
            x = self.forward_head(self.forward_features(x))
            x = x.reshape(n_splits, -1, x.shape[-1])  # '(spl b) d -> spl b d'
            if self.eval_avg == 'mean':
                x = x.mean(0)
            elif self.eval_avg == 'max':
                x = x.max(0)[0]
        else:
            x = self.forward_features(x)
            x = self.forward_head(x)
        return x


class MyModel(nn.Module):
    def __init__(self, model):
        super(MyModel, self).__init__()
        self.model = model

    def forward(self, mel):
        feat = self.model.forward_spectrogram(mel)
        return feat


def make_model():
    return MyModel(AudioTransformer().eval()).eval()


def example_inputs():
    return (torch.randn(1, 16, 20),)


def other_inputs():
    return [(torch.randn(2, 16, 70),), (torch.randn(3, 16, 12),)]


def probe_inputs():
    return other_inputs()
