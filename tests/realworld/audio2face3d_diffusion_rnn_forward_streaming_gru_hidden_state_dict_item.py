"""NVIDIA Audio2Face-3D diffusion (speech-driven facial animation) `Network.forward_streaming`: each audio window is
denoised step by step, and the GRU hidden state of every diffusion step is kept on the module in a defaultdict,
looked up and overwritten with a Python key taken from the input (`t_scalar = t[0].item()`,
`self.gru(combined_tokens, self.h[t_scalar])`, `self.h[t_scalar] = h.detach()`). The repository exports the
`forward_streaming_stateless` variant instead, whose comment names the failure: "using hidden states cached in model.
This is not possible in onnx model, so need to pass in and out the hidden states as arg." (the streaming asserts are
skipped under `torch.jit.is_tracing()`).

Source: https://github.com/NVIDIA/Audio2Face-3D-Training-Framework/blob/112c5eb3408afd065ac8974b2c6ea9ab0e3965c6/audio2face/networks/diffusion_rnn.py
"""
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {}  # one streaming window (batch 1, fixed window_size) per call, as the streaming inference runs
BLIND = "domains-58"

STREAMING_CFG = {"30": {"window_size": 16000, "left_truncate": 7, "right_truncate": 8, "block_frame_size": 15}}


def interp_input(audio_feature, vertices, hubert_fps: int, output_anim_fps: int):
    B = audio_feature.shape[0]
    if hubert_fps != 50 or output_anim_fps not in {30, 60}:
        raise ValueError("Only supports 50->30/60 FPS conversion")
    num_frames = vertices.shape[1]
    # (the repository's own `linear1d` with align_corners=True, half_pixel_centers=False)
    audio_feature = F.interpolate(audio_feature.transpose(1, 2), size=int(num_frames * 2), mode="linear",
                                  align_corners=True).transpose(1, 2)
    audio_feature = torch.reshape(audio_feature, (B, num_frames, -1))
    return audio_feature, vertices, num_frames


class Network(nn.Module):
    def __init__(self, diffusion_steps=10, total_dim=48, num_actors=3, emo_len=6, feature_dim=32,
                 hubert_feature_dim=24, gru_feature_dim=32, num_gru_layers=2):
        super().__init__()
        self.hubert_fps = 50
        self.output_anim_fps = 30
        self.onehot_diffsteps = torch.FloatTensor(torch.eye(diffusion_steps))
        # stand-in for the HuBERT encoder: 16 kHz audio -> 50 fps features
        self.audio_model = nn.Conv1d(1, hubert_feature_dim, kernel_size=320, stride=320)
        self.proj_hubert = nn.Linear(hubert_feature_dim * 2, feature_dim)
        self.geometry_embedding = nn.Sequential(nn.Linear(total_dim, feature_dim), nn.ReLU())
        self.proj_time = nn.Sequential(nn.Linear(diffusion_steps, feature_dim), nn.Mish())
        self.gru = nn.GRU(feature_dim * 3 + 8 + 8, gru_feature_dim, num_layers=num_gru_layers, batch_first=True)
        self.final_layer = nn.Linear(gru_feature_dim, total_dim)
        self.embed_actor = nn.Linear(num_actors, 8, bias=False)
        self.embed_emo_vector = nn.Linear(emo_len, 8, bias=False)
        self.mean_geometry = torch.randn(num_actors, total_dim) * 0.1
        self.num_gru_layers = num_gru_layers
        self.gru_feature_dim = gru_feature_dim
        self.streaming_cfg = STREAMING_CFG[str(int(self.output_anim_fps))]

    def set_mode(self, mode="streaming"):
        if mode == "streaming":
            self.inference_mode = "streaming"
            self.forward = self.forward_streaming
            self.reset_hidden_state_dict()  # reset hidden state before inference.
        else:
            raise NotImplementedError(f"Mode {mode} not implemented")

    def default_hidden_states(self, batch_size: int = 1) -> torch.Tensor:
        return torch.zeros([self.num_gru_layers, batch_size, self.gru_feature_dim])  # assume sample size is 1

    def reset_hidden_state_dict(self) -> None:  # call this before inference a new track to clear the old hidden states.
        self.h = defaultdict(self.default_hidden_states)

    def _process_inputs(self, geom_input, audio):
        geom_input = self.geometry_embedding(geom_input)
        hidden_states = self.audio_model(audio[:, None]).transpose(1, 2)  # .last_hidden_state of HuBERT
        hidden_states, geom_input, frame_num = interp_input(
            hidden_states, geom_input, self.hubert_fps, self.output_anim_fps
        )
        return hidden_states[:, :frame_num], geom_input[:, :frame_num], frame_num

    def _prepare_conditioning_tokens(self, audio, t, frame_num):
        hubert_tokens = self.proj_hubert(audio)
        t_tokens = self.proj_time(t).repeat(frame_num, 1, 1).permute(1, 0, 2)
        return hubert_tokens, t_tokens

    def forward_streaming(self, geom_input, t, audio, actor_vec, emotion_vec):
        """
        geom_input: B, 30, nVertices
        t: 1, -> Make it B,
        audio: B, 16000
        emotion_vec: 1, 11
        """
        if not torch.jit.is_tracing():
            assert not self.training
            assert audio.shape[1] == self.streaming_cfg["window_size"]
            assert t.shape == torch.Size([1])

        # streaming related configs
        left_truncate = self.streaming_cfg["left_truncate"]
        right_truncate = self.streaming_cfg["right_truncate"]
        block_frame_size = self.streaming_cfg["block_frame_size"]

        t_scalar = t[0].item()
        t = self.onehot_diffsteps[t]

        mean_geometry = actor_vec @ self.mean_geometry
        mean_geometry = mean_geometry.unsqueeze(1)  # 1,1, 3V
        actor_embedding = self.embed_actor(actor_vec)  # 1, 256
        emo_embedding = self.embed_emo_vector(emotion_vec)  # 1, emo_embedding_dim -> B, emo_embedding_dim

        audio, geom_input, frame_num = self._process_inputs(geom_input, audio)
        hubert_tokens, t_tokens = self._prepare_conditioning_tokens(audio, t, frame_num)

        emo_embedding = emo_embedding.unsqueeze(1).repeat(1, frame_num, 1)  # 1, T, emo_embedding_dim
        actor_embedding = actor_embedding.unsqueeze(1).repeat(1, frame_num, 1)  # 1, T, actor_embedding_dim

        combined_tokens = torch.cat(
            [
                hubert_tokens[:, left_truncate : left_truncate + block_frame_size],
                geom_input[:, left_truncate : left_truncate + block_frame_size],
                actor_embedding[:, left_truncate : left_truncate + block_frame_size],
                t_tokens[:, left_truncate : left_truncate + block_frame_size],
                emo_embedding[:, left_truncate : left_truncate + block_frame_size],
            ],
            dim=-1,
        )
        output, h = self.gru(combined_tokens, self.h[t_scalar])  # combined_tokens: [1, 103, 768], output [1, 103, 256])

        self.h[t_scalar] = h.detach()  # update the hidden state for diffusion step t.

        output = self.final_layer(output) + mean_geometry

        output = torch.concat(
            [
                torch.zeros([1, left_truncate, output.shape[2]]),
                output,
                torch.zeros([1, right_truncate, output.shape[2]]),
            ],
            dim=1,
        )  # dirty trick.

        return output  # 1, T(30fps), 3V


def make_model():
    torch.manual_seed(0)
    net = Network().eval()
    net.set_mode("streaming")
    return net


def _window(step):
    actor_vec = torch.tensor([[0.0, 1.0, 0.0]])
    emotion_vec = torch.rand(1, 6)
    return (torch.randn(1, 30, 48), torch.tensor([step]), torch.randn(1, 16000) * 0.1, actor_vec, emotion_vec)


def example_inputs():
    return _window(9)


def other_inputs():
    # consecutive audio windows of a track, denoised at diffusion steps 9, 4 and 9 again
    return [_window(9), _window(4), _window(9)]


def probe_inputs():
    return other_inputs()
