"""End-to-end Stable Diffusion pipeline exported as one graph (text encoder, classifier-free guidance, UNet and the
diffusers `PNDMScheduler`): `forward(text_input_ids, uncond_text_input_ids, timesteps)` loops over the `timesteps`
input and calls `scheduler.step`, whose PLMS update keeps Python state (`self.counter`, the `self.ets` list,
`self.cur_sample`) and branches on `prev_timestep >= 0`. The reporter scripted the pipeline (it runs) but the ONNX
export fails (`nullptr != clone_n INTERNAL ASSERT FAILED` in remove_inplace_ops_for_onnx).
(Tiny text encoder / UNet; the initial latents are an input so that the case is deterministic.)

Source: https://github.com/pytorch/pytorch/issues/93159
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"text_input_ids": {0: "batch", 1: "seq"}, "uncond_text_input_ids": {0: "batch", 1: "seq"}, "timesteps": {0: "steps"},
           "latents": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-33"


class PNDMScheduler:
    def __init__(self, num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012, skip_prk_steps=True,
                 num_inference_steps=4):
        self.num_train_timesteps = num_train_timesteps
        self.skip_prk_steps = skip_prk_steps
        self.betas = torch.linspace(beta_start**0.5, beta_end**0.5, num_train_timesteps, dtype=torch.float32) ** 2
        self.alphas = 1.0 - self.betas
        self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)
        self.final_alpha_cumprod = self.alphas_cumprod[0]
        self.num_inference_steps = num_inference_steps
        self.prk_timesteps = []
        # running values
        self.cur_model_output = 0
        self.counter = 0
        self.cur_sample = None
        self.ets = []

    def step(self, model_output, timestep, sample):
        if self.counter < len(self.prk_timesteps) and not self.skip_prk_steps:
            raise NotImplementedError("step_prk")
        else:
            return self.step_plms(model_output=model_output, timestep=timestep, sample=sample)

    def step_plms(self, model_output, timestep, sample):
        prev_timestep = timestep - self.num_train_timesteps // self.num_inference_steps

        if self.counter != 1:
            self.ets = self.ets[-3:]
            self.ets.append(model_output)
        else:
            prev_timestep = timestep
            timestep = timestep + self.num_train_timesteps // self.num_inference_steps

        if len(self.ets) == 1 and self.counter == 0:
            model_output = model_output
            self.cur_sample = sample
        elif len(self.ets) == 1 and self.counter == 1:
            model_output = (model_output + self.ets[-1]) / 2
            sample = self.cur_sample
            self.cur_sample = None
        elif len(self.ets) == 2:
            model_output = (3 * self.ets[-1] - self.ets[-2]) / 2
        elif len(self.ets) == 3:
            model_output = (23 * self.ets[-1] - 16 * self.ets[-2] + 5 * self.ets[-3]) / 12
        else:
            model_output = (1 / 24) * (55 * self.ets[-1] - 59 * self.ets[-2] + 37 * self.ets[-3] - 9 * self.ets[-4])

        prev_sample = self._get_prev_sample(sample, timestep, prev_timestep, model_output)
        self.counter += 1
        return (prev_sample,)

    def _get_prev_sample(self, sample, timestep, prev_timestep, model_output):
        alpha_prod_t = self.alphas_cumprod[timestep]
        alpha_prod_t_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod
        beta_prod_t = 1 - alpha_prod_t
        beta_prod_t_prev = 1 - alpha_prod_t_prev
        sample_coeff = (alpha_prod_t_prev / alpha_prod_t) ** (0.5)
        model_output_denom_coeff = alpha_prod_t * beta_prod_t_prev ** (0.5) + (
            alpha_prod_t * beta_prod_t * alpha_prod_t_prev
        ) ** (0.5)
        prev_sample = (
            sample_coeff * sample - (alpha_prod_t_prev - alpha_prod_t) * model_output / model_output_denom_coeff
        )
        return prev_sample


class TinyUNet(nn.Module):
    def __init__(self, ch=4, hidden=32, ctx=32):
        super().__init__()
        self.time_proj = nn.Linear(1, hidden)
        self.ctx_proj = nn.Linear(ctx, hidden)
        self.conv_in = nn.Conv2d(ch, hidden, 3, padding=1)
        self.conv_out = nn.Conv2d(hidden, ch, 3, padding=1)

    def forward(self, sample, timestep, encoder_hidden_states):
        temb = self.time_proj(timestep.float().reshape(1, 1) / 1000.0)
        ctx = self.ctx_proj(encoder_hidden_states.mean(1))
        h = self.conv_in(sample) + (temb + ctx)[:, :, None, None]
        return self.conv_out(torch.nn.functional.silu(h))


class StableDiffusionPipeline(nn.Module):
    def __init__(self, vocab=100, ctx=32, guidance_scale=7.5):
        super().__init__()
        self.text_encoder = nn.Sequential(nn.Embedding(vocab, ctx), nn.Linear(ctx, ctx))
        self.unet = TinyUNet(ctx=ctx)
        self.scheduler = PNDMScheduler()
        self.guidance_scale = guidance_scale

    def forward(self, text_input_ids, uncond_text_input_ids, timesteps, latents):
        text_embeddings = self.text_encoder(text_input_ids)
        uncond_embeddings = self.text_encoder(uncond_text_input_ids)
        text_embeddings = torch.cat([uncond_embeddings, text_embeddings])
        self.scheduler.ets = []
        self.scheduler.counter = 0
        for t in timesteps:
            latent_model_input = torch.cat([latents] * 2)
            noise_pred = self.unet(latent_model_input, t, encoder_hidden_states=text_embeddings)
            noise_pred_uncond, noise_pred_text = noise_pred.chunk(2)
            noise_pred = noise_pred_uncond + self.guidance_scale * (noise_pred_text - noise_pred_uncond)
            latents = self.scheduler.step(noise_pred, t, latents)[0]
        return latents


def make_model():
    return StableDiffusionPipeline().eval()


def _plms_timesteps(n, num_train_timesteps=1000, offset=1):
    t = torch.arange(0, n) * (num_train_timesteps // n) + offset
    return torch.cat([t[:-1], t[-2:-1], t[-1:]]).flip(0)


def example_inputs():
    return (torch.randint(0, 100, (1, 7)), torch.randint(0, 100, (1, 7)), _plms_timesteps(4), torch.randn(1, 4, 8, 8))


def other_inputs():
    return [
        (torch.randint(0, 100, (2, 9)), torch.randint(0, 100, (2, 9)), _plms_timesteps(6), torch.randn(2, 4, 8, 12)),
        (torch.randint(0, 100, (1, 5)), torch.randint(0, 100, (1, 5)), _plms_timesteps(3), torch.randn(1, 4, 16, 8)),
    ]


def probe_inputs():
    return other_inputs()
