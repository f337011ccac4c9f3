"""FullSubNet+ speech enhancement (noisy mag/real/imag spectrograms [B, 1, F, T] -> cIRM [B, 2, F, T]): the
maintainer of a model zoo converting it reports that the model depends on the audio length and that an ONNX export
with a variable input width fails in a `Reshape`. `BaseModel.unfold` calls `F.unfold(output, (sub_band_unit_size,
num_frames))` with the frame count as the kernel width, and the forward reshapes with the `num_frames` Python int.
(Trimmed: fewer freqs/hidden units, two TCN blocks per full-band model, LSTM sub-band model, batch 1 as in the report.)

Source: https://github.com/PINTO0309/PINTO_model_zoo/issues/187
"""
import torch
from torch import nn
from torch.nn import functional

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"noisy_mag": {3: "frames"}, "noisy_real": {3: "frames"}, "noisy_imag": {3: "frames"}}
BLIND = "domains-72"


class TCNBlock(nn.Module):
    def __init__(self, in_channels=257, hidden_channel=512, out_channels=257, kernel_size=3, dilation=1):
        super().__init__()
        self.conv1x1 = nn.Conv1d(in_channels, hidden_channel, 1)
        self.prelu1 = nn.PReLU()
        self.norm1 = nn.GroupNorm(1, hidden_channel, eps=1e-8)
        padding = (dilation * (kernel_size - 1)) // 2
        self.depthwise_conv = nn.Conv1d(hidden_channel, hidden_channel, kernel_size=kernel_size, stride=1,
                                        groups=hidden_channel, padding=padding, dilation=dilation)
        self.prelu2 = nn.PReLU()
        self.norm2 = nn.GroupNorm(1, hidden_channel, eps=1e-8)
        self.sconv = nn.Conv1d(hidden_channel, out_channels, 1)

    def forward(self, x):
        y = self.conv1x1(x)
        y = self.norm1(self.prelu1(y))
        y = self.depthwise_conv(y)
        y = self.norm2(self.prelu2(y))
        output = self.sconv(y)
        return x + output


class SequenceModel(nn.Module):
    def __init__(self, input_size, output_size, hidden_size, sequence_model="GRU", output_activate_function="Tanh"):
        super().__init__()
        self.sequence_model_type = sequence_model
        if self.sequence_model_type == "LSTM":
            self.sequence_model = nn.LSTM(input_size=input_size, hidden_size=hidden_size, num_layers=2,
                                          batch_first=True)
            self.fc_output_layer = nn.Linear(hidden_size, output_size)
        else:  # "TCN"
            self.sequence_model = nn.Sequential(
                TCNBlock(in_channels=input_size, hidden_channel=hidden_size, out_channels=input_size, dilation=1),
                TCNBlock(in_channels=input_size, hidden_channel=hidden_size, out_channels=input_size, dilation=2),
                nn.ReLU())
            self.fc_output_layer = nn.Linear(input_size, output_size)
        self.activate_function = nn.ReLU() if output_activate_function == "ReLU" else None

    def forward(self, x):
        if self.sequence_model_type == "TCN":
            x = self.sequence_model(x)  # [B, F, T]
            o = self.fc_output_layer(x.permute(0, 2, 1))
            if self.activate_function is not None:
                o = self.activate_function(o)
            return o.permute(0, 2, 1)
        x = x.permute(0, 2, 1).contiguous()  # [B, F, T] => [B, T, F]
        o, _ = self.sequence_model(x)
        o = self.fc_output_layer(o)
        return o.permute(0, 2, 1).contiguous()


class ChannelSELayer(nn.Module):
    def __init__(self, num_channels, reduction_ratio=2):
        super(ChannelSELayer, self).__init__()
        num_channels_reduced = num_channels // reduction_ratio
        self.fc1 = nn.Linear(num_channels, num_channels_reduced, bias=True)
        self.fc2 = nn.Linear(num_channels_reduced, num_channels, bias=True)
        self.relu = nn.ReLU()
        self.sigmoid = nn.Sigmoid()

    def forward(self, input_tensor):
        squeeze_tensor = input_tensor.mean(dim=2)
        fc_out_1 = self.relu(self.fc1(squeeze_tensor))
        fc_out_2 = self.sigmoid(self.fc2(fc_out_1))
        a, b = squeeze_tensor.size()
        output_tensor = torch.mul(input_tensor, fc_out_2.view(a, b, 1))
        return output_tensor


class BaseModel(nn.Module):
    @staticmethod
    def unfold(input, num_neighbor):
        assert input.dim() == 4, f"The dim of input is {input.dim()}. It should be four dim."
        batch_size, num_channels, num_freqs, num_frames = input.size()

        if num_neighbor < 1:
            # No change for the input
            return input.permute(0, 2, 1, 3).reshape(batch_size, num_freqs, num_channels, 1, num_frames)

        output = input.reshape(batch_size * num_channels, 1, num_freqs, num_frames)
        sub_band_unit_size = num_neighbor * 2 + 1

        # Pad to the top and bottom
        output = functional.pad(output, [0, 0, num_neighbor, num_neighbor], mode="reflect")

        output = functional.unfold(output, (sub_band_unit_size, num_frames))
        assert output.shape[-1] == num_freqs, f"n_freqs != N (sub_band), {num_freqs} != {output.shape[-1]}"

        # Split the dim of the unfolded feature
        output = output.reshape(batch_size, num_channels, sub_band_unit_size, num_frames, num_freqs)
        output = output.permute(0, 4, 1, 2, 3).contiguous()

        return output

    @staticmethod
    def offline_laplace_norm(input):
        mu = torch.mean(input, dim=(1, 2, 3), keepdim=True)
        normed = input / (mu + 1e-5)
        return normed


class FullSubNet_Plus(BaseModel):
    def __init__(self, num_freqs=33, look_ahead=2, fb_num_neighbors=0, sb_num_neighbors=15,
                 fb_model_hidden_size=32, sb_model_hidden_size=48, output_size=2):
        super().__init__()
        self.num_channels = num_freqs
        self.channel_attention = ChannelSELayer(num_channels=self.num_channels)
        self.channel_attention_real = ChannelSELayer(num_channels=self.num_channels)
        self.channel_attention_imag = ChannelSELayer(num_channels=self.num_channels)
        self.fb_model = SequenceModel(num_freqs, num_freqs, fb_model_hidden_size, "TCN", "ReLU")
        self.fb_model_real = SequenceModel(num_freqs, num_freqs, fb_model_hidden_size, "TCN", "ReLU")
        self.fb_model_imag = SequenceModel(num_freqs, num_freqs, fb_model_hidden_size, "TCN", "ReLU")
        self.sb_model = SequenceModel((sb_num_neighbors * 2 + 1) + 3 * (fb_num_neighbors * 2 + 1), output_size,
                                      sb_model_hidden_size, "LSTM", None)
        self.sb_num_neighbors = sb_num_neighbors
        self.fb_num_neighbors = fb_num_neighbors
        self.look_ahead = look_ahead
        self.norm = self.offline_laplace_norm
        self.output_size = output_size

    def forward(self, noisy_mag, noisy_real, noisy_imag):
        assert noisy_mag.dim() == 4
        noisy_mag = functional.pad(noisy_mag, [0, self.look_ahead])  # Pad the look ahead
        noisy_real = functional.pad(noisy_real, [0, self.look_ahead])  # Pad the look ahead
        noisy_imag = functional.pad(noisy_imag, [0, self.look_ahead])  # Pad the look ahead
        batch_size, num_channels, num_freqs, num_frames = noisy_mag.size()
        assert num_channels == 1, f"{self.__class__.__name__} takes the mag feature as inputs."

        fb_input = self.norm(noisy_mag).reshape(batch_size, num_channels * num_freqs, num_frames)  # [B, F, T]
        fb_input = self.channel_attention(fb_input)
        fb_output = self.fb_model(fb_input).reshape(batch_size, 1, num_freqs, num_frames)

        fbr_input = self.norm(noisy_real).reshape(batch_size, num_channels * num_freqs, num_frames)  # [B, F, T]
        fbr_input = self.channel_attention_real(fbr_input)
        fbr_output = self.fb_model_real(fbr_input).reshape(batch_size, 1, num_freqs, num_frames)

        fbi_input = self.norm(noisy_imag).reshape(batch_size, num_channels * num_freqs, num_frames)  # [B, F, T]
        fbi_input = self.channel_attention_imag(fbi_input)
        fbi_output = self.fb_model_imag(fbi_input).reshape(batch_size, 1, num_freqs, num_frames)

        fb_output_unfolded = self.unfold(fb_output, num_neighbor=self.fb_num_neighbors)
        fb_output_unfolded = fb_output_unfolded.reshape(batch_size, num_freqs, self.fb_num_neighbors * 2 + 1,
                                                        num_frames)
        fbr_output_unfolded = self.unfold(fbr_output, num_neighbor=self.fb_num_neighbors)
        fbr_output_unfolded = fbr_output_unfolded.reshape(batch_size, num_freqs, self.fb_num_neighbors * 2 + 1,
                                                          num_frames)
        fbi_output_unfolded = self.unfold(fbi_output, num_neighbor=self.fb_num_neighbors)
        fbi_output_unfolded = fbi_output_unfolded.reshape(batch_size, num_freqs, self.fb_num_neighbors * 2 + 1,
                                                          num_frames)

        # Unfold attention noisy input, [B, N=F, C, F_s, T]
        noisy_mag_unfolded = self.unfold(fb_input.reshape(batch_size, 1, num_freqs, num_frames),
                                         num_neighbor=self.sb_num_neighbors)
        noisy_mag_unfolded = noisy_mag_unfolded.reshape(batch_size, num_freqs, self.sb_num_neighbors * 2 + 1,
                                                        num_frames)

        sb_input = torch.cat([noisy_mag_unfolded, fb_output_unfolded, fbr_output_unfolded, fbi_output_unfolded], dim=2)
        sb_input = self.norm(sb_input)

        sb_input = sb_input.reshape(
            batch_size * num_freqs,
            (self.sb_num_neighbors * 2 + 1) + 3 * (self.fb_num_neighbors * 2 + 1),
            num_frames
        )

        # [B * F, (F_s + F_f), T] => [B * F, 2, T] => [B, F, 2, T]
        sb_mask = self.sb_model(sb_input)
        sb_mask = sb_mask.reshape(batch_size, num_freqs, self.output_size, num_frames).permute(0, 2, 1, 3).contiguous()

        output = sb_mask[:, :, :, self.look_ahead:]
        return output


def make_model():
    return FullSubNet_Plus().eval()


def _spec(frames):
    real, imag = torch.randn(1, 1, 33, frames), torch.randn(1, 1, 33, frames)
    return (torch.sqrt(real ** 2 + imag ** 2), real, imag)


def example_inputs():
    return _spec(60)


def other_inputs():
    return [_spec(97), _spec(23)]


def probe_inputs():
    return other_inputs()
