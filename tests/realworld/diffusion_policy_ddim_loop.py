"""Diffusion Policy `conditional_sample`: the denoising loop `for t in scheduler.timesteps` runs the noise
model and a diffusers scheduler `step`, which indexes `alphas_cumprod[timestep]` and branches on
`prev_timestep >= 0` with the timestep taken from the scheduler (a static value, not an input); the dynamo
ONNX export of the whole policy fails on that timestep.

Source: https://github.com/huggingface/diffusers/issues/11456
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"trajectory": {0: "batch"}, "global_cond": {0: "batch"}}
BLIND = "domains-1"


class DDIMScheduler:
    def __init__(self, num_train_timesteps=100, beta_start=0.0001, beta_end=0.02):
        self.num_train_timesteps = num_train_timesteps
        self.betas = torch.linspace(beta_start, beta_end, num_train_timesteps, dtype=torch.float32)
        self.alphas = 1.0 - self.betas
        self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)
        self.final_alpha_cumprod = torch.tensor(1.0)
        self.num_inference_steps = None

    def set_timesteps(self, num_inference_steps):
        self.num_inference_steps = num_inference_steps
        step_ratio = self.num_train_timesteps // self.num_inference_steps
        self.timesteps = (torch.arange(0, num_inference_steps) * step_ratio).flip(0)

    def step(self, model_output, timestep, sample):
        prev_timestep = timestep - self.num_train_timesteps // self.num_inference_steps
        alpha_prod_t = self.alphas_cumprod[timestep]
        alpha_prod_t_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod
        beta_prod_t = 1 - alpha_prod_t
        pred_original_sample = (sample - beta_prod_t ** (0.5) * model_output) / alpha_prod_t ** (0.5)
        pred_sample_direction = (1 - alpha_prod_t_prev) ** (0.5) * model_output
        prev_sample = alpha_prod_t_prev ** (0.5) * pred_original_sample + pred_sample_direction
        return prev_sample


class DiffusionUnetLowdimPolicy(nn.Module):
    def __init__(self, action_dim=2, cond_dim=20, num_inference_steps=4):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(action_dim + cond_dim + 1, 64), nn.Mish(), nn.Linear(64, action_dim))
        self.noise_scheduler = DDIMScheduler()
        self.num_inference_steps = num_inference_steps

    def conditional_sample(self, trajectory, global_cond):
        scheduler = self.noise_scheduler
        scheduler.set_timesteps(self.num_inference_steps)
        for t in scheduler.timesteps:
            t_in = t.float().expand(trajectory.shape[0], trajectory.shape[1], 1) / scheduler.num_train_timesteps
            cond = global_cond[:, None, :].expand(-1, trajectory.shape[1], -1)
            model_output = self.model(torch.cat([trajectory, cond, t_in], dim=-1))
            trajectory = scheduler.step(model_output, t, trajectory)
        return trajectory

    def forward(self, trajectory, global_cond):
        return self.conditional_sample(trajectory, global_cond)


def make_model():
    return DiffusionUnetLowdimPolicy()


def example_inputs():
    return (torch.randn(2, 16, 2), torch.randn(2, 20))


def other_inputs():
    return [(torch.randn(5, 16, 2), torch.randn(5, 20)), (torch.randn(1, 16, 2), torch.randn(1, 20))]


def probe_inputs():
    return other_inputs()
