"""FunASR CT-Transformer realtime punctuation model (SANMVadEncoder): the last encoder layer's mask is
built in a Python loop over the batch, calling `vad_mask(size, vad_indexes[i])`, which branches on the
tensor `vad_pos` (`if vad_pos <= 0 or vad_pos >= size`) and allocates `torch.zeros(vad_pos - 1,
size - vad_pos)`; FunASR's ONNX export rewrote the encoder to take the VAD mask as a model input instead.

Source: https://github.com/modelscope/FunASR/commit/c4882b43fce3c32cb0ce3c9fc2c164f0ce0e8213
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {
    "input": {0: "batch", 1: "length"},
    "text_lengths": {0: "batch"},
    "vad_indexes": {0: "batch"},
}
BLIND = "domains-58"


def make_pad_mask(lengths):
    if not isinstance(lengths, list):
        lengths = lengths.tolist()
    bs = int(len(lengths))
    maxlen = int(max(lengths))
    seq_range = torch.arange(0, maxlen, dtype=torch.int64)
    seq_range_expand = seq_range.unsqueeze(0).expand(bs, maxlen)
    seq_length_expand = seq_range_expand.new(lengths).unsqueeze(-1)
    return seq_range_expand >= seq_length_expand


def subsequent_mask(size, device="cpu", dtype=torch.bool):
    ret = torch.ones(size, size, device=device, dtype=dtype)
    return torch.tril(ret, out=ret)


def vad_mask(size, vad_pos, device="cpu", dtype=torch.bool):
    ret = torch.ones(size, size, device=device, dtype=dtype)
    if vad_pos <= 0 or vad_pos >= size:
        return ret
    sub_corner = torch.zeros(
        vad_pos - 1, size - vad_pos, device=device, dtype=dtype)
    ret[0:vad_pos - 1, vad_pos:] = sub_corner
    return ret


class EncoderLayer(nn.Module):
    def __init__(self, size, heads):
        super().__init__()
        self.norm = nn.LayerNorm(size)
        self.self_attn = nn.MultiheadAttention(size, heads, batch_first=True)
        self.feed_forward = nn.Sequential(nn.Linear(size, size * 2), nn.ReLU(), nn.Linear(size * 2, size))

    def forward(self, x, mask_tup):
        masks, layer_mask = mask_tup
        h = self.norm(x)
        attn_mask = (~layer_mask).repeat_interleave(self.self_attn.num_heads, dim=0)
        h, _ = self.self_attn(h, h, h, attn_mask=attn_mask)
        x = x + h
        x = x + self.feed_forward(x)
        x = x * masks.transpose(1, 2)
        return x, layer_mask


class SANMVadEncoder(nn.Module):
    def __init__(self, output_size=32, attention_heads=4, num_blocks=3):
        super().__init__()
        self._output_size = output_size
        self.encoders0 = EncoderLayer(output_size, attention_heads)
        self.encoders = nn.ModuleList(EncoderLayer(output_size, attention_heads) for _ in range(num_blocks - 1))
        self.after_norm = nn.LayerNorm(output_size)

    def output_size(self):
        return self._output_size

    def forward(self, xs_pad, ilens, vad_indexes):
        masks = (~make_pad_mask(ilens)[:, None, :]).to(xs_pad.device)
        sub_masks = subsequent_mask(masks.size(-1), device=xs_pad.device).unsqueeze(0)
        no_future_masks = masks & sub_masks
        xs_pad = xs_pad * self.output_size()**0.5

        mask_tup0 = [masks, no_future_masks]
        encoder_outs = self.encoders0(xs_pad, mask_tup0)
        xs_pad, _ = encoder_outs[0], encoder_outs[1]

        for layer_idx, encoder_layer in enumerate(self.encoders):
                if layer_idx + 1 == len(self.encoders):
                    # This is last layer.
                    coner_mask = torch.ones(masks.size(0),
                                            masks.size(-1),
                                            masks.size(-1),
                                            device=xs_pad.device,
                                            dtype=torch.bool)
                    for word_index, length in enumerate(ilens):
                        coner_mask[word_index, :, :] = vad_mask(masks.size(-1),
                                                                vad_indexes[word_index],
                                                                device=xs_pad.device)
                    layer_mask = masks & coner_mask
                else:
                    layer_mask = no_future_masks
                mask_tup1 = [masks, layer_mask]
                encoder_outs = encoder_layer(xs_pad, mask_tup1)
                xs_pad, layer_mask = encoder_outs[0], encoder_outs[1]

        xs_pad = self.after_norm(xs_pad)
        olens = masks.squeeze(1).sum(1)
        return xs_pad, olens, None


class VadRealtimeTransformer(nn.Module):
    def __init__(self, vocab_size=272, embed_unit=32, punc_size=5):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_unit)
        self.encoder = SANMVadEncoder(output_size=embed_unit)
        self.decoder = nn.Linear(embed_unit, punc_size)

    def forward(self, input, text_lengths, vad_indexes):
        x = self.embed(input)
        h, _, _ = self.encoder(x, text_lengths, vad_indexes)
        y = self.decoder(h)
        return y


def make_model():
    return VadRealtimeTransformer().eval()


def _inputs(b, t, vad):
    ids = torch.randint(0, 272, (b, t))
    lengths = torch.full((b,), t, dtype=torch.int64)
    return (ids, lengths, torch.tensor(vad, dtype=torch.int64))


def example_inputs():
    return _inputs(2, 12, [5, 8])


def other_inputs():
    return [_inputs(3, 20, [14, 0, 7]), _inputs(1, 9, [3])]


def probe_inputs():
    return other_inputs()
