import torch


def _onnx_i1e(input):
    # Exponentially scaled I1, exp(-|x|) I1(x): ATen's calc_i1e (Cephes i1e), step for step in the input's dtype
    # (half/bfloat16 through float32, as ATen): Chebyshev series (chbevl) of exp(-x) I1(x) / x on
    # [0, 8] and of exp(-x) sqrt(x) I1(x) on (8, inf), both evaluated, torch.where choosing; odd
    # in x. ATen's float32 tables are the tails of its float64 ones (terms below float precision
    # dropped), hence the slices.
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    compute = x if x.dtype == torch.float64 else x.float()
    t = compute.abs()
    double = compute.dtype == torch.float64

    def chbevl(y, coefficients):
        b0, b1, b2 = torch.full_like(y, coefficients[0]), torch.zeros_like(y), torch.zeros_like(y)
        for c in coefficients[1:]:
            b2, b1 = b1, b0
            b0 = y * b1 - b2 + c
        return 0.5 * (b0 - b2)

    a = (2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
         -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
         3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
         -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
         9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
         -8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
         4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
         -1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
         2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
         -1.76416518357834055153e-1, 2.52587186443633654823e-1)
    b = (7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
         -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
         -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
         4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
         -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
         3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
         -3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
         -3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
         7.78576235018280120474e-1)
    small = chbevl(t / 2.0 - 2.0, a if double else a[12:])
    large = chbevl(32.0 / t - 2.0, b if double else b[18:])
    out = torch.where(t <= 8.0, small * t, large / torch.sqrt(t))
    return torch.where(compute < 0.0, -out, out).to(x.dtype)
