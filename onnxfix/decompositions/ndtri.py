import torch


def _onnx_ndtri(input):
    # Inverse of the standard normal CDF: ATen's calc_ndtri (Cephes ndtri), step for step in
    # the input's dtype (half/bfloat16 through float32). Three rational approximations by
    # region, all evaluated, torch.where choosing: |y - 1/2| <= 1/2 - exp(-2), then
    # z = sqrt(-2 log y) below 8 and from 8 on (y reflected to 1 - y above 1 - exp(-2)).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.special.ndtri(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    y0 = x if x.dtype == torch.float64 else x.float()

    def polevl(z, coefficients):
        result = torch.zeros_like(z)
        for c in coefficients:
            result = result * z + c
        return result

    upper = y0 > 1 - 0.13533528323661269189  # exp(-2); the constant rounds to y0's dtype first
    y = torch.where(upper, 1 - y0, y0)
    # central region
    c = y - 0.5
    c2 = c * c
    p0 = polevl(c2, (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
                     1.39312609387279679503e1, -1.23916583867381258016e0))
    q0 = polevl(c2, (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
                     -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
                     1.59056225126211695515e1, -1.18331621121330003142e0))
    central = (c + c * (c2 * p0 / q0)) * 2.50662827463100050242e0
    # tails
    t = torch.sqrt(-2.0 * torch.log(y))
    t0 = t - torch.log(t) / t
    z = 1 / t
    p1 = polevl(z, (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
                    4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
                    -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4))
    q1 = polevl(z, (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
                    1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
                    -3.80806407691578277194e-2, -9.33259480895457427372e-4))
    p2 = polevl(z, (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
                    1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
                    3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9))
    q2 = polevl(z, (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
                    2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
                    2.89247864745380683936e-6, 6.79019408009981274425e-9))
    tail = t0 - torch.where(t < 8.0, z * p1 / q1, z * p2 / q2)
    tail = torch.where(upper, tail, -tail)
    result = torch.where(y > 0.13533528323661269189, central, tail)
    # y0 = 0 -> -inf, 1 -> +inf, outside [0, 1] -> NaN, as torch
    result = torch.where(y0 == 0, torch.full_like(result, float("-inf")), result)
    result = torch.where(y0 == 1, torch.full_like(result, float("inf")), result)
    result = torch.where((y0 < 0) | (y0 > 1), torch.full_like(result, float("nan")), result)
    return result.to(x.dtype)
