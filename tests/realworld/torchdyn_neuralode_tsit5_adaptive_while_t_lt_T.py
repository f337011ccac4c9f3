"""torchdyn `NeuralODE(f, solver='tsit5')` on a small MLP vector field: torchdyn's `odeint` picks the adaptive
`_adaptive_odeint` routine, a `while t < T` loop whose step acceptance, step-size adaptation and checkpoint saving all
branch on tensor values (`init_step` also branches on norms), and the DEFunc wrapper counts `self.nfe += 1`. The
issue reports the model cannot be scripted, and notes that tracing instead would not respect this control flow and
"would produce an incorrect output".

Source: https://github.com/DiffEqML/torchdyn/issues/163
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-86"


# --- torchdyn/numerics/utils.py ---
def hairer_norm(tensor):
    return tensor.abs().pow(2).mean().sqrt()


def init_step(f, f0, x0, t0, order, atol, rtol):
    scale = atol + torch.abs(x0) * rtol
    d0, d1 = hairer_norm(x0 / scale), hairer_norm(f0 / scale)
    if d0 < 1e-5 or d1 < 1e-5:
        h0 = torch.tensor(1e-6, dtype=t0.dtype, device=t0.device)
    else:
        h0 = 0.01 * d0 / d1
    x_new = x0 + h0 * f0
    f_new = f(t0 + h0, x_new)
    d2 = hairer_norm((f_new - f0) / scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = torch.max(torch.tensor(1e-6, dtype=t0.dtype, device=t0.device), h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1. / float(order + 1))
    dt = torch.min(100 * h0, h1).to(t0)
    return dt


@torch.no_grad()
def adapt_step(dt, error_ratio, safety, min_factor, max_factor, order):
    if error_ratio == 0: return dt * max_factor
    if error_ratio < 1: min_factor = torch.ones_like(dt)
    exponent = torch.tensor(order, dtype=dt.dtype, device=dt.device).reciprocal()
    factor = torch.min(max_factor, torch.max(safety / error_ratio ** exponent, min_factor))
    return dt * factor


# --- torchdyn/numerics/solvers (Tsitouras45, tableau from _constants.construct_tsit5) ---
def construct_tsit5(dtype):
    c = torch.tensor([161 / 1000, 327 / 1000, 9 / 10, .9800255409045096857298102862870245954942, 1., 1.], dtype=dtype)
    a = [torch.tensor([161 / 1000], dtype=dtype),
         torch.tensor([-.8480655492356988544426874250230774675121e-2, .3354806554923569885444268742502307746751], dtype=dtype),
         torch.tensor([2.897153057105493432130432594192938764924, -6.359448489975074843148159912383825625952,
                       4.362295432869581411017727318190886861027], dtype=dtype),
         torch.tensor([5.325864828439256604428877920840511317836, -11.74888356406282787774717033978577296188,
                       7.495539342889836208304604784564358155658, -.9249506636175524925650207933207191611349e-1], dtype=dtype),
         torch.tensor([5.861455442946420028659251486982647890394, -12.92096931784710929170611868178335939541,
                       8.159367898576158643180400794539253485181, -.7158497328140099722453054252582973869127e-1,
                       -.2826905039406838290900305721271224146717e-1], dtype=dtype),
         torch.tensor([.9646076681806522951816731316512876333711e-1, 1 / 100, .4798896504144995747752495322905965199130,
                       1.379008574103741893192274821856872770756, -3.290069515436080679901047585711363850115,
                       2.324710524099773982415355918398765796109], dtype=dtype)]
    bsol = torch.tensor([.9646076681806522951816731316512876333711e-1, 1 / 100, .4798896504144995747752495322905965199130,
                         1.379008574103741893192274821856872770756, -3.290069515436080679901047585711363850115,
                         2.324710524099773982415355918398765796109, 0.], dtype=dtype)
    berr = torch.tensor([.9468075576583945807478876255758922856117e-1, .9183565540343253096776363936645313759813e-2,
                         .4877705284247615707855642599631228241516, 1.234297566930478985655109673884237654035,
                         -2.707712349983525454881109975059321670689, 1.866628418170587035753719399566211498666, 1 / 66.],
                        dtype=dtype)
    return (c, a, bsol, bsol - berr)


class Tsitouras45(nn.Module):
    def __init__(self, dtype=torch.float32, min_factor=0.2, max_factor=10, safety=0.9):
        super().__init__()
        self.order = 5
        self.min_factor = torch.tensor([min_factor])
        self.max_factor = torch.tensor([max_factor])
        self.safety = torch.tensor([safety])
        self.stepping_class = 'adaptive'
        self.tableau = construct_tsit5(dtype)

    def step(self, f, x, t, dt, k1=None, args=None):
        c, a, bsol, berr = self.tableau
        if k1 == None: k1 = f(t, x)
        k2 = f(t + c[0] * dt, x + dt * a[0][0] * k1)
        k3 = f(t + c[1] * dt, x + dt * (a[1][0] * k1 + a[1][1] * k2))
        k4 = f(t + c[2] * dt, x + dt * a[2][0] * k1 + dt * a[2][1] * k2 + dt * a[2][2] * k3)
        k5 = f(t + c[3] * dt, x + dt * a[3][0] * k1 + dt * a[3][1] * k2 + dt * a[3][2] * k3 + dt * a[3][3] * k4)
        k6 = f(t + c[4] * dt, x + dt * a[4][0] * k1 + dt * a[4][1] * k2 + dt * a[4][2] * k3 + dt * a[4][3] * k4 + dt * a[4][4] * k5)
        k7 = f(t + c[5] * dt, x + dt * a[5][0] * k1 + dt * a[5][1] * k2 + dt * a[5][2] * k3 + dt * a[5][3] * k4 + dt * a[5][4] * k5 + dt * a[5][5] * k6)
        x_sol = x + dt * (bsol[0] * k1 + bsol[1] * k2 + bsol[2] * k3 + bsol[3] * k4 + bsol[4] * k5 + bsol[5] * k6)
        err = dt * (berr[0] * k1 + berr[1] * k2 + berr[2] * k3 + berr[3] * k4 + berr[4] * k5 + berr[5] * k6 + berr[6] * k7)
        return k7, x_sol, err, (k1, k2, k3, k4, k5, k6, k7)


# --- torchdyn/numerics/odeint.py ---
def _adaptive_odeint(f, k1, x, dt, t_span, solver, atol=1e-4, rtol=1e-4, args=None, interpolator=None,
                     return_all_eval=False):
    t_eval, t, T = t_span[1:], t_span[:1], t_span[-1]
    ckpt_counter, ckpt_flag = 0, False
    eval_times, sol = [t], [x]
    while t < T:
        if t + dt > T:
            dt = T - t
        if t_eval is not None:
            if (ckpt_counter < len(t_eval)) and (t + dt > t_eval[ckpt_counter]):
                if interpolator == None:
                    dt_old, ckpt_flag = dt, True
                    dt = t_eval[ckpt_counter] - t
        f_new, x_new, x_err, stages = solver.step(f, x, t, dt, k1=k1, args=args)
        error = x_err
        error_scaled = error / (atol + rtol * torch.max(x.abs(), x_new.abs()))
        error_ratio = hairer_norm(error_scaled)
        accept_step = error_ratio <= 1
        if accept_step:
            if t + dt == t_eval[ckpt_counter] or return_all_eval:
                sol.append(x_new)
                eval_times.append(t + dt)
                if t + dt == t_eval[ckpt_counter]: ckpt_counter += 1
            t, x = t + dt, x_new
            k1 = f_new
        if ckpt_flag:
            dt = dt_old - dt
            ckpt_flag = False
        dt = adapt_step(dt, error_ratio, solver.safety, solver.min_factor, solver.max_factor, solver.order)
    return torch.cat(eval_times), torch.stack(sol)


def odeint(f, x, t_span, solver, atol=1e-3, rtol=1e-3, interpolator=None):
    if t_span[1] < t_span[0]:
        f_ = lambda t, x: -f(-t, x)
        t_span = -t_span
    else: f_ = f
    t = t_span[0]
    k1 = f_(t, x)
    dt = init_step(f, k1, x, t, solver.order, atol, rtol)
    return _adaptive_odeint(f_, k1, x, dt, t_span, solver, atol, rtol, None, interpolator, False)


# --- torchdyn/core/defunc.py + neuralde.py ---
class DEFunc(nn.Module):
    def __init__(self, vector_field, has_time_arg=False):
        super().__init__()
        self.nfe, self.vf, self.has_time_arg = 0., vector_field, has_time_arg

    def forward(self, t, x):
        self.nfe += 1
        if self.has_time_arg: return self.vf(t, x)
        else: return self.vf(x)


class NeuralODE(nn.Module):
    def __init__(self, vector_field, solver='tsit5', atol=1e-3, rtol=1e-3):
        super().__init__()
        self.vf = DEFunc(vector_field)
        self.solver = Tsitouras45()
        self.atol, self.rtol, self.interpolator = atol, rtol, None

    def forward(self, x, t_span):
        return odeint(self.vf, x, t_span, self.solver, self.atol, self.rtol, interpolator=self.interpolator)


def make_model():
    f = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
    return NeuralODE(f, solver='tsit5').eval()


def example_inputs():
    return (torch.randn(4, 2), torch.linspace(0, 1, 2))


def other_inputs():
    return [(3.0 * torch.randn(7, 2), torch.linspace(0, 4, 2)), (torch.randn(1, 2), torch.linspace(0, 0.3, 2))]


def probe_inputs():
    return other_inputs()
