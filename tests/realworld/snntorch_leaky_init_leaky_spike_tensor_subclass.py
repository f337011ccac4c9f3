"""snnTorch tutorial-5 SNN (Linear -> Leaky -> Linear -> Leaky over num_steps): each step's membrane starts as
`mem1 = self.lif1.init_leaky()`, an empty `_SpikeTensor(torch.Tensor)` subclass carrying an `init_flag` attribute,
which `Leaky.forward` detects with `hasattr(mem, "init_flag")` and swaps for `torch.zeros_like(input_)`; the PR adding
`torch.compile(fullgraph=True)` support had to drop `_SpikeTensor`/`init_leaky` (and the `ATan.apply` default args)
and keep the membrane as a registered buffer instead. (ATan surrogate forward only; inhibition/state_quant left out.)

Source: https://github.com/jeshraghian/snntorch/pull/271
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-35"

num_steps = 5


class _SpikeTensor(torch.Tensor):
    """Inherits from torch.Tensor with additional attributes.
    ``init_flag`` is set at the time of initialization.
    When called in the forward function of any neuron, they are parsed and
    replaced with a torch.Tensor variable.
    """

    @staticmethod
    def __new__(cls, *args, init_flag=False, **kwargs):
        return super().__new__(cls, *args, **kwargs)

    def __init__(
        self,
        *args,
        init_flag=True,
    ):
        # super().__init__() # optional
        self.init_flag = init_flag


def _SpikeTorchConv(*args, input_):
    """Convert SpikeTensor to torch.Tensor of the same size as ``input_``."""

    states = []
    if (
        len(args) == 1 and type(args) is not tuple
    ):  # if only one hidden state, make it iterable
        args = (args,)
    for arg in args:
        arg = arg.to("cpu")
        arg = torch.Tensor(arg)  # wash away the SpikeTensor class
        arg = torch.zeros_like(input_, requires_grad=True)
        states.append(arg)
    if len(states) == 1:  # otherwise, list isn't unpacked
        return states[0]

    return states


class Leaky(nn.Module):
    instances = []

    class ATan(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input_, alpha=2.0):
            ctx.save_for_backward(input_)
            ctx.alpha = alpha
            out = (input_ > 0).float()
            return out

        @staticmethod
        def backward(ctx, grad_output):
            (input_,) = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad = ctx.alpha / 2 / (1 + (torch.pi / 2 * ctx.alpha * input_).pow_(2)) * grad_input
            return grad, None

    def __init__(self, beta, threshold=1.0, spike_grad=None, reset_mechanism="subtract",
                 graded_spikes_factor=1.0):
        super().__init__()
        Leaky.instances.append(self)
        self.init_hidden = False
        self.state_quant = False
        self.reset_mechanism_val = {"subtract": 0, "zero": 1, "none": 2}[reset_mechanism]
        self.register_buffer("threshold", torch.as_tensor(threshold))
        self.register_buffer("graded_spikes_factor", torch.as_tensor(graded_spikes_factor))
        self.register_buffer("beta", torch.as_tensor(beta))
        if spike_grad is None:
            self.spike_grad = self.ATan.apply
        else:
            self.spike_grad = spike_grad

    @staticmethod
    def init_leaky():
        mem = _SpikeTensor(init_flag=False)

        return mem

    def fire(self, mem):
        mem_shift = mem - self.threshold
        spk = self.spike_grad(mem_shift)
        spk = spk * self.graded_spikes_factor
        return spk

    def mem_reset(self, mem):
        mem_shift = mem - self.threshold
        reset = self.spike_grad(mem_shift).clone().detach()
        return reset

    def _base_state_function(self, input_, mem):
        base_fn = self.beta.clamp(0, 1) * mem + input_
        return base_fn

    def _build_state_function(self, input_, mem):
        if self.reset_mechanism_val == 0:  # reset by subtraction
            state_fn = self._base_state_function(input_, mem - self.reset * self.threshold)
        elif self.reset_mechanism_val == 1:  # reset to zero
            state_fn = self._base_state_function(input_, mem) - self.reset * self._base_state_function(input_, mem)
        elif self.reset_mechanism_val == 2:  # no reset, pure integration
            state_fn = self._base_state_function(input_, mem)
        return state_fn

    def forward(self, input_, mem=False):

        if hasattr(mem, "init_flag"):  # only triggered on first-pass
            mem = _SpikeTorchConv(mem, input_=input_)
        elif mem is False and hasattr(
            self.mem, "init_flag"
        ):  # init_hidden case
            self.mem = _SpikeTorchConv(self.mem, input_=input_)

        if not self.init_hidden:
            self.reset = self.mem_reset(mem)
            mem = self._build_state_function(input_, mem)

            spk = self.fire(mem)

            return spk, mem


class Net(nn.Module):
    def __init__(self, num_inputs=64, num_hidden=32, num_outputs=10, beta=0.95):
        super().__init__()
        self.fc1 = nn.Linear(num_inputs, num_hidden)
        self.lif1 = Leaky(beta=beta)
        self.fc2 = nn.Linear(num_hidden, num_outputs)
        self.lif2 = Leaky(beta=beta)

    def forward(self, x):

        # Initialize hidden states at t=0
        mem1 = self.lif1.init_leaky()
        mem2 = self.lif2.init_leaky()

        # Record the final layer
        spk2_rec = []
        mem2_rec = []

        for step in range(num_steps):
            cur1 = self.fc1(x)
            spk1, mem1 = self.lif1(cur1, mem1)
            cur2 = self.fc2(spk1)
            spk2, mem2 = self.lif2(cur2, mem2)
            spk2_rec.append(spk2)
            mem2_rec.append(mem2)

        return torch.stack(spk2_rec, dim=0), torch.stack(mem2_rec, dim=0)


def make_model():
    return Net().eval()


def example_inputs():
    return (torch.rand(4, 64) * 2,)


def other_inputs():
    return [(torch.rand(7, 64) * 2,), (torch.rand(1, 64) * 2,)]


def probe_inputs():
    return other_inputs()
