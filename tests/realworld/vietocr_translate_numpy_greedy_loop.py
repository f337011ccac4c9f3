"""VietOCR (transformer OCR) inference goes through `translate(img, model)`: a greedy decoding loop
`while max_length <= max_seq_length and not all(np.any(np.asarray(translated_sentence).T == eos_token, axis=1))`
that rebuilds `torch.LongTensor(translated_sentence)` each step, pulls the top-1 ids back with `.tolist()`,
and finishes the sentence/probabilities in NumPy; the reporter wants to convert the model to ONNX but the path
from the model output to the text is these non-nn.Module steps. (VGG backbone reduced to a small conv stack.)

Source: https://github.com/pbcquoc/vietocr/issues/41
"""
import math

import numpy as np
import torch
from torch import nn
from torch.nn.functional import softmax

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"img": {0: "batch", 3: "width"}}
BLIND = "domains-23"


class Vgg(nn.Module):
    def __init__(self, hidden=32):
        super(Vgg, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AvgPool2d(kernel_size=(2, 1), stride=(2, 1)),
        )
        self.dropout = nn.Dropout(0.5)
        self.last_conv_1x1 = nn.Conv2d(64, hidden, 1)

    def forward(self, x):
        conv = self.features(x)
        conv = self.dropout(conv)
        conv = self.last_conv_1x1(conv)
        conv = conv.transpose(-1, -2)
        conv = conv.flatten(2)
        conv = conv.permute(-1, 0, 1)
        return conv


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=100):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(0), :]
        return self.dropout(x)


class LanguageTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, nhead, num_encoder_layers, num_decoder_layers,
                 dim_feedforward, max_seq_length, pos_dropout, trans_dropout):
        super().__init__()
        self.d_model = d_model
        self.embed_tgt = nn.Embedding(vocab_size, d_model)
        self.pos_enc = PositionalEncoding(d_model, pos_dropout, max_seq_length)
        self.transformer = nn.Transformer(d_model, nhead, num_encoder_layers, num_decoder_layers,
                                          dim_feedforward, trans_dropout)
        self.fc = nn.Linear(d_model, vocab_size)

    def gen_nopeek_mask(self, length):
        mask = (torch.triu(torch.ones(length, length)) == 1).transpose(0, 1)
        mask = (mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0)))
        return mask

    def forward_encoder(self, src):
        src = self.pos_enc(src * math.sqrt(self.d_model))
        memory = self.transformer.encoder(src)
        return memory

    def forward_decoder(self, tgt, memory):
        tgt_mask = self.gen_nopeek_mask(tgt.shape[0]).to(tgt.device)
        tgt = self.pos_enc(self.embed_tgt(tgt) * math.sqrt(self.d_model))
        output = self.transformer.decoder(tgt, memory, tgt_mask=tgt_mask)
        output = output.transpose(0, 1)
        return self.fc(output), memory


class VietOCR(nn.Module):
    def __init__(self, vocab_size=12):
        super(VietOCR, self).__init__()
        self.cnn = Vgg(hidden=32)
        self.transformer = LanguageTransformer(vocab_size, d_model=32, nhead=2, num_encoder_layers=1,
                                               num_decoder_layers=1, dim_feedforward=64, max_seq_length=256,
                                               pos_dropout=0.1, trans_dropout=0.1)


def translate(img, model, max_seq_length=128, sos_token=1, eos_token=2):
    "data: BxCXHxW"
    model.eval()
    device = img.device

    with torch.no_grad():
        src = model.cnn(img)
        memory = model.transformer.forward_encoder(src)

        translated_sentence = [[sos_token] * len(img)]
        char_probs = [[1] * len(img)]

        max_length = 0

        while max_length <= max_seq_length and not all(
            np.any(np.asarray(translated_sentence).T == eos_token, axis=1)
        ):
            tgt_inp = torch.LongTensor(translated_sentence).to(device)
            output, memory = model.transformer.forward_decoder(tgt_inp, memory)
            output = softmax(output, dim=-1)
            output = output.to("cpu")

            values, indices = torch.topk(output, 5)

            indices = indices[:, -1, 0]
            indices = indices.tolist()

            values = values[:, -1, 0]
            values = values.tolist()
            char_probs.append(values)

            translated_sentence.append(indices)
            max_length += 1

            del output

        translated_sentence = np.asarray(translated_sentence).T

        char_probs = np.asarray(char_probs).T
        char_probs = np.multiply(char_probs, translated_sentence > 3)
        char_probs = np.sum(char_probs, axis=-1) / (char_probs > 0).sum(-1)

    return translated_sentence, char_probs


class VietOCRPredictor(nn.Module):
    # export wrapper around Predictor.predict -> translate(img, self.model)
    def __init__(self):
        super().__init__()
        self.model = VietOCR()

    def forward(self, img):
        s, prob = translate(img, self.model, max_seq_length=16)
        return torch.from_numpy(s), torch.from_numpy(prob)


def make_model():
    return VietOCRPredictor().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 160),), (torch.randn(1, 3, 32, 64),)]


def probe_inputs():
    return other_inputs()
