"""Chatterbox TTS export wrapper for the T3 (Llama speech-token LM) conditioning prefix: the speaker projection
`cond_spkr = cond_enc.spkr_enc(speaker_emb)` is precomputed once in `__init__` from the trainable `spkr_enc` Linear and
kept as a plain attribute, then concatenated in forward with the prompt speech-token embeddings and the emotion
(exaggeration) embedding. The report: because `cond_spkr` still has `requires_grad=True`, the tracer refused to inline it
as a constant and the export failed (it only worked for the original author whose whole script ran under
`torch.no_grad()`); the fix wrapped the precompute in `torch.no_grad()` + `.detach()`.
(Perceiver resampler reduced to one cross-attention pooling layer; sizes shrunk.)

Source: https://github.com/christopherthompson81/vernacula/pull/47
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"speech_tokens": {1: "prompt_len"}}
BLIND = "domains-30"


class Perceiver(nn.Module):
    def __init__(self, n_channels, n_queries=8, heads=4):
        super().__init__()
        self.pre_attention_query = nn.Parameter(torch.randn(1, n_queries, n_channels) * 0.02)
        self.attn = nn.MultiheadAttention(n_channels, heads, batch_first=True)

    def forward(self, h):
        query = self.pre_attention_query.expand(h.shape[0], -1, -1)
        out, _ = self.attn(query, h, h, need_weights=False)
        return out


class T3CondEnc(nn.Module):
    def __init__(self, speaker_embed_size=256, n_channels=64):
        super().__init__()
        self.speaker_embed_size = speaker_embed_size
        self.spkr_enc = nn.Linear(speaker_embed_size, n_channels)
        self.emotion_adv_fc = nn.Linear(1, n_channels, bias=False)
        self.perceiver = Perceiver(n_channels)


class PrepareConditionalsModel(nn.Module):
    def __init__(self, speech_vocab=128, max_prompt=150, n_channels=64, speaker_embed_size=256):
        super().__init__()
        self.cond_enc = T3CondEnc(speaker_embed_size, n_channels)
        self.speech_emb = nn.Embedding(speech_vocab, n_channels)
        self.speech_pos_emb = nn.Embedding(max_prompt, n_channels)
        # built-in voice: x-vector of the default reference speaker
        speaker_emb = torch.randn(1, speaker_embed_size)
        self.cond_spkr = self.cond_enc.spkr_enc(speaker_emb.view(-1, self.cond_enc.speaker_embed_size))[:, None]

    def forward(self, speech_tokens, exaggeration):
        positions = torch.arange(speech_tokens.shape[1], device=speech_tokens.device)
        cond_prompt_speech_emb = self.speech_emb(speech_tokens) + self.speech_pos_emb(positions)[None]
        cond_prompt_speech_emb = self.cond_enc.perceiver(cond_prompt_speech_emb)
        cond_emotion_adv = self.cond_enc.emotion_adv_fc(exaggeration.view(-1, 1, 1))
        cond_spkr = self.cond_spkr.expand(speech_tokens.shape[0], -1, -1)
        cond_embeds = torch.cat((cond_spkr, cond_prompt_speech_emb, cond_emotion_adv), dim=1)
        return cond_embeds


def make_model():
    return PrepareConditionalsModel().eval()


def example_inputs():
    return (torch.randint(0, 128, (1, 40)), torch.tensor([0.5]))


def other_inputs():
    return [(torch.randint(0, 128, (1, 75)), torch.tensor([0.7])), (torch.randint(0, 128, (1, 12)), torch.tensor([0.3]))]


def probe_inputs():
    return other_inputs()
