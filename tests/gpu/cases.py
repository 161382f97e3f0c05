"""The GPU cases: for each example, the arguments to generate (shapes, dtypes, seeds), the grid,
the outputs to compare, the tolerance, and a float64 numpy reference.

The references (``REFERENCES``, one per example, written from the example's header comment: what
the kernel computes, not how) are the only ones in the suite: the simulator's cases
(tests/support/example_cases.py) compare against them too, at their own smaller and ragged
shapes, so every reference takes any shape the kernel does.

numpy only: the runner imports this on the GPU machine, which has neither the analyzer nor
llvmlite. ``prepare.py`` copies each case's metadata (all but the reference) into the bundle.
"""

from __future__ import annotations

import numpy as np

F32_TOL = 1e-4
APPROX_TOL = 2e-3       # ex2/lg2/tanh.approx and f16/bf16 storage


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def ref_lanes_matvec(a):
    return {"y": (a["W"] @ a["x"][0])[None, :]}


def ref_lane_strided(a):
    return {"y": (a["W"] @ a["A"][0])[None, :]}


def ref_row_sums(a):
    return {"out": a["A"].sum(axis=1)}


def ref_row_softmax(a):
    return {"Y": _softmax(a["X"])}


def ref_block_reduce(a):
    x = a["X"]
    chunk = 4 * 256
    g = a["partials"].shape[0]
    return {"partials": np.array([x[b * chunk:(b + 1) * chunk].sum() for b in range(g)])}


def ref_warp_scan(a):
    # a ragged tail scans as if padded with zeros to whole warps (and the CTA's other warps sum to 0)
    n = a["X"].shape[0]
    padded = np.zeros(a["warp_totals"].shape[0] * 32, a["X"].dtype)
    padded[:n] = a["X"]
    x = padded.reshape(-1, 32)
    return {"Y": np.cumsum(x, axis=1).reshape(-1)[:n], "warp_totals": x.sum(axis=1)}


def ref_csr_spmv(a):
    rp, cols, vals, x = a["row_ptr"], a["cols"], a["vals"], a["x"]
    y = np.zeros(len(rp) - 1)
    for r in range(len(rp) - 1):
        s, e = rp[r], rp[r + 1]
        y[r] = (vals[s:e] * x[cols[s:e]]).sum()
    return {"y": y}


def ref_gelu(a):
    x = a["X"]
    return {"Y": 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))}


def ref_gamma_correct(a):
    level = (a["img"] / 255.0) ** (1.0 / a["gamma"])
    return {"out": np.minimum(np.round(255.0 * level), 255.0)}


def ref_hamming_distance(a):
    A, B = a["A"].astype(np.int64) & 0xFFFFFFFF, a["B"].astype(np.int64) & 0xFFFFFFFF
    x = A[:, None, :] ^ B[None, :, :]
    bits = np.zeros(x.shape, np.int64)
    for b in range(32):
        bits += (x >> b) & 1
    return {"D": bits.sum(axis=2)}


def ref_int8_dot(a):
    acc = a["A"].astype(np.int64) @ a["Bt"].astype(np.int64).T
    shift = int(a["shift"])
    scaled = (acc * int(a["mult"]) + (1 << (shift - 1))) >> shift
    return {"C": np.clip(scaled, -128, 127)}


def ref_layernorm_rows(a):
    x = a["X"]
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return {"Y": (x - mean) / np.sqrt(var + a["eps"]) * a["gamma"] + a["beta"]}


def ref_line_lengths(a):
    t = a["text"]
    out = np.full(t.shape[0], t.shape[1])
    for r in range(t.shape[0]):
        hits = np.nonzero(t[r] == 10)[0]
        if len(hits):
            out[r] = hits[0]
    return {"lengths": out}


def ref_quantize_rows(a):
    x = a["X"]
    s = np.maximum(np.abs(x).max(axis=1), 1e-12) / 127.0
    return {"Q": np.clip(np.round(x / s[:, None]), -127, 127), "scale": s}


def ref_rope(a):
    x, pos, cs = a["X"], a["positions"], a["cos_sin"]
    c, s = cs[pos][:, 0::2], cs[pos][:, 1::2]
    y = np.empty_like(x)
    y[:, 0::2] = x[:, 0::2] * c - x[:, 1::2] * s
    y[:, 1::2] = x[:, 0::2] * s + x[:, 1::2] * c
    return {"Y": y}


def _mix32(x):
    h = x & 0xFFFFFFFF
    for _ in range(2):
        h ^= h >> 16
        h = (h * 0x45D9F3B) & 0xFFFFFFFF
    return h ^ (h >> 16)


def ref_bloom_query(a):
    keys, bits, k = a["keys"].astype(np.int64), a["bits"].astype(np.int64) & 0xFFFFFFFF, int(a["num_hashes"])
    nbits = len(bits) * 32
    h1 = _mix32(keys)
    h2 = _mix32(h1 ^ 0x5BD1E995) | 1
    hits = np.ones(len(keys))
    for i in range(k):
        b = (h1 + i * h2) % nbits
        hits *= (bits[b >> 5] >> (b & 31)) & 1
    return {"hits": hits}


def ref_grid_counter(a):
    x, g = a["X"], a["running"].shape[0]
    sums = np.array([x[t * 256:(t + 1) * 256].sum() for t in range(g)])
    return {"running": np.cumsum(sums), "total": np.array([sums.sum()])}


def ref_persistent_row_totals(a):
    t = a["X"].sum(axis=1)
    return {"totals": t, "extremes": np.array([t.max(), t.min()])}


# ---------------------------------------------------------------- the tile examples
def ref_stage(a):
    return {"O": 2.0 * a["A"]}


def ref_block_transpose(a):
    return {"B": a["A"].T}


def ref_barrier_store(a):
    return {"O": np.ones_like(a["A"])}


def ref_closed_branch(a):
    return {"O": 2.0 * a["A"]}


def ref_embedding_gather(a):
    ids, emb = a["ids"], a["Emb"]
    ok = (ids >= 0) & (ids < emb.shape[0])
    out = np.zeros((len(ids), emb.shape[1]))
    out[ok] = emb[ids[ok]]
    return {"Out": out}


def ref_jacobi_poisson(a):
    # in the precision of F: float64 for the GPU's comparison; the simulator's cases pass the
    # kernel's f32, since when the iteration stops depends on the rounding of every step
    f = a["F"]
    dt = f.dtype.type
    h2, iters, tol = dt(a["h2"]), int(a["max_iters"]), dt(a["tol"])
    u = np.zeros((f.shape[0], f.shape[1] + 2), f.dtype)
    for b in range(f.shape[0]):
        for _ in range(iters):
            new = dt(0.5) * (u[b, :-2] + u[b, 2:] + h2 * f[b])
            change = np.abs(new - u[b, 1:-1]).max()
            u[b, 1:-1] = new
            if change <= tol:
                break
    return {"U": u[:, 1:-1]}


def ref_row_scan(a):
    return {"Y": np.cumsum(a["X"], axis=1)}


def ref_chunk_cumsum(a):
    return {"Y": np.cumsum(a["X"], axis=1)}


def ref_tiled_gemm(a):
    return {"C": a["A"] @ a["B"]}


def ref_linear_relu(a):
    return {"Y": np.maximum(a["X"] @ a["W"].T + a["b"], 0.0)}


def ref_attention_scores(a):
    q, k, scale = a["Q"], a["Kmat"], float(a["scale"])
    out = np.zeros_like(q)
    for r0 in range(0, q.shape[0], 64):                  # a ragged last block: its rows and columns only
        s = (q[r0:r0 + 64] @ k[r0:r0 + 64].T) * scale
        s = np.where(np.tril(np.ones(s.shape, bool)), s, -np.inf)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        out[r0:r0 + 64, :s.shape[1]] = e / e.sum(axis=1, keepdims=True)
    return {"P": out}


def t(name, dtype, shape, init="normal", **kw):
    return dict(name=name, dtype=dtype, shape=list(shape), init=init, **kw)


def s(name, dtype, value):
    return dict(name=name, dtype=dtype, scalar=value)


# kernel (examples/NAME.ph): (arguments in order, grid, outputs compared, tolerance on max relative error)
CASES = {
    "lanes_matvec": ([t("W", "f32", (1000, 4096)), t("x", "f32", (1, 4096)),
                                       t("y", "f32", (1, 1000), "zeros")], (250,), ["y"], F32_TOL),
    "lane_strided": ([t("W", "f32", (1000, 1000)), t("A", "f32", (1, 1000)),
                                       t("y", "f32", (1, 1000), "zeros")], (250,), ["y"], F32_TOL),
    "row_sums": ([t("A", "f32", (999, 777)), t("out", "f32", (999,), "zeros")], (125,), ["out"], F32_TOL),
    "row_softmax": ([t("X", "f32", (1000, 300)), t("Y", "f32", (1000, 300), "zeros")], (125,), ["Y"],
                    APPROX_TOL),
    "block_reduce": ([t("X", "f32", (100_000,)), t("partials", "f64", (98,), "zeros")], (98,),
                     ["partials"], F32_TOL),
    "warp_scan": ([t("X", "f32", (8192,)), t("Y", "f32", (8192,), "zeros"),
                         t("warp_totals", "f32", (256,), "zeros")], (32,), ["Y", "warp_totals"], F32_TOL),
    "csr_spmv": ([t("row_ptr", "i32", (1001,), "csr_rows:1000:3000"), t("cols", "i32", (3000,), "int:0:500"),
                        t("vals", "f32", (3000,)), t("x", "f32", (500,)), t("y", "f32", (1000,), "zeros")],
                 (250,), ["y"], F32_TOL),
    "gelu": ([t("X", "f16", (300, 512)), t("Y", "f16", (300, 512), "zeros")], (75,), ["Y"], APPROX_TOL),
    "gamma_correct": ([t("img", "u8", (100, 512), "int:0:256"), t("out", "u8", (100, 512), "zeros"),
                             s("gamma", "f32", 2.2)], (13,), ["out"], 1e-2),
    "hamming_distance": ([t("A", "i32", (40, 8), "int:-2147483648:2147483647"),
                                t("B", "i32", (300, 8), "int:-2147483648:2147483647"),
                                t("D", "i32", (40, 300), "zeros")], (3, 40), ["D"], 0.0),
    "int8_dot": ([t("A", "i8", (64, 256), "int:-128:128"), t("Bt", "i8", (300, 256), "int:-128:128"),
                        t("C", "i8", (64, 300), "zeros"), s("mult", "i32", 3), s("shift", "i32", 12)],
                 (3, 64), ["C"], 0.0),
    "layernorm_rows": ([t("X", "bf16", (100, 512)), t("gamma", "bf16", (512,)), t("beta", "bf16", (512,)),
                              t("Y", "bf16", (100, 512), "zeros"), s("eps", "f32", 1e-5)], (13,), ["Y"], 2e-2),
    "line_lengths": ([t("text", "u8", (200, 300), "text"), t("lengths", "i32", (200,), "zeros")],
                     (25,), ["lengths"], 0.0),
    "quantize_rows": ([t("X", "f32", (64, 1024)), t("Q", "i8", (64, 1024), "zeros"),
                             t("scale", "f32", (64,), "zeros")], (64,), ["Q", "scale"], 1e-2),
    "rope": ([t("X", "f16", (100, 128)), t("positions", "i32", (100,), "int:0:50"),
                    t("cos_sin", "f32", (50, 128)), t("Y", "f16", (100, 128), "zeros")], (25,), ["Y"], APPROX_TOL),
    "bloom_query": ([t("keys", "i32", (5000,), "int:0:1000000"), t("bits", "i32", (64,), "int:-2147483648:2147483647"),
                           t("hits", "u8", (5000,), "zeros"), s("num_hashes", "i32", 3)], (20,), ["hits"], 0.0),
    "grid_counter": ([t("X", "f32", (64 * 256,)), t("running", "f32", (64,), "zeros"),
                            t("ready", "i32", (64,), "zeros"), t("ticket", "i32", (1,), "zeros"),
                            t("total", "f32", (1,), "zeros"), s("epoch", "i32", 1)], (64,), ["running", "total"],
                     F32_TOL),
    "persistent_row_totals": ([t("X", "i32", (300, 1000), "int:-1000:1000"), t("totals", "i32", (300,), "zeros"),
                                     t("next_row", "i32", (1,), "zeros"),
                                     t("extremes", "i32", (2,), "value:-2147483648,2147483647")],
                              (16,), ["totals", "extremes"], 0.0),
    # the tile examples (LANGUAGE §7, §8, §10)
    "stage": ([t("A", "f32", (1, 128)), t("O", "f32", (1, 128), "zeros")], (1,), ["O"], 0.0),
    "barrier_store": ([t("A", "f32", (1, 32)), t("O", "f32", (1, 32), "zeros")], (1,), ["O"], 0.0),
    # 64 KB of dynamic shared memory: the runtime's opt-in past 48 KB
    "block_transpose": ([t("A", "f32", (1000, 700)), t("B", "f32", (700, 1000), "zeros")], (6, 8), ["B"], 0.0),
    "closed_branch": ([t("A", "f32", (1, 32)), t("O", "f32", (1, 32), "zeros")], (1,), ["O"], 0.0),
    "embedding_gather": ([t("ids", "i32", (512,), "int:-8:1008"), t("Emb", "bf16", (1000, 300)),
                          t("Out", "bf16", (512, 300), "zeros")], (512,), ["Out"], 0.0),
    "jacobi_poisson": ([t("F", "f32", (64, 1024)), t("U", "f32", (64, 1024), "zeros"), s("h2", "f32", 1e-2),
                        s("tol", "f32", 0.0), s("max_iters", "i32", 50)], (64,), ["U"], F32_TOL),
    "row_scan": ([t("X", "f32", (300, 5000)), t("Y", "f32", (300, 5000), "zeros")], (300,), ["Y"], F32_TOL),
    "chunk_cumsum": ([t("X", "f32", (1000, 3000)), t("Y", "f32", (1000, 3000), "zeros")], (32,), ["Y"], F32_TOL),
    "tiled_gemm": ([t("A", "f16", (300, 200)), t("B", "f16", (200, 500)), t("C", "f32", (300, 500), "zeros")],
                   (8, 5), ["C"], F32_TOL),
    "linear_relu": ([t("X", "bf16", (300, 256)), t("W", "bf16", (200, 256)), t("b", "f32", (1, 200)),
                     t("Y", "bf16", (300, 200), "zeros")], (4, 5), ["Y"], 1e-2),
    "attention_scores": ([t("Q", "f16", (1024, 64)), t("Kmat", "f16", (1024, 64)), t("P", "f16", (1024, 64), "zeros"),
                          s("scale", "f32", 0.125)], (16,), ["P"], 5e-3),
}

REFERENCES = {name: globals()[f"ref_{name}"] for name in CASES}


def reference(name, named, native=False):
    """The outputs ``REFERENCES[name]`` computes from the arguments ``named`` (by parameter name),
    its float arguments (bf16 included) made float64 first unless ``native``."""
    def wide(v):
        floating = isinstance(v, np.ndarray) and (v.dtype.kind == "f" or v.dtype.name == "bfloat16")
        return v.astype(np.float64) if floating and not native else v
    return REFERENCES[name]({k: wide(v) for k, v in named.items()})


def generate(spec, rng):
    """One argument's host value from its spec (numpy; bf16 through ml_dtypes when present)."""
    if "scalar" in spec:
        return spec["scalar"]
    shape, init, dtype = tuple(spec["shape"]), spec["init"], spec["dtype"]
    np_dtype = _np_dtype(dtype)
    if init == "zeros":
        return np.zeros(shape, np_dtype)
    if init == "normal":
        return rng.standard_normal(shape).astype(np.float32).astype(np_dtype)
    if init.startswith("int:"):
        lo, hi = (int(v) for v in init[4:].split(":"))
        return rng.integers(lo, hi, size=shape, endpoint=hi == 2147483647).astype(np_dtype)
    if init.startswith("value:"):
        return np.array([int(v) for v in init[6:].split(",")], np_dtype).reshape(shape)
    if init.startswith("csr_rows:"):
        rows, nnz = (int(v) for v in init[9:].split(":"))
        cuts = np.sort(rng.integers(0, nnz + 1, size=rows - 1))
        return np.concatenate([[0], cuts, [nnz]]).astype(np_dtype)
    if init == "text":
        x = rng.integers(32, 127, size=shape)
        x[rng.random(shape) < 0.01] = 10
        return x.astype(np_dtype)
    raise ValueError(f"unknown init {init}")


def _np_dtype(name):
    """The host dtype of an element type: the runtime's (from the language's one table)."""
    from run_gpu import load_runtime
    return load_runtime().numpy_dtype(name)
