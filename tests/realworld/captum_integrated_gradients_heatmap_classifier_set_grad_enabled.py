"""Image classifier exported together with a Captum heatmap generator: `forward` runs the base model and
then `heatmap_generator.generate(...)`, which calls `IntegratedGradients.attribute` (captum's
`compute_gradients`: `with torch.autograd.set_grad_enabled(True)` + `torch.autograd.grad` over the scaled
inputs). The report exports with `dynamo=False` and dynamic axes; the ONNX model loads but its heatmaps come
out constant (the gradient path is frozen at the export example), with tensor-to-bool / constant warnings.

Source: https://github.com/pytorch/pytorch/issues/173369
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "autograd-function"
FAMILY = "tensor_data"
DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-85"


# --- the few captum lines the generator uses (captum/_utils/gradient.py, attr/_core/integrated_gradients.py)
def riemann_trapezoid(n):
    step_sizes = [1 / (n - 1)] * n
    step_sizes[0] = step_sizes[-1] = 0.5 / (n - 1)
    alphas = [i / (n - 1) for i in range(n)]
    return step_sizes, alphas


def _run_forward(forward_func, inputs, target=None):
    output = forward_func(*inputs)
    if target is None:
        return output
    return torch.gather(output, 1, target.reshape(len(output), 1))


def compute_gradients(forward_fn, inputs, target_ind=None):
    with torch.autograd.set_grad_enabled(True):
        # runs forward pass
        outputs = _run_forward(forward_fn, inputs, target_ind)
        assert outputs[0].numel() == 1, (
            "Target not provided when necessary, cannot"
            " take gradient with respect to multiple outputs."
        )
        # torch.unbind(forward_out) is a list of scalar tensor tuples and
        # contains batch_size * #steps elements
        grads = torch.autograd.grad(torch.unbind(outputs), inputs)
    return grads


class IntegratedGradients:
    def __init__(self, forward_func, multiply_by_inputs=True):
        self.forward_func = forward_func
        self._multiply_by_inputs = multiply_by_inputs

    def attribute(self, inputs, baselines=None, target=None, n_steps=50):
        if baselines is None:
            baselines = torch.zeros_like(inputs)
        step_sizes, alphas = riemann_trapezoid(n_steps)
        # scale features and compute gradients. (batch size is abbreviated as bsz)
        scaled_features = torch.cat(
            [baselines + alpha * (inputs - baselines) for alpha in alphas], dim=0
        ).requires_grad_()
        expanded_target = target.repeat(n_steps) if target is not None else None
        grads = compute_gradients(self.forward_func, (scaled_features,), expanded_target)[0]
        # flattening grads so that we can multilpy it with step-size
        scaled_grads = grads.contiguous().view(n_steps, -1) * torch.tensor(step_sizes).view(n_steps, 1).to(grads.device)
        total_grads = scaled_grads.sum(0).view(inputs.shape)
        if not self._multiply_by_inputs:
            return total_grads
        return total_grads * (inputs - baselines)


class HeatmapGenerator:
    def __init__(self, model, n_steps=8):
        self.ig = IntegratedGradients(model, multiply_by_inputs=False)
        self.n_steps = n_steps

    def generate(self, inputs, num_classes, device):
        heatmaps = []
        for c in range(num_classes):
            target = torch.full((inputs.shape[0],), c, dtype=torch.long, device=device)
            attr = self.ig.attribute(inputs, target=target, n_steps=self.n_steps)
            heatmaps.append(attr.abs().sum(dim=1, keepdim=True))
        return torch.cat(heatmaps, dim=1)


class ClassificationModel(torch.nn.Module):
    def __init__(self, base_model, device, resize_shape=None, heatmap_generator=None):
        super(ClassificationModel, self).__init__()
        self.base_model = base_model
        self.device = device
        self.resize_shape = resize_shape
        self.heatmap_generator = heatmap_generator
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def transform(self, inputs):
        return (inputs - self.mean) / self.std

    def forward(self, inputs):
        # Apply transforms
        inputs = self.transform(inputs)

        # Apply model to transformed input
        outputs = self.base_model(inputs)

        # Generate heatmaps
        heatmaps = torch.zeros(inputs.shape)
        if self.heatmap_generator:
            heatmaps = self.heatmap_generator.generate(inputs, outputs.shape[1], self.device)
            # Resize heatmap if needed
            img_height, img_width = inputs.shape[-2:]
            heatmaps = F.interpolate(heatmaps, size=(img_height, img_width), mode="bilinear", align_corners=False)

        return outputs, heatmaps


def make_model():
    base = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 3),
    ).eval()
    return ClassificationModel(base, torch.device("cpu"), heatmap_generator=HeatmapGenerator(base)).eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 32),)


def other_inputs():
    return [(torch.rand(3, 3, 40, 24),), (torch.rand(1, 3, 20, 36),)]


def probe_inputs():
    return other_inputs()
