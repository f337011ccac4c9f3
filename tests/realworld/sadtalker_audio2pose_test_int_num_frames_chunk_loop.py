"""SadTalker's Audio2Pose.test() (the audio -> head-pose CVAE used at inference) takes `int(num_frames) - 1`,
splits it into `div = num_frames // self.seq_len` chunks plus a `re != 0` remainder chunk, and runs the audio
encoder + CVAE decoder once per chunk in a Python loop; the ailia-models port reports the model cannot be
converted to ONNX as written and moves the chunk loop out to host code. (The CVAE's random latent z is left
out of this trimmed decoder so outputs are comparable.)

Source: https://github.com/ailia-ai/ailia-models/issues/1203
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"ref": {0: "batch"}, "class_id": {0: "batch"},
           "indiv_mels": {0: "batch", 1: "frames"}}
BLIND = "domains-85"


class AudioEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.audio_encoder = nn.Sequential(nn.Conv2d(1, dim, kernel_size=(80, 16)), nn.ReLU())

    def forward(self, audio_sequences):
        # audio_sequences = (B, T, 1, 80, 16)
        B = audio_sequences.size(0)
        audio_sequences = torch.cat([audio_sequences[:, i] for i in range(audio_sequences.size(1))], dim=0)
        audio_embedding = self.audio_encoder(audio_sequences)  # B, 512, 1, 1
        dim = audio_embedding.shape[1]
        audio_embedding = audio_embedding.reshape((B, -1, dim, 1, 1))
        return audio_embedding.squeeze(-1).squeeze(-1)  # B seq_len+1 512


class Decoder(nn.Module):
    def __init__(self, seq_len, audio_dim=32, num_classes=46):
        super().__init__()
        self.seq_len = seq_len
        self.linear_audio = nn.Linear(audio_dim, 16)
        self.classbias = nn.Parameter(torch.randn(num_classes, 6 + 16))
        self.MLP = nn.Sequential(nn.Linear(6 + 16, 32), nn.ReLU(), nn.Linear(32, 6))

    def forward(self, batch):
        class_id = batch['class']
        ref = batch['ref']                                    # bs 6
        bs = ref.shape[0]
        audio_out = self.linear_audio(batch['audio_emb'])     # bs seq_len 16
        ref = ref.reshape(bs, -1).unsqueeze(1).repeat(1, self.seq_len, 1)
        x_in = torch.cat([ref, audio_out], dim=-1) + self.classbias[class_id].unsqueeze(1)
        batch['pose_motion_pred'] = self.MLP(x_in)            # bs seq_len 6
        return batch


class CVAE(nn.Module):
    def __init__(self, seq_len):
        super().__init__()
        self.decoder = Decoder(seq_len)

    def test(self, batch):
        return self.decoder(batch)


class Audio2Pose(nn.Module):
    def __init__(self, seq_len=8):
        super().__init__()
        self.seq_len = seq_len
        self.audio_encoder = AudioEncoder()
        self.netG = CVAE(seq_len)

    def forward(self, ref, class_id, indiv_mels, num_frames):
        x = {'ref': ref, 'class': class_id, 'indiv_mels': indiv_mels, 'num_frames': num_frames}
        return self.test(x)['pose_pred']

    def test(self, x):
        batch = {}
        ref = x['ref']                            #bs 1 70
        batch['ref'] = x['ref'][:,0,-6:]
        batch['class'] = x['class']
        bs = ref.shape[0]

        indiv_mels= x['indiv_mels']               # bs T 1 80 16
        indiv_mels_use = indiv_mels[:, 1:]        # we regard the ref as the first frame
        num_frames = x['num_frames']
        num_frames = int(num_frames) - 1

        div = num_frames//self.seq_len
        re = num_frames%self.seq_len
        pose_motion_pred_list = [torch.zeros(batch['ref'].unsqueeze(1).shape, dtype=batch['ref'].dtype,
                                                device=batch['ref'].device)]

        for i in range(div):
            audio_emb = self.audio_encoder(indiv_mels_use[:, i*self.seq_len:(i+1)*self.seq_len,:,:,:]) #bs seq_len 512
            batch['audio_emb'] = audio_emb
            batch = self.netG.test(batch)
            pose_motion_pred_list.append(batch['pose_motion_pred'])  #list of bs seq_len 6

        if re != 0:
            audio_emb = self.audio_encoder(indiv_mels_use[:, -1*self.seq_len:,:,:,:]) #bs seq_len  512
            batch['audio_emb'] = audio_emb
            batch = self.netG.test(batch)
            pose_motion_pred_list.append(batch['pose_motion_pred'][:,-1*re:,:])

        pose_motion_pred = torch.cat(pose_motion_pred_list, dim = 1)
        batch['pose_motion_pred'] = pose_motion_pred

        pose_pred = ref[:, :1, -6:] + pose_motion_pred  # bs T 6

        batch['pose_pred'] = pose_pred
        return batch


def make_model():
    return Audio2Pose()


def _inputs(bs, frames):
    return (torch.randn(bs, 1, 70), torch.randint(0, 46, (bs,)),
            torch.randn(bs, frames, 1, 80, 16), torch.tensor(frames))


def example_inputs():
    return _inputs(2, 21)


def other_inputs():
    return [_inputs(3, 30), _inputs(1, 17)]


def probe_inputs():
    return other_inputs()
