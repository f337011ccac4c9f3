"""CLAP (laion/clap-htsat-fused) audio encoder: the fused patch embedding takes
`is_longer_list_idx = torch.where(is_longer_list == 1)[0]` and branches on `if len(is_longer_idx) > 0:`
before running the local mel conv + attentional feature fusion on the selected rows; the unfused CLAP
exports, but `optimum-cli export onnx -m laion/clap-htsat-fused` fails.

Source: https://github.com/huggingface/optimum/pull/1552
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_features": {0: "batch_size"}, "is_longer": {0: "batch_size"}}
BLIND = "domains-47"


class ClapAudioAFFBlock(nn.Module):
    def __init__(self, channels=16, downsize_ratio=4):
        super().__init__()
        inter_channels = int(channels // downsize_ratio)
        self.local_att = nn.Sequential(
            nn.Conv2d(channels, inter_channels, kernel_size=1, stride=1, padding=0),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(inter_channels, channels, kernel_size=1, stride=1, padding=0),
            nn.BatchNorm2d(channels),
        )
        self.global_att = nn.Sequential(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(channels, inter_channels, kernel_size=1, stride=1, padding=0),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(inter_channels, channels, kernel_size=1, stride=1, padding=0),
            nn.BatchNorm2d(channels),
        )
        self.sigmoid = nn.Sigmoid()

    def forward(self, hidden_states, residual):
        attention_input = hidden_states + residual
        fused_layer_output = self.local_att(attention_input) + self.global_att(attention_input)
        fused_layer_output = self.sigmoid(fused_layer_output)
        output = 2 * hidden_states * fused_layer_output + 2 * residual * (1 - fused_layer_output)
        return output


class ClapAudioPatchEmbed(nn.Module):
    def __init__(self, img_size=(32, 32), patch_size=(4, 4), patch_stride=(4, 4), hidden=16):
        super().__init__()
        self.img_size = img_size
        self.enable_fusion = True
        padding = ((patch_size[0] - patch_stride[0]) // 2, (patch_size[1] - patch_stride[1]) // 2)
        self.proj = nn.Conv2d(1, hidden, kernel_size=patch_size, stride=patch_stride, padding=padding)
        self.norm = nn.LayerNorm(hidden)
        self.fusion_model = ClapAudioAFFBlock(hidden)
        self.mel_conv2d = nn.Conv2d(
            1,
            hidden,
            kernel_size=(patch_size[0], patch_size[1] * 3),
            stride=(patch_stride[0], patch_stride[1] * 3),
            padding=padding,
        )

    def forward(self, hidden_states, is_longer_idx=None):
        if self.enable_fusion:
            # retrieve the last mel as we have transposed the input
            global_hidden_states = hidden_states[:, 0:1, :, :]

            # global processing
            batch_size, num_channels, height, width = global_hidden_states.shape

            if height != self.img_size[0] or width != self.img_size[1]:
                raise ValueError(
                    f"Input audio size ({height}*{width}) doesn't match model ({self.img_size[0]}*{self.img_size[1]})."
                )

            global_hidden_states = self.proj(global_hidden_states)
            output_width = global_hidden_states.size(-1)
            if len(is_longer_idx) > 0:
                # local processing
                local_hidden_states = hidden_states[is_longer_idx, 1:, :, :].contiguous()
                batch_size, num_channels, height, width = local_hidden_states.shape
                local_hidden_states = local_hidden_states.view(batch_size * num_channels, 1, height, width)

                local_hidden_states = self.mel_conv2d(local_hidden_states)

                _, features, height, width = local_hidden_states.shape
                local_hidden_states = local_hidden_states.view(batch_size, num_channels, features, height, width)
                local_hidden_states = local_hidden_states.permute((0, 2, 3, 1, 4)).contiguous().flatten(3)

                local_width = local_hidden_states.size(-1)
                local_hidden_states = torch.nn.functional.pad(
                    local_hidden_states, (0, output_width - local_width), "constant", 0
                )

                global_hidden_states[is_longer_idx] = self.fusion_model(
                    global_hidden_states[is_longer_idx], local_hidden_states
                )
            hidden_states = global_hidden_states

        hidden_states = hidden_states.flatten(2).transpose(1, 2)
        hidden_states = self.norm(hidden_states)
        return hidden_states


class ClapAudioEncoder(nn.Module):
    def __init__(self, num_mel_bins=32):
        super().__init__()
        self.enable_fusion = True
        self.batch_norm = nn.BatchNorm2d(num_mel_bins)
        self.patch_embed = ClapAudioPatchEmbed()

    def forward(self, input_features, is_longer):
        input_features = input_features.transpose(1, 3)
        normalized_input_features = self.batch_norm(input_features)
        normalized_input_features = normalized_input_features.transpose(1, 3)

        is_longer_list_idx = None
        if self.enable_fusion:
            is_longer_list = is_longer.to(input_features.device)
            is_longer_list_idx = torch.where(is_longer_list == 1)[0]

        hidden_states = self.patch_embed(normalized_input_features, is_longer_list_idx)
        return hidden_states


def make_model():
    return ClapAudioEncoder().eval()


def example_inputs():
    return (torch.randn(3, 4, 32, 32), torch.tensor([[True], [False], [True]]))


def other_inputs():
    return [
        (torch.randn(2, 4, 32, 32), torch.tensor([[False], [False]])),
        (torch.randn(4, 4, 32, 32), torch.tensor([[True], [True], [False], [True]])),
    ]


def probe_inputs():
    return other_inputs()
