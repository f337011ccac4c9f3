"""The integer and float identities the ONX203/ONX402 fixes rely on, checked over the ranges
the rule docs state. A failure here means a "safe" fix is not exact."""

import math
import random

import numpy as np

A_RANGE = range(-512, 4096)
B_RANGE = range(1, 512)
RANDOM_PAIRS = 200_000
LIMIT = 2**40


def _random_pairs(seed: int):
    rng = random.Random(seed)
    for _ in range(RANDOM_PAIRS):
        yield rng.randrange(-LIMIT, LIMIT), rng.randrange(1, LIMIT)


def test_ceil_of_division_is_shifted_floor_division():
    for b in B_RANGE:
        for a in A_RANGE:
            assert math.ceil(a / b) == (a + b - 1) // b, (a, b)
    for a, b in _random_pairs(1):
        assert math.ceil(a / b) == (a + b - 1) // b, (a, b)


def test_floor_of_division_is_floor_division():
    for b in [*B_RANGE, *(-b for b in B_RANGE)]:
        for a in A_RANGE:
            assert math.floor(a / b) == a // b, (a, b)
    for a, b in _random_pairs(2):
        assert math.floor(a / b) == a // b, (a, b)


def test_int_of_numpy_rounding_is_math_rounding():
    """`int(np.ceil(a / b))` / `int(np.floor(a / b))` round the same float as `math.ceil` /
    `math.floor`, so the two identities above carry over (ONX402 on NumPy rounding)."""
    import numpy as np

    for a, b in [*((a, b) for b in range(1, 64) for a in A_RANGE), *_random_pairs(3)]:
        assert int(np.ceil(a / b)) == math.ceil(a / b) and int(np.floor(a / b)) == math.floor(a / b), (a, b)


def test_floor_division_of_the_exact_multiple_is_floor_division():
    """ONX405: `(a - a % b) // b == a // b` for every int `a` and `b != 0`, negative ones too,
    and `-(-a // b) == (a + b - 1) // b` for `b > 0` (ceil division by negation)."""
    for b in [*B_RANGE, *(-b for b in B_RANGE)]:
        for a in A_RANGE:
            assert (a - a % b) // b == a // b, (a, b)
            assert b < 0 or -(-a // b) == (a + b - 1) // b, (a, b)
    for a, b in _random_pairs(4):
        assert (a - a % b) // b == a // b and -(-a // b) == (a + b - 1) // b, (a, b)


def test_int_of_nonnegative_division_is_floor_division():
    for b in B_RANGE:
        for a in range(0, 4096):
            assert int(a / b) == a // b, (a, b)
    for a, b in _random_pairs(3):
        a = abs(a)
        assert int(a / b) == a // b, (a, b)



def test_int_of_shifted_division_is_shifted_floor_division():
    """ONX203 `int(a / b + c)` -> `a // b + c` (c a non-negative int literal, Moonshine's conv
    lengths): exact wherever `a / b + c >= 0`, negative `a` down to `-c * b` included (the unsafe
    case: the rule cannot prove it), and not below."""
    # every (a, b, c) at once in float64 and int64, which compute Python's `/`, `+`, `int()`
    # and `//` on these ints exactly (IEEE division and addition, truncation, flooring)
    b = np.arange(1, B_RANGE.stop)[:, None]
    a = np.arange(-8 * B_RANGE.stop, 4096)[None, :]
    for c in range(0, 9):
        shifted = np.trunc(a / b + c) == a // b + c
        assert shifted[a >= -c * b].all(), c
    assert all(int(a / b + c) == a // b + c == int(c + a / b) for a, b, c in ((-4088, 511, 8), (-7, 7, 1), (4095, 3, 0)))
    for a, b in _random_pairs(8):
        for c in (1, 2, 1000):
            a = max(a, -c * b)
            assert int(a / b + c) == a // b + c, (a, b, c)
    assert int(-4 / 3 + 1) == 0 and -4 // 3 + 1 == -1  # a / b + c < 0: truncation is not flooring

def test_int_of_product_by_a_power_of_one_half_is_floor_division():
    for m in range(1, 12):
        for a in range(0, 4096):
            assert int(a * 0.5**m) == a // 2**m == int(0.5**m * a), (a, m)
    for a, _ in _random_pairs(4):
        for m in (1, 2, 5):
            assert int(abs(a) * 0.5**m) == abs(a) // 2**m, (a, m)


def test_int_of_negative_division_is_not_floor_division():
    # why ONX203 wants a provably non-negative numerator: truncation differs from flooring
    assert int(-3 / 2) == -1 and -3 // 2 == -2


def test_sqrt_and_power_one_half_differ_by_at_most_one_ulp():
    # why ONX402 marks `math.sqrt(d) -> d ** 0.5` unsafe: the C library's pow() is not
    # correctly rounded, sqrt() is. Which sizes differ depends on the C library and on the CPU
    # (glibc picks an FMA pow() where the CPU has FMA): 948 of the sizes below 2**20 here
    # (glibc, AVX2 + FMA; 2921 is the first), so only "some, each by at most an ulp" is asserted.
    mismatches = [d for d in range(0, 2**20) if math.sqrt(d) != d**0.5]
    assert mismatches
    assert all(abs(math.sqrt(d) - d**0.5) <= math.ulp(math.sqrt(d)) for d in mismatches)


def test_pow_is_power_operator_on_floats():
    # bit for bit by construction: math.pow and float ** both call the C library's pow()
    for d in range(0, 4096):
        for c in (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0):
            assert math.pow(d, c) == d**c, (d, c)


def test_true_division_of_ints_needs_no_float_cast():
    """ONX203 `float(a) / float(b)` -> `a / b` (and one cast dropped: `a / float(b)`, or a
    literal on one side) for int sizes: the same float, bit for bit."""
    for b in [*B_RANGE, *(-b for b in B_RANGE)]:
        for a in A_RANGE:
            expected = float(a) / float(b)
            assert a / b == expected and a / float(b) == expected and float(a) / b == expected, (a, b)
            assert a / 2.5 == float(a) / 2.5 and 3 / b == 3.0 / float(b), (a, b)
    for a, b in _random_pairs(7):
        assert a / b == float(a) / float(b), (a, b)


def test_division_by_a_python_float_needs_no_float_cast():
    """ONX203 `float(w0) / math.sqrt(n)` -> `w0 / math.sqrt(n)` for w0 an int size or a float computed
    from one (DINOv2's `w // p + 0.1`): int / float converts the int exactly, float() of a float is
    itself, so the quotient is the same float, bit for bit."""
    for n in range(1, 200):
        root = math.sqrt(n)
        for a in A_RANGE:
            offset = a // 14 + 0.1
            assert a / root == float(a) / root and offset / root == float(offset) / root, (a, n)


def test_nearest_interpolate_by_an_int_factor_is_interpolate_to_the_scaled_size():
    """ONX404 `F.interpolate(x, scale_factor=s)` -> `size=[d * s for d in x.shape[2:]]` (nearest,
    int s): bit-identical, float32 and uint8, 1-d and 2-d, every factor and length below 40."""
    torch = __import__("pytest").importorskip("torch")
    interpolate = torch.nn.functional.interpolate
    for s in range(1, 40):
        for n in range(1, 40):
            for x in (torch.arange(n, dtype=torch.float32).reshape(1, 1, n) * 1.5,
                      torch.arange(n * 3, dtype=torch.uint8).reshape(1, 1, n, 3)):
                expected = interpolate(x, scale_factor=s, mode="nearest")
                assert torch.equal(interpolate(x, size=[d * s for d in x.shape[2:]], mode="nearest"), expected), (s, n)


def test_round_of_division_is_integer_round_half_even():
    """ONX402's `round(a / b)` -> `a // b + (2 * (a % b) + a // b % 2) // (b + 1)` for int `a`
    and whole-number `b > 0` (`b` written `2.0` too): q + 1 exactly when 2r + (q odd) > b, and
    2r + 1 < 2(b + 1) keeps that floor division 0 or 1."""
    def rewritten(a, b):
        return a // b + (2 * (a % b) + a // b % 2) // (b + 1)

    for b in range(1, 64):
        for a in A_RANGE:
            assert round(a / b) == rewritten(a, b) == int(round(a / float(b))), (a, b)
    for a, b in _random_pairs(7):
        assert round(a / b) == rewritten(a, b), (a, b)


def test_is_integer_of_division_is_divisibility():
    """ONX402's `(a / b).is_integer()` -> `a % b == 0` for ints `a` and `b != 0`."""
    for b in [*range(1, 64), *range(-63, 0)]:
        for a in A_RANGE:
            assert (a / b).is_integer() == (a % b == 0), (a, b)
    for a, b in _random_pairs(8):
        assert (a / b).is_integer() == (a % b == 0), (a, b)


def test_int_of_sqrt_is_the_integer_square_root_below_2_to_52():
    # ONX203's `int(math.sqrt(n))` -> _onnx_size_isqrt: eager calls the same function on the same
    # value; the legacy branch floors a float64 square root, correctly rounded like math.sqrt, so
    # it is the integer square root there too: near every square, exhaustively below 2**20, and on
    # random sizes up to 2**52
    rng = random.Random(7)
    squares = [k * k + d for k in [*range(1 << 10), *(rng.randrange(1 << 26) for _ in range(20_000))] for d in (-1, 0, 1)]
    for n in [*range(1 << 20), *squares, *(rng.randrange(1 << 52) for _ in range(RANDOM_PAIRS))]:
        if 0 <= n < 1 << 52:
            assert int(math.sqrt(n)) == math.isqrt(n) == int(np.sqrt(np.float64(n))), n


def test_a_list_of_sizes_and_floats_is_the_stack_of_its_elements():
    """ONX205's fix of `torch.tensor([w, 0.5 * h, ...])`: the stack of 0-d tensors has the list's
    dtype (int64 elements promoted to the float dtype torch.tensor infers) and its values, bit for
    bit, for sizes up to 2**53 and for float32 and float64 defaults (a conversion, no arithmetic)."""
    import torch

    rng = random.Random(5)
    sizes = [0, 1, 3, 2**24 + 1, 2**31 + 7, 2**53 - 1, *(rng.randrange(1, 2**53) for _ in range(2000))]
    for default in (torch.float32, torch.float64):
        previous = torch.get_default_dtype()
        torch.set_default_dtype(default)
        try:
            for w in sizes:
                for items in ([w, 0.5 * w], [w * 8 - 4.5, w], [w, w // 3], [32 / max(w, 1), w]):
                    listed = torch.tensor(items)
                    stacked = torch.stack([torch.tensor(item) for item in items])
                    assert listed.dtype == stacked.dtype and torch.equal(listed, stacked), (items, default)
        finally:
            torch.set_default_dtype(previous)
