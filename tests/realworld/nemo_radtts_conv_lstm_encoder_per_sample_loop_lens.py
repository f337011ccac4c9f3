"""NeMo RAD-TTS text encoder (ConvLSTMLinear) before NVIDIA/NeMo#5358: with `lens` given, `forward`
calls `conv_to_sequence`, which loops `for b_ind in range(bs)` over the batch, slices each sample to
`lens[b_ind]`, runs the PartialConv1d/InstanceNorm convolutions per sample and packs the list with
`pack_sequence` before the BiLSTM. The PR (cherry-picked as "Fixes for Torchscript/Triton") replaced the
per-sample loop with a masked batch convolution, dropped the PartialConv1d mask cache and the `bias_view`
buffer, so the encoder can be traced/exported. (LSTM spectral norm left out.)

Source: https://github.com/NVIDIA/NeMo/pull/5358
"""
from typing import Optional, Tuple

import torch
from torch import nn, Tensor
from torch.nn import functional as F
from torch.nn.utils.rnn import PackedSequence

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"text": {0: "batch", 1: "text_len"}, "in_lens": {0: "batch"}}
BLIND = "domains-52"


class PartialConv1d(torch.nn.Conv1d):
    def __init__(self, *args, **kwargs):
        super(PartialConv1d, self).__init__(*args, **kwargs)
        weight_maskUpdater = torch.ones(1, 1, self.kernel_size[0])
        self.register_buffer("weight_maskUpdater", weight_maskUpdater, persistent=False)
        slide_winsize = torch.tensor(self.weight_maskUpdater.shape[1] * self.weight_maskUpdater.shape[2])
        self.register_buffer("slide_winsize", slide_winsize, persistent=False)

        if self.bias is not None:
            bias_view = self.bias.view(1, self.out_channels, 1)
            self.register_buffer('bias_view', bias_view, persistent=False)
        # caching part
        self.last_size = (-1, -1, -1)

        update_mask = torch.ones(1, 1, 1)
        self.register_buffer('update_mask', update_mask, persistent=False)
        mask_ratio = torch.ones(1, 1, 1)
        self.register_buffer('mask_ratio', mask_ratio, persistent=False)
        self.partial: bool = True

    def calculate_mask(self, input: torch.Tensor, mask_in: Optional[torch.Tensor]):
        with torch.no_grad():
            if mask_in is None:
                mask = torch.ones(1, 1, input.shape[2], dtype=input.dtype, device=input.device)
            else:
                mask = mask_in
            update_mask = F.conv1d(mask, self.weight_maskUpdater, bias=None, stride=self.stride,
                                   padding=self.padding, dilation=self.dilation, groups=1)
            # for mixed precision training, change 1e-8 to 1e-6
            mask_ratio = self.slide_winsize / (update_mask + 1e-6)
            update_mask = torch.clamp(update_mask, 0, 1)
            mask_ratio = torch.mul(mask_ratio.to(update_mask), update_mask)
            return torch.mul(input, mask), mask_ratio, update_mask

    def forward_aux(self, input: torch.Tensor, mask_ratio: torch.Tensor, update_mask: torch.Tensor) -> torch.Tensor:
        assert len(input.shape) == 3

        raw_out = self._conv_forward(input, self.weight, self.bias)

        if self.bias is not None:
            output = torch.mul(raw_out - self.bias_view, mask_ratio) + self.bias_view
            output = torch.mul(output, update_mask)
        else:
            output = torch.mul(raw_out, mask_ratio)

        return output

    @torch.jit.ignore
    def forward_with_cache(self, input: torch.Tensor, mask_in: Optional[torch.Tensor] = None) -> torch.Tensor:
        use_cache = not (torch.jit.is_tracing() or torch.onnx.is_in_onnx_export())
        cache_hit = use_cache and mask_in is None and self.last_size == input.shape
        if cache_hit:
            mask_ratio = self.mask_ratio
            update_mask = self.update_mask
        else:
            input, mask_ratio, update_mask = self.calculate_mask(input, mask_in)
            if use_cache:
                # if a mask is input, or tensor shape changed, update mask ratio
                self.last_size = tuple(input.shape)
                self.update_mask = update_mask
                self.mask_ratio = mask_ratio
        return self.forward_aux(input, mask_ratio, update_mask)

    def forward(self, input: torch.Tensor, mask_in: Optional[torch.Tensor] = None) -> torch.Tensor:
        if self.partial:
            return self.forward_with_cache(input, mask_in)
        else:
            if mask_in is not None:
                input = torch.mul(input, mask_in)
            return self._conv_forward(input, self.weight, self.bias)


class ConvNorm(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=1, stride=1, padding=None, dilation=1, bias=True,
                 w_init_gain='linear', use_partial_padding: bool = False, use_weight_norm: bool = False,
                 norm_fn=None):
        super(ConvNorm, self).__init__()
        if padding is None:
            assert kernel_size % 2 == 1
            padding = int(dilation * (kernel_size - 1) / 2)
        self.use_partial_padding: bool = use_partial_padding
        conv = PartialConv1d(in_channels, out_channels, kernel_size=kernel_size, stride=stride,
                             padding=padding, dilation=dilation, bias=bias)
        conv.partial = use_partial_padding
        torch.nn.init.xavier_uniform_(conv.weight, gain=torch.nn.init.calculate_gain(w_init_gain))
        if norm_fn is not None:
            self.norm = norm_fn(out_channels, affine=True)
        else:
            self.norm = None
        self.conv = conv

    def forward(self, input: torch.Tensor, mask_in: Optional[torch.Tensor] = None) -> torch.Tensor:
        ret = self.conv(input, mask_in)
        if self.norm is not None:
            ret = self.norm(ret)
        return ret


class BiLSTM(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=1):
        super().__init__()
        self.bilstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)
        self.bilstm.flatten_parameters()

    @torch.jit.export
    def lstm_sequence(self, seq: PackedSequence) -> Tuple[Tensor, Tensor]:
        if not torch.jit.is_scripting():
            self.bilstm.flatten_parameters()
        ret, _ = self.bilstm(seq)
        return nn.utils.rnn.pad_packed_sequence(ret, batch_first=True)


class ConvLSTMLinear(BiLSTM):
    def __init__(self, in_dim=None, out_dim=None, n_layers=2, n_channels=256, kernel_size=3, p_dropout=0.1,
                 use_partial_padding=False, norm_fn=None):
        super(ConvLSTMLinear, self).__init__(n_channels, int(n_channels // 2), 1)
        self.out_dim = out_dim

        if n_layers > 0:
            self.dropout = nn.Dropout(p=p_dropout)
            self.convolutions = nn.ModuleList()

        for i in range(n_layers):
            conv_layer = ConvNorm(in_dim if i == 0 else n_channels, n_channels, kernel_size=kernel_size, stride=1,
                                  padding=int((kernel_size - 1) / 2), dilation=1, w_init_gain='relu',
                                  use_weight_norm=False, use_partial_padding=use_partial_padding, norm_fn=norm_fn)
            self.convolutions.append(conv_layer)

        self.dense = None
        if out_dim is not None:
            self.dense = nn.Linear(n_channels, out_dim)

    @torch.jit.export
    def conv_to_sequence(self, context: Tensor, lens: Tensor, enforce_sorted: bool = False) -> PackedSequence:
        context_embedded = []
        bs: int = context.shape[0]
        b_ind: int = 0
        for b_ind in range(bs):  # TODO: speed up
            curr_context = context[b_ind : b_ind + 1, :, : lens[b_ind]].clone()
            for conv in self.convolutions:
                curr_context = self.dropout(F.relu(conv(curr_context)))
            context_embedded.append(curr_context[0].transpose(0, 1))
        seq = torch.nn.utils.rnn.pack_sequence(context_embedded, enforce_sorted=enforce_sorted)
        return seq

    def forward(self, context: Tensor, lens: Optional[Tensor] = None) -> Tensor:
        if lens is None:
            for conv in self.convolutions:
                context = self.dropout(F.relu(conv(context)))
            context = context.transpose(1, 2)
            context, _ = self.bilstm(context)
        else:
            # borisf : does not match ADLR (values, lengths)
            # seq = self.masked_conv_to_sequence(context, lens, enforce_sorted=False)
            # borisf : does match ADLR
            seq = self.conv_to_sequence(context, lens, enforce_sorted=False)
            context, _ = self.lstm_sequence(seq)

        if self.dense is not None:
            context = self.dense(context).permute(0, 2, 1)

        return context


def getRadTTSEncoder(encoder_n_convolutions=3, encoder_embedding_dim=512, encoder_kernel_size=5,
                     norm_fn=nn.BatchNorm1d):
    return ConvLSTMLinear(in_dim=encoder_embedding_dim, n_layers=encoder_n_convolutions,
                          n_channels=encoder_embedding_dim, kernel_size=encoder_kernel_size, p_dropout=0.5,
                          use_partial_padding=True, norm_fn=norm_fn)


class RadTTSTextEncoder(nn.Module):
    def __init__(self, n_text=40, n_text_dim=64):
        super().__init__()
        self.embedding = torch.nn.Embedding(n_text, n_text_dim)
        self.encoder = getRadTTSEncoder(encoder_embedding_dim=n_text_dim, norm_fn=nn.InstanceNorm1d)

    def forward(self, text, in_lens):
        # text_embeddings: b x len_text x n_text_dim
        text_embeddings = self.embedding(text).transpose(1, 2)
        # text_enc: b x n_text_dim x encoder_dim (512)
        text_enc = self.encoder(text_embeddings, in_lens).transpose(1, 2)
        return text_enc


def make_model():
    return RadTTSTextEncoder().eval()


def _inputs(b, t, lens):
    return (torch.randint(0, 40, (b, t)), torch.tensor(lens, dtype=torch.int64))


def example_inputs():
    return _inputs(2, 12, [12, 9])


def other_inputs():
    return [_inputs(3, 17, [11, 17, 6]), _inputs(1, 8, [8])]


def probe_inputs():
    return other_inputs()
