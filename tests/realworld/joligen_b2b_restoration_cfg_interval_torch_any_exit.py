"""joliGEN B2B (flow-matching restoration/inpainting generator): `restoration` integrates the ODE with Heun steps
over `torch.linspace` timesteps, and each velocity call `_forward_sample_restoration` exits early with
`if cfg_is_neutral or not torch.any(interval_mask): return v_cond` (classifier-free guidance only inside the
CFG interval of t); the ONNX export script has to monkey-patch this method ("patch_b2b_tracing_compatibility")
to export the restoration loop.

Source: https://github.com/jolibrain/joliGEN/commit/763697ed25e3c1724b5cf81b087004434fe4d98e
"""
import math

import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"y": {0: "batch"}, "mask": {0: "batch"}, "init_noise": {0: "batch"}, "labels": {0: "batch"}}
BLIND = "domains-50"


class TinyB2BModel(nn.Module):
    """Stand-in for the ViT/UNet denoiser: (model_input, t, labels) -> x prediction."""

    def __init__(self, in_ch=3, out_ch=3, num_classes=1, dim=16):
        super().__init__()
        self.num_classes = num_classes
        self.label_emb = nn.Embedding(num_classes + 1, dim)  # +1: the "unconditional" label
        self.t_proj = nn.Linear(1, dim)
        self.conv_in = nn.Conv2d(in_ch, dim, 3, padding=1)
        self.conv_out = nn.Conv2d(dim, out_ch, 3, padding=1)

    def forward(self, x, t, labels):
        emb = self.label_emb(labels) + self.t_proj(t[:, None])
        h = torch.relu(self.conv_in(x) + emb[:, :, None, None])
        return self.conv_out(h)


class B2BGenerator(nn.Module):
    def __init__(self, b2b_model, cfg_scale=2.0, denoise_timesteps=4):
        super().__init__()
        self.b2b_model = b2b_model
        self.noise_scale = 1.0
        self.t_eps = 5e-2
        self.cfg_scale = cfg_scale
        self.cfg_interval = (0.1, 1.0)  # value used in paper training examples
        self.clip_denoised_default = False
        self.disable_inference_clipping = False
        self.denoise_timesteps = denoise_timesteps

    def _match_prediction_channels(self, pred, reference):
        channel_dim = 2 if pred.ndim == 5 else 1
        pred_channels = pred.shape[channel_dim]
        ref_channels = reference.shape[channel_dim]
        if pred_channels == ref_channels:
            return pred
        return pred[:, -ref_channels:, :, :]

    def _project_known_pixels(self, x, y_known, mask):
        if mask is None or y_known is None:
            return x
        return x * mask + y_known * (1.0 - mask)

    @torch.no_grad()
    def restoration(self, y, y_cond=None, denoise_timesteps=None, mask=None, labels=None,
                    clip_denoised=None, init_noise=None):
        device = y.device
        y_known = y if mask is not None else None

        if mask is not None:
            mask = torch.clamp(mask, 0.0, 1.0)
            y_background = y * (1.0 - mask)
        else:
            y_background = y

        if init_noise is None:
            noise = torch.randn_like(y)
        else:
            noise = init_noise.to(device=y.device, dtype=y.dtype)

        x = y_background + noise * self.noise_scale
        if mask is not None:
            x = x * mask + y * (1.0 - mask)

        steps = int(denoise_timesteps)
        if clip_denoised is None:
            clip_denoised = self.clip_denoised_default

        timesteps = (
            torch.linspace(0.0, 1.0, steps + 1, device=device)
            .view(steps + 1, 1, *([1] * (x.ndim - 1)))
            .expand(steps + 1, x.shape[0], *([1] * (x.ndim - 1)))
        )

        # ODE integration
        for i in range(steps - 1):
            t = timesteps[i]
            t_next = timesteps[i + 1]
            x = self._heun_step_restoration(x, t, t_next, y_cond, mask, labels, y_known)
            if clip_denoised:
                x = x.clamp(-1.0, 1.0)
            if mask is not None:
                x = x * mask + y * (1.0 - mask)

        # Last step with euler
        x = self._euler_step_restoration(x, timesteps[-2], timesteps[-1], y_cond, mask, labels, y_known)
        if mask is not None:
            x = x * mask + y * (1.0 - mask)
        x = x.clamp(-1.0, 1.0)
        return x

    @torch.no_grad()
    def _forward_sample_restoration(self, x, t, y_cond, mask, labels, y_known):
        x_in = self._project_known_pixels(x, y_known, mask)
        if labels is None:
            labels = torch.zeros(x_in.shape[0], dtype=torch.long, device=x_in.device)
        if y_cond is None:
            model_input = x_in
        elif len(x_in.shape) != 5:
            model_input = torch.cat([y_cond, x_in], dim=1)
        else:
            model_input = torch.cat([y_cond, x_in], dim=2)

        # --- conditional ---
        x_cond = self.b2b_model(model_input, t.flatten(), labels)
        x_cond = self._match_prediction_channels(x_cond, x_in)
        x_cond = self._project_known_pixels(x_cond, y_known, mask)

        den = 1.0 - t
        if not self.disable_inference_clipping:
            den = den.clamp_min(self.t_eps)
        v_cond = (x_cond - x_in) / den

        # cfg interval
        low, high = self.cfg_interval
        interval_mask = (t < high) & ((low == 0) | (t > low))
        cfg_is_neutral = math.isclose(self.cfg_scale, 1.0, rel_tol=0.0, abs_tol=1e-12)

        # When guidance is neutral (or inactive for this t), CFG exactly equals v_cond.
        if cfg_is_neutral or not torch.any(interval_mask):
            return v_cond

        # --- unconditional ---
        num_classes = int(self.b2b_model.num_classes)
        x_uncond = self.b2b_model(model_input, t.flatten(), torch.full_like(labels, num_classes))
        x_uncond = self._match_prediction_channels(x_uncond, x_in)
        x_uncond = self._project_known_pixels(x_uncond, y_known, mask)
        v_uncond = (x_uncond - x_in) / den

        cfg_scale_interval = torch.where(interval_mask, self.cfg_scale, 1.0)
        return v_uncond + cfg_scale_interval * (v_cond - v_uncond)

    @torch.no_grad()
    def _euler_step_restoration(self, x, t, t_next, y_cond, mask, labels, y_known):
        v = self._forward_sample_restoration(x, t, y_cond, mask, labels, y_known)
        return x + (t_next - t) * v

    @torch.no_grad()
    def _heun_step_restoration(self, x, t, t_next, y_cond, mask, labels, y_known):
        v_t = self._forward_sample_restoration(x, t, y_cond, mask, labels, y_known)
        x_euler = x + (t_next - t) * v_t
        v_t_next = self._forward_sample_restoration(x_euler, t_next, y_cond, mask, labels, y_known)
        v = 0.5 * (v_t + v_t_next)
        return x + (t_next - t) * v


class B2BRestorationWrapperNoCond(nn.Module):
    """The exporter's wrapper (scripts/b2b_export_onnx.py): the whole restoration loop in one graph."""

    def __init__(self, model, denoise_steps):
        super().__init__()
        self.model = model
        self.denoise_steps = int(denoise_steps)

    def forward(self, y, mask, init_noise, labels):
        return self.model.restoration(y=y, y_cond=None, denoise_timesteps=self.denoise_steps, mask=mask,
                                      labels=labels, init_noise=init_noise)


def make_model():
    return B2BRestorationWrapperNoCond(B2BGenerator(TinyB2BModel()), denoise_steps=4).eval()


def _inputs(b, hw=16):
    mask = (torch.rand(b, 1, hw, hw) > 0.5).float()
    return (torch.rand(b, 3, hw, hw) * 2 - 1, mask, torch.randn(b, 3, hw, hw), torch.zeros(b, dtype=torch.long))


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(3), _inputs(1)]


def probe_inputs():
    return other_inputs()
