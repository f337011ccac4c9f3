import torch


def _onnx_bessel_j0(input):
    # Bessel function J0: ATen's bessel_j0_forward (Cephes j0) step for step in the input's
    # dtype (half/bfloat16 through float32): a rational function of x^2 up to 5 (1 - x^2/4
    # below 1e-5), the asymptotic form with rational P and Q in 25/x^2 above; all evaluated,
    # torch.where choosing. The coefficient tables are ATen's, including its 7-term QQ.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.special.bessel_j0(input)
    out_dtype = input.dtype if input.is_floating_point() else torch.get_default_dtype()
    x = (input if input.dtype == torch.float64 else input.to(torch.float32)).abs()

    def polynomial(z, coefficients):
        result = torch.zeros_like(z)
        for c in coefficients:
            result = result * z + c
        return result

    xx = x * x
    rp = polynomial(xx, (-4.79443220978201773821e09, 1.95617491946556577543e12, -2.49248344360967716204e14,
                         9.70862251047306323952e15))
    rq = polynomial(xx, (4.99563147152651017219e02, 1.73785401676374683123e05, 4.84409658339962045305e07,
                         1.11855537045356834862e10, 2.11277520115489217587e12, 3.10518229857422583814e14,
                         3.18121955943204943306e16, 1.71086294081043136091e18))
    near = (xx - 5.78318596294678452118e00) * (xx - 3.04712623436620863991e01) * rp / rq
    near = torch.where(x < 0.00001, 1.0 - xx / 4.0, near)
    z = 25.0 / xx
    pp = polynomial(z, (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e00,
                        5.44725003058768775090e00, 8.74716500199817011941e00, 5.30324038235394892183e00,
                        9.99999999999999997821e-01))
    pq = polynomial(z, (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e00,
                        5.47097740330417105182e00, 8.76190883237069594232e00, 5.30605288235394617618e00,
                        1.00000000000000000218e00))
    qp = polynomial(z, (-1.13663838898469149931e-02, -1.28252718670509318512e00, -1.95539544257735972385e01,
                        -9.32060152123768231369e01, -1.77681167980488050595e02, -1.47077505154951170175e02,
                        -5.14105326766599330220e01, -6.05014350600728481186e00))
    qq = polynomial(z, (6.43178256118178023184e01, 8.56430025976980587198e02, 3.88240183605401609683e03,
                        7.24046774195652478189e03, 5.93072701187316984827e03, 2.06209331660327847417e03,
                        2.42005740240291393179e02))
    shifted = x - 0.785398163397448309615660845819875721
    far = (pp / pq * torch.cos(shifted) - 5.0 / x * (qp / qq) * torch.sin(shifted)) * 0.797884560802865355879892119868763737 / torch.sqrt(x)
    return torch.where(x <= 5.0, near, far).to(out_dtype)
