"""UNISAL video saliency model: forward loops over the frames with `for t, img in enumerate(torch.unbind(x, dim=1))`
(backbone + learned Gaussian prior maps per frame), runs a ConvGRU that again unbinds the time axis, then decodes
each frame by indexing the Python lists `feat_seq_2x[idx]` / `feat_seq_4x[idx]`; `static = x.shape[1] == 1`
decides whether the RNN is bypassed. The PR "Refactor UniSal model and add ONNX export script" had to stack the
feature sequences into tensors "for ONNX traceability" and force `static` for export; this is the code before it,
with the MobileNetV2 backbone and domain-specific BatchNorm reduced to small stand-ins.

Source: https://github.com/rdroste/unisal/pull/24
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "domains-62"


def log_softmax(x):
    x_size = x.size()
    x = x.view(x.size(0), -1)
    x = F.log_softmax(x, dim=1)
    return x.view(x_size)


class ConvGRUCell(nn.Module):
    def __init__(self, input_ch, hidden_ch, kernel_size=(3, 3), gate_ksize=(1, 1)):
        super().__init__()
        self.hidden_ch = hidden_ch
        pad = lambda k: tuple(s // 2 for s in k)
        self.w_r = nn.Conv2d(input_ch, hidden_ch, gate_ksize, padding=pad(gate_ksize), bias=False)
        self.u_r = nn.Conv2d(hidden_ch, hidden_ch, gate_ksize, padding=pad(gate_ksize), bias=False)
        self.w_z = nn.Conv2d(input_ch, hidden_ch, gate_ksize, padding=pad(gate_ksize), bias=False)
        self.u_z = nn.Conv2d(hidden_ch, hidden_ch, gate_ksize, padding=pad(gate_ksize), bias=False)
        self.w = nn.Conv2d(input_ch, hidden_ch, kernel_size, padding=pad(kernel_size), bias=False)
        self.u = nn.Conv2d(hidden_ch, hidden_ch, gate_ksize, padding=pad(gate_ksize), bias=False)
        self.b_r = nn.Parameter(torch.zeros(hidden_ch, 1, 1))
        self.b_z = nn.Parameter(torch.zeros(hidden_ch, 1, 1))
        self.b_h = nn.Parameter(torch.zeros(hidden_ch, 1, 1))

    def forward(self, x, h_tm1):
        if h_tm1 is None:
            h_tm1 = self._init_hidden(x)
        r = torch.sigmoid(self.w_r(x) + self.u_r(h_tm1) + self.b_r)
        z = torch.sigmoid(self.w_z(x) + self.u_z(h_tm1) + self.b_z)
        h = torch.tanh(self.w(x) + r * self.u(h_tm1) + self.b_h)
        h = (1 - z) * h_tm1 + z * h
        return h.clone(), h

    def _init_hidden(self, input_):
        batch_size, _, height, width = input_.data.size()
        return torch.zeros(batch_size, self.hidden_ch, height, width)


class ConvGRU(nn.Module):
    def __init__(self, input_channels, hidden_channels):
        super().__init__()
        self.num_layers = len(hidden_channels)
        chans = [input_channels] + hidden_channels
        self.cell_list = nn.ModuleList([ConvGRUCell(chans[i], chans[i + 1]) for i in range(self.num_layers)])

    def forward(self, input_tensor, hidden=None):
        if not hidden:
            hidden = [None] * self.num_layers

        outputs = []
        iterator = torch.unbind(input_tensor, dim=1)

        for t, x in enumerate(iterator):
            for layer_idx in range(self.num_layers):
                (x, h) = self.cell_list[layer_idx](x, hidden[layer_idx])
                hidden[layer_idx] = h.clone()
            outputs.append(x.clone())
        outputs = torch.stack(outputs, dim=1)

        return outputs, hidden


class TinyBackbone(nn.Module):
    """Stand-in for MobileNetV2: returns (1x, 2x, 4x) features (stride 16, 8, 4)."""

    def __init__(self):
        super().__init__()
        self.s4 = nn.Sequential(nn.Conv2d(3, 16, 3, 4, 1), nn.BatchNorm2d(16), nn.ReLU6())
        self.s8 = nn.Sequential(nn.Conv2d(16, 24, 3, 2, 1), nn.BatchNorm2d(24), nn.ReLU6())
        self.s16 = nn.Sequential(nn.Conv2d(24, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU6())
        self.out_channels, self.feat_2x_channels, self.feat_4x_channels = 32, 24, 16

    def forward(self, x):
        f4 = self.s4(x)
        f2 = self.s8(f4)
        return self.s16(f2), f2, f4


class UNISAL(nn.Module):
    def __init__(self, rnn_channels=32, n_gaussians=4, smoothing_ksize=5, sources=("DHF1K",), bypass_rnn=True):
        super().__init__()
        self.n_gaussians = n_gaussians
        self.smoothing_ksize = smoothing_ksize
        self.sources = sources
        self.bypass_rnn = bypass_rnn
        self.res_rnn = True
        self.ds_gaussians = self.ds_adaptation = self.ds_smoothing = True
        self.cnn = TinyBackbone()
        self.post_cnn = nn.Sequential(nn.Conv2d(self.cnn.out_channels + n_gaussians, rnn_channels, 1),
                                      nn.BatchNorm2d(rnn_channels), nn.ReLU6())
        self.rnn = ConvGRU(rnn_channels, hidden_channels=[rnn_channels])
        self.post_rnn = nn.Sequential(nn.Conv2d(rnn_channels, rnn_channels, 1, bias=False),
                                      nn.BatchNorm2d(rnn_channels), nn.ReLU6())
        self.skip_2x = nn.Sequential(nn.Conv2d(self.cnn.feat_2x_channels, 16, 1), nn.BatchNorm2d(16))
        self.skip_4x = nn.Sequential(nn.Conv2d(self.cnn.feat_4x_channels, 8, 1), nn.BatchNorm2d(8))
        self.upsampling_1 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.upsampling_2 = nn.Sequential(nn.Conv2d(rnn_channels + 16, 16, 1), nn.ReLU6(),
                                          nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False))
        self.post_upsampling_2 = nn.Sequential(nn.Conv2d(16 + 8, 8, 1), nn.ReLU6())
        for source_str in self.sources:
            source_str = f"_{source_str}".lower()
            gaussians = torch.stack([torch.randn(n_gaussians, 2) * 0.1 + 0.5,
                                     torch.randn(n_gaussians, 2) * 0.2 - 1], dim=2)
            self.__setattr__("coarse_gaussians" + source_str, nn.Parameter(gaussians))
            self.__setattr__("adaptation" + source_str, nn.Sequential(nn.Conv2d(8, 1, 1, bias=True)))
            smoothing = nn.Conv2d(1, 1, kernel_size=smoothing_ksize, padding=0, bias=False)
            with torch.no_grad():
                smoothing.weight.fill_(1.0 / smoothing_ksize ** 2)
            self.__setattr__("smoothing" + source_str, smoothing)

    @staticmethod
    def _make_gaussian_maps(x, gaussians, size=None, scaling=6.0):
        """Construct prior maps from Gaussian parameters."""
        if size is None:
            size = x.shape[-2:]
            bs = x.shape[0]
        else:
            size = [size] * 2
            bs = 1
        dtype = x.dtype
        device = x.device

        gaussian_maps = []
        map_template = torch.ones(*size, dtype=dtype, device=device)
        meshgrids = torch.meshgrid(
            [
                torch.linspace(0, 1, size[0], dtype=dtype, device=device),
                torch.linspace(0, 1, size[1], dtype=dtype, device=device),
            ],
            indexing="ij",
        )

        for gaussian_idx, yx_mu_logstd in enumerate(torch.unbind(gaussians)):
            map = map_template.clone()
            for mu_logstd, mgrid in zip(yx_mu_logstd, meshgrids):
                mu = mu_logstd[0]
                std = torch.exp(mu_logstd[1])
                map *= torch.exp(-(((mgrid - mu) / std) ** 2) / 2)

            map *= scaling
            gaussian_maps.append(map)

        gaussian_maps = torch.stack(gaussian_maps)
        gaussian_maps = gaussian_maps.unsqueeze(0).expand(bs, -1, -1, -1)
        return gaussian_maps

    def _get_gaussian_maps(self, x, source_str, prefix="coarse_", **kwargs):
        suffix = source_str if self.ds_gaussians else ""
        gaussians = self.__getattr__(prefix + "gaussians" + suffix)
        return self._make_gaussian_maps(x, gaussians, **kwargs)

    def forward(self, x, target_size=None, h0=None, return_hidden=False, source="DHF1K", static=None):
        if target_size is None:
            target_size = x.shape[-2:]

        source_str = f"_{source.lower()}"
        if static is None:
            static = x.shape[1] == 1 or self.sources == ("SALICON",)

        # Compute backbone CNN features and concatenate with Gaussian prior maps
        feat_seq_1x = []
        feat_seq_2x = []
        feat_seq_4x = []
        for t, img in enumerate(torch.unbind(x, dim=1)):
            im_feat_1x, im_feat_2x, im_feat_4x = self.cnn(img)

            im_feat_2x = self.skip_2x(im_feat_2x)
            im_feat_4x = self.skip_4x(im_feat_4x)

            if self.n_gaussians > 0:
                gaussian_maps = self._get_gaussian_maps(im_feat_1x, source_str)
                im_feat_1x = torch.cat((im_feat_1x, gaussian_maps), dim=1)

            im_feat_1x = self.post_cnn(im_feat_1x)
            feat_seq_1x.append(im_feat_1x)
            feat_seq_2x.append(im_feat_2x)
            feat_seq_4x.append(im_feat_4x)

        feat_seq_1x = torch.stack(feat_seq_1x, dim=1)

        # Bypass-RNN
        hidden, rnn_feat_seq, rnn_feat = (None,) * 3
        if not (static and self.bypass_rnn):
            rnn_feat_seq, hidden = self.rnn(feat_seq_1x, hidden=h0)

        # Decoder
        output_seq = []
        for idx, im_feat in enumerate(torch.unbind(feat_seq_1x, dim=1)):

            if not (static and self.bypass_rnn):
                rnn_feat = rnn_feat_seq[:, idx, ...]
                rnn_feat = self.post_rnn(rnn_feat)
                if self.res_rnn:
                    im_feat = im_feat + rnn_feat
                else:
                    im_feat = rnn_feat

            im_feat = self.upsampling_1(im_feat)
            im_feat = torch.cat((im_feat, feat_seq_2x[idx]), dim=1)
            im_feat = self.upsampling_2(im_feat)
            im_feat = torch.cat((im_feat, feat_seq_4x[idx]), dim=1)
            im_feat = self.post_upsampling_2(im_feat)

            im_feat = self.__getattr__("adaptation" + (source_str if self.ds_adaptation else ""))(im_feat)

            im_feat = F.interpolate(im_feat, size=x.shape[-2:], mode="nearest")

            im_feat = F.pad(im_feat, [self.smoothing_ksize // 2] * 4, mode="replicate")
            im_feat = self.__getattr__("smoothing" + (source_str if self.ds_smoothing else ""))(im_feat)

            im_feat = F.interpolate(im_feat, size=target_size, mode="bilinear", align_corners=False)

            im_feat = log_softmax(im_feat)
            output_seq.append(im_feat)
        output_seq = torch.stack(output_seq, dim=1)

        outputs = [output_seq]
        if return_hidden:
            outputs.append(hidden)
        if len(outputs) == 1:
            return outputs[0]
        return outputs


def make_model():
    return UNISAL().eval()


def example_inputs():
    return (torch.rand(1, 4, 3, 64, 96),)


def other_inputs():
    return [(torch.rand(2, 6, 3, 64, 96),), (torch.rand(3, 2, 3, 64, 96),)]


def probe_inputs():
    return other_inputs()
