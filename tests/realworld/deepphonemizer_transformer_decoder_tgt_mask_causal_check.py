"""DeepPhonemizer (grapheme-to-phoneme) autoregressive transformer: the decoder half, `model.transformer.decoder`
(an `nn.TransformerDecoder`), is wrapped and exported with a float `tgt_mask` input and no `tgt_is_causal`; the
decoder then checks `bool((mask == causal_comparison).all())` on the mask's values, which the dynamo export cannot
trace (it only works when `tgt_is_causal=True` is passed).

Source: https://github.com/pytorch/pytorch/issues/110255
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {
    "output": {0: "tgt_len", 1: "batch"},
    "input": {0: "src_len", 1: "batch"},
    "src_pad_mask": {0: "batch", 1: "src_len"},
    "tgt_mask": {0: "tgt_len", 1: "tgt_len"},
}
BLIND = "domains-12"


class AutoregressiveTransformer(nn.Module):
    def __init__(self, d_model=512, d_fft=1024, encoder_layers=4, decoder_layers=4, dropout=0.1, heads=1):
        super().__init__()
        self.transformer = nn.Transformer(d_model=d_model, nhead=heads, num_encoder_layers=encoder_layers,
                                          num_decoder_layers=decoder_layers, dim_feedforward=d_fft,
                                          dropout=dropout, activation='relu')


class ONNXDeepPhonemizer_trans_dec(torch.nn.Module):
    def __init__(self, trans_decoder: torch.nn.Module):
        super().__init__()
        self.trans_decoder = trans_decoder

    def forward(self, output, input, src_pad_mask, tgt_mask):
        return self.trans_decoder(output, input, memory_key_padding_mask = src_pad_mask, tgt_mask = tgt_mask)


def _tgt_mask(n):
    mask = torch.triu(torch.ones(n, n), 1)
    return mask.masked_fill(mask == 1, float('-inf'))


def _src_pad_mask(lengths, max_len):
    return torch.arange(max_len)[None, :] >= torch.tensor(lengths)[:, None]


def make_model():
    model = AutoregressiveTransformer().eval()
    return ONNXDeepPhonemizer_trans_dec(model.transformer.decoder).eval()


def example_inputs():
    return (torch.randn(7, 1, 512), torch.randn(12, 1, 512), _src_pad_mask([12], 12), _tgt_mask(7))


def other_inputs():
    return [
        (torch.randn(10, 2, 512), torch.randn(15, 2, 512), _src_pad_mask([15, 9], 15), _tgt_mask(10)),
        (torch.randn(3, 3, 512), torch.randn(6, 3, 512), _src_pad_mask([6, 6, 4], 6), _tgt_mask(3)),
    ]


def probe_inputs():
    return other_inputs()
