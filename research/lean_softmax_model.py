"""The pipelined heads-major kernel's two softmaxes emulated in fp32 on the CPU: today's
(two ex2 per element) and the lean one (one ex2, p = P' 2^(F - E_c) exactly, a warp-voted
slow path), against a float64 reference, per data kind.

    python research/lean_softmax_model.py            # ~1-2 min on 2 cores
    python research/lean_softmax_model.py --quick

What is emulated, per head and 64-candidate block, as heads_major_pipelined_kernel.cuh
does it (numpy float32, one rounding per instruction):
  - the score's last steps: a = (acc pre) up, then today v = a post (saturated as
    hm_score), the lean t = RZ(a post + E_c) (fma.rz: one rounding, saturating at
    +-FLT_MAX; -inf addend for an inactive candidate). acc is the Horner accumulator
    (x / (b_h up_c), rounded to fp32: the same in both);
  - the running maximum (lazy by 8), the exponent F (ceil of the running bound, in
    [-126, 126]), O's factor corr 2^(F_old - F);
  - ex2.approx.ftz as 2^x rounded to fp32 with a relative error of up to 2^-22 (the
    same draw for both where both compute the same argument) and results below 2^-126
    flushed to zero;
  - P' rounded to fp16 (subnormals kept), U_t = fp16(P' fp16(f_t)), O += U_t codes in fp32;
  - the lean path's vote (per block: an active E_c outside [F - 90, F + 126] for a head,
    a block exponent spread past 90, or |m| >= 2^126) and its slow path (today's
    arithmetic on v = t - E_c with the block's own maximum of v).
Out is O 2^F / l in bf16, lse = (m + log2 l) ln 2. Reported: the worst per-token relative
L2 of out over [H, 512] and the worst |lse - ref| / max(1, |ref|), for both softmaxes,
and the share of blocks the lean path sent to its slow path.
"""

from __future__ import annotations

import argparse

import ml_dtypes
import numpy as np

D, TILE, NT, BLOCK, LAZY, SPREAD = 512, 128, 4, 64, 8.0, 90
LOG2E = 1.0 / np.log(2.0)
F32 = np.float32
FLT_MAX = float(np.finfo(np.float32).max)


def f32(x):
    return np.asarray(x, np.float64).astype(np.float32)


def rz32(x):
    """float64 -> float32 rounded toward zero, saturating at +-FLT_MAX (fma.rz)."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore"):
        r = x.astype(np.float32)
    over = np.abs(r.astype(np.float64)) > np.abs(x)
    r = np.where(over & np.isfinite(x), np.nextafter(r, np.float32(0)), r)
    return np.where(np.isnan(x), np.float32(np.nan), r).astype(np.float32)


class Ex2:
    """ex2.approx.ftz.f32: 2^x with a relative error up to 2^-22 (a fixed draw per
    element and use), results below 2^-126 flushed to zero."""

    def __init__(self, rng):
        self.rng = rng

    def __call__(self, x, draw=None):
        x = np.asarray(x, np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            y = np.exp2(x)
        err = draw if draw is not None else self.rng.uniform(-1, 1, x.shape)
        y = f32(y * (1.0 + err * 2.0**-22))
        return np.where(np.abs(y) < 2.0**-126, np.float32(0), y)


def exponent_bound(x):
    x = np.abs(np.asarray(x, np.float64))
    e = np.floor(np.log2(np.maximum(x, 1e-45))) + 1
    return np.clip(e, -126, 126)


def hp_exponent(b):
    with np.errstate(invalid="ignore"):
        return np.clip(np.nan_to_num(np.ceil(b), nan=-126.0, neginf=-126.0, posinf=126.0), -126, 126)


# ---------------------------------------------------------------------------- the data
def quantize(lat):
    x = np.asarray(lat, np.float32).reshape(-1, NT, TILE)
    amax = np.abs(x).max(-1, keepdims=True).astype(np.float32)
    scale = (amax / np.float32(448.0)).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(scale == 0, 0.0, np.clip(x / np.where(scale == 0, 1, scale), -448, 448))
    codes = scaled.astype(np.float32).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    return codes.reshape(-1, D), scale[..., 0].astype(np.float64)


def token(rng, kind, k, h):
    """(codes [K, 512], scales [K, 4], q [H, 512] bf16 values, active [K])."""
    g = rng.standard_normal
    q = g((h, D))
    active = np.ones(k, bool)
    if kind == "tame":
        codes, s = quantize(g((k, D)) * np.exp(g((k, 1))))
    elif kind == "wide":  # rows e^+-12, tiles 2^+-12, negative and zero scales, std-20 q
        lat = (
            g((k, NT, TILE))
            * np.exp(rng.uniform(-12, 12, (k, 1, 1)))
            * np.exp2(rng.uniform(-12, 12, (k, NT, 1)))
        )
        codes, s = quantize(lat.reshape(k, D))
        s[rng.random(s.shape) < 0.10] *= -1
        s[rng.random(s.shape) < 0.03] = 0.0
        q = q * 20.0
    elif kind == "offset":  # every score carries one large shared offset
        mu = g(D)
        codes, s = quantize(300.0 * mu[None, :] + g((k, D)))
        q = 3.0 * mu[None, :] + g((h, D))
    elif kind == "mixed":  # rows e^U(-12, 0), one row per block e^+12 larger and scored lowest
        d = np.sign(g(D))
        lat = g((k, D)) * np.exp(rng.uniform(-12, 0, (k, 1)))
        big = np.arange(0, k, BLOCK) + rng.integers(0, BLOCK, k // BLOCK)
        lat[big] = -np.abs(g((len(big), D))) * d[None, :] * np.exp(12.0)
        codes, s = quantize(lat)
        q = np.abs(q) * d[None, :] * 0.5 + g((h, D))
    elif kind == "tilesmall":  # tiles e^+-12 apart, q on each row's smallest tile
        lat = (
            g((k, NT, TILE))
            * np.exp(rng.uniform(-12, 12, (k, 1, 1)))
            * np.exp(rng.uniform(-12, 12, (k, NT, 1)))
        )
        codes, s = quantize(lat.reshape(k, D))
        order = np.argsort(np.abs(s), axis=1)[:, ::-1]
        codes = np.take_along_axis(codes.reshape(k, NT, TILE), order[:, :, None], 1).reshape(k, D)
        s = np.take_along_axis(s, order, 1)
        q = q * 1e-3
        q[:, 3 * TILE :] = g((h, TILE))
    elif kind in ("slow", "slowtop", "edge"):
        # rows whose scales sit 2^+-100 apart inside every block (E_c spread ~200: the lean
        # path's slow path); "slowtop": the dominant candidates on the 2^-100 rows; "edge":
        # 2^+-42 (spread ~84-88, just inside the fast path), dominant on the small rows
        lat = g((k, D))
        codes, s = quantize(lat)
        e = rng.choice([-42.0, 42.0] if kind == "edge" else [-100.0, 0.0, 100.0], size=(k, 1))
        s = s * np.exp2(e)
        if kind in ("slowtop", "edge"):
            # the big rows anti-aligned with q: they score far below the small ones
            big = e[:, 0] > 0
            codes[big] = -np.abs(codes[big]) * np.sign(q[0])[None, :]
    elif kind == "holes":  # tame with a third of the candidates inactive, whole blocks too
        codes, s = quantize(g((k, D)) * np.exp(g((k, 1))))
        active = rng.random(k) > 0.33
        active[BLOCK : 2 * BLOCK] = False
    else:
        raise ValueError(kind)
    q = q.astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)
    return codes, s, q, active


def calibrate(codes, s, q, kind, spread):
    raw = q @ (codes.reshape(-1, NT, TILE) * s[:, :, None]).reshape(-1, D).T
    if kind == "offset":
        return spread / np.mean(np.abs(raw).mean(1))
    with np.errstate(invalid="ignore"):
        return spread / np.mean(raw.max(1) - raw.min(1))


# ------------------------------------------------------------------------- the kernel
def run(codes, s, q, sm, active, lean, ex2, vote=True):
    """out [H, 512] (bf16 values), lse [H] (nats), slow-path blocks, out before bf16.
    vote=False: the lean path's fast path everywhere (what the vote protects against)."""
    h, k = q.shape[0], codes.shape[0]
    vals = (codes.reshape(-1, NT, TILE) * s[:, :, None]).reshape(-1, D)
    x = (q @ vals.T) * sm * LOG2E  # exact score, log2 units [H, K]
    e1 = exponent_bound(np.abs(q).max(1))
    fh = f32(np.clip(sm * LOG2E * 2.0**e1, -FLT_MAX, FLT_MAX))
    pre = np.where(np.abs(fh) <= 1, fh, F32(1)).astype(np.float32)
    post = np.where(np.abs(fh) <= 1, F32(1), fh).astype(np.float32)
    ec = exponent_bound(np.abs(s).max(1))
    fc = s * 2.0 ** -ec[:, None]
    skip = ~(np.abs(fc) >= 2.0**-60)
    up = f32(np.where(skip[:, 1], 1.0, fc[:, 1]) * 2.0**ec)
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = f32(x / (fh.astype(np.float64)[:, None] * up.astype(np.float64)[None, :]))
    acc = np.where(active[None, :], acc, F32(0))
    g16 = np.where(skip, 0.0, fc).astype(np.float16).astype(np.float64)  # [K, 4]
    a = f32(f32(acc * pre[:, None]) * up[None, :])
    e_tab = np.where(active, ec, -np.inf)
    m = np.full(h, -np.inf, np.float32)
    b = np.full(h, -np.inf, np.float32)
    lsum = np.zeros(h, np.float32)
    o = np.zeros((h, D))
    slow_blocks = 0
    for b0 in range(0, k, BLOCK):
        c = slice(b0, min(k, b0 + BLOCK))
        act = active[c]
        draw = ex2.rng.uniform(-1, 1, (h, c.stop - c.start))
        f_old = hp_exponent(b)
        if lean:
            t = rz32(a[:, c].astype(np.float64) * post[:, None].astype(np.float64) + e_tab[None, c])
            z = t.max(1)
            emin = ec[c][act].min() if act.any() else 1024
            emax = ec[c][act].max() if act.any() else -1024
            cand = f32(z - F32(emax))
            m_new = np.where(cand > m + F32(LAZY), cand, m).astype(np.float32)
            mm = np.where(m_new == -np.inf, F32(0), m_new).astype(np.float32)
            with np.errstate(invalid="ignore"):
                sh = np.where(m == m_new, F32(0), f32(m - m_new))
            b_new = np.maximum(f32(b + sh), f32(z - mm))
            f_new = hp_exponent(b_new)
            slow = vote and (emax - emin > SPREAD) | np.any(f_new - emin > SPREAD) | np.any(
                f_new - emax < -126
            ) | np.any(~(np.abs(mm) < 2.0**126))
        if lean and not slow:
            corr = np.where(m == m_new, F32(1), ex2(f32(m - m_new), draw[:, 0]))
            m, b = m_new, b_new
            kneg = f32(-mm - f32(f_new))
            pq = ex2(f32(t + kneg[:, None]), draw)
            scale = 2.0 ** (f_new[:, None] - np.where(act, ec[c], 0)[None, :])
            lsum = f32(f32(lsum * corr) + f32((pq.astype(np.float64) * scale).sum(1)))
        else:
            if lean:
                slow_blocks += 1
                v = f32(t - np.where(act, ec[c], 0)[None, :])
            else:
                v = f32(a[:, c].astype(np.float64) * post[:, None])
                v = np.where(v >= FLT_MAX, np.inf, np.where(v < -FLT_MAX, -FLT_MAX, v)).astype(np.float32)
                v = np.where(act[None, :], v, -np.inf).astype(np.float32)
            mx = np.nanmax(np.where(np.isnan(v), -np.inf, v), 1)
            m_new = np.where(mx > m + F32(LAZY), mx, m).astype(np.float32)
            with np.errstate(invalid="ignore"):
                sh = np.where(m == m_new, F32(0), f32(m - m_new))
            corr = np.where(m == m_new, F32(1), ex2(f32(m - m_new), draw[:, 0]))
            m = m_new
            mm = np.where(m == -np.inf, F32(0), m).astype(np.float32)
            with np.errstate(invalid="ignore"):
                rel = np.where(v == mm[:, None], F32(0), f32(v - mm[:, None]))
            ecb = np.where(act, ec[c], 0.0 if lean else -np.inf)
            y = f32(rel + ecb[None, :]).max(1)
            b = np.maximum(f32(b + sh), y)
            f_new = hp_exponent(b)
            pq = ex2(f32(rel + f32(ecb[None, :] - f_new[:, None])), draw)
            ps = ex2(rel, draw).astype(np.float64).sum(1)
            lsum = f32(f32(lsum * corr) + f32(ps))
        fac = corr * 2.0 ** (f_old - f_new)
        o = f32(o * fac[:, None]).astype(np.float64)
        p16 = pq.astype(np.float16).astype(np.float64)
        for t4 in range(NT):
            u = (p16 * g16[c, t4][None, :]).astype(np.float16).astype(np.float64)
            o[:, TILE * t4 : TILE * (t4 + 1)] += u @ codes[c, TILE * t4 : TILE * (t4 + 1)]
        o = f32(o).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = o * (2.0 ** hp_exponent(b))[:, None] / lsum.astype(np.float64)[:, None]
        top = np.where(m >= FLT_MAX, np.inf, m + np.log2(lsum.astype(np.float64)))
        lse2 = np.where(lsum > 0, top, -np.inf)
    wide = out
    out = out.astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)
    return out, lse2 / LOG2E, slow_blocks, wide


def reference(codes, s, q, sm, active):
    vals = (codes.reshape(-1, NT, TILE) * s[:, :, None]).reshape(-1, D)[active]
    xs = sm * (q @ vals.T)
    mx = xs.max(1, keepdims=True)
    p = np.exp(xs - mx)
    return (p @ vals) / p.sum(1, keepdims=True), mx[:, 0] + np.log(p.sum(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    kinds = ["tame", "wide", "offset", "mixed", "tilesmall", "holes", "edge", "slow", "slowtop"]
    spreads = [10.0, 1000.0] if args.quick else [10.0, 100.0, 1000.0]
    seeds = 1 if args.quick else 2
    h, k = 64, 2048
    print(
        f"H={h} K={k}, {seeds} token(s) per row; worst per-token rel L2 of bf16 out (bound 5e-3) and "
        f"|lse - ref| / max(1, |ref|) (bound 1e-2); slow: share of the lean path's blocks on its slow "
        f"path;\nlean-today: rel L2 between the two softmaxes' fp32 out (before bf16); no vote: the lean "
        f"fast path forced everywhere (out error)"
    )
    print(
        f"{'data':10s} {'spread':>7s} {'today out':>10s} {'lean out':>10s} {'today lse':>10s} "
        f"{'lean lse':>10s} {'slow':>6s} {'lean-today':>10s} {'no vote':>10s}"
    )
    worst = 0.0
    for kind in kinds:
        for spread in spreads:
            row = np.zeros(6)
            slow, blocks = 0, 0
            for seed in range(seeds):
                rng = np.random.default_rng(1000 * seed + kinds.index(kind))
                codes, s, q, active = token(rng, kind, k, h)
                sm = calibrate(codes, s, q, kind, spread)
                ref_out, ref_lse = reference(codes, s, q, sm, active)
                wides = []
                for i, lean in enumerate((False, True)):
                    out, lse, nslow, wide = run(
                        codes, s, q, sm, active, lean, Ex2(np.random.default_rng(seed))
                    )
                    wides.append(wide)
                    assert np.isfinite(out).all() and np.isfinite(lse).all(), (kind, lean)
                    err = np.linalg.norm(out - ref_out) / np.linalg.norm(ref_out)
                    lerr = np.max(np.abs(lse - ref_lse) / np.maximum(1, np.abs(ref_lse)))
                    row[i] = max(row[i], err)
                    row[2 + i] = max(row[2 + i], lerr)
                    if lean:
                        slow += nslow
                        blocks += k // BLOCK
                row[4] = max(row[4], np.linalg.norm(wides[1] - wides[0]) / np.linalg.norm(wides[0]))
                with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                    out, *_ = run(codes, s, q, sm, active, True, Ex2(np.random.default_rng(seed)), vote=False)
                row[5] = max(
                    row[5], np.linalg.norm(np.nan_to_num(out - ref_out, nan=1e30)) / np.linalg.norm(ref_out)
                )
            worst = max(worst, row[1])
            print(
                f"{kind:10s} {spread:7.0f} {row[0]:10.2e} {row[1]:10.2e} {row[2]:10.2e} {row[3]:10.2e} "
                f"{slow / blocks:6.2f} {row[4]:10.2e} {row[5]:10.2e}"
            )
    print(f"worst lean out error {worst:.2e} ({'inside' if worst <= 5e-3 else 'OUTSIDE'} the 5e-3 bound)")


if __name__ == "__main__":
    main()
