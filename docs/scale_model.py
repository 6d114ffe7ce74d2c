#!/usr/bin/env python3
"""The latency-bandwidth model of docs/scale.md: per-iteration seconds of a
data-parallel solve on P nodes, one rank each, for three workloads and two
networks, and the P beyond which communication dominates.

  T(P)      = T_local(P) + T_repl + T_comm(P)
  T_local   = m/P * c / S              each rank's pass over its measurements,
                                       c measured on one core, S = 8 the
                                       speedup of a node's cores
  T_repl    = g * (n1+n2) * r^2        the factor-side work every rank repeats
                                       (+ 3 n1 n2 r flops for dense sensing)
  T_comm    = Sum((n1+n2) r) + 8 Sum(256) + 2 Gather(6)   (the auto step)
  Sum(n)    = 2 ceil(log2 P) (alpha + 8n beta)        n*8 <= 64 KB (trees)
            = 2 ceil(log2 P) alpha + 4 * 8n * beta     larger (reduce-scatter
                                                       + gather, then scatter
                                                       + allgather)
  Gather(n) = ceil(log2 P) alpha + (P-1) 8n beta
"""
import math

NETWORKS = {  # alpha (s), beta (s per byte)
    "10 Gb/s Ethernet (TCP)": (25e-6, 8 / 10e9),
    "100 Gb/s InfiniBand/RoCE (RDMA)": (2e-6, 8 / 100e9),
}
G = 12e-9  # seconds per (n1+n2) r^2 of replicated factor work, one core (measured)
S = 8  # speedup of a node's cores on the pass, which is memory-bound
FLOP = 0.5e-9  # seconds per flop of the replicated dense products (sensing)

WORKLOADS = [
    # name, n1, n2, r, m, seconds per measurement on one core
    ("Netflix-shaped completion", 480_189, 17_770, 10, 100_480_507, 110e-9),
    ("completion, 10^10 entries", 10_000_000, 1_000_000, 10, 10**10, 110e-9),
    ("sensing, n = 1000 (10^11 values, f32)", 1000, 1000, 10, 100_000, 1000 * 1000 * 0.25e-9),
]


def sum_time(n, p, alpha, beta):
    lg = math.ceil(math.log2(p)) if p > 1 else 0
    if p == 1:
        return 0.0
    if 8 * n <= 64 << 10:
        return 2 * lg * (alpha + 8 * n * beta)
    return 2 * lg * alpha + 4 * 8 * n * beta


def gather_time(n, p, alpha, beta):
    if p == 1:
        return 0.0
    return math.ceil(math.log2(p)) * alpha + (p - 1) * 8 * n * beta


def model(w, p, net):
    name, n1, n2, r, m, c = w
    alpha, beta = NETWORKS[net]
    local = m / p * c / S
    repl = G * (n1 + n2) * r * r
    if name.startswith("sensing"):
        repl += FLOP * 3 * n1 * n2 * r
    comm = sum_time((n1 + n2) * r, p, alpha, beta) + 8 * sum_time(256, p, alpha, beta) + 2 * gather_time(6, p, alpha, beta)
    return local, repl, comm


def main():
    for w in WORKLOADS:
        name, n1, n2, r, m, c = w
        print(f"\n{name}: n1={n1}, n2={n2}, r={r}, m={m:.3g}; all-reduce of {(n1 + n2) * r * 8 / 1e6:.3g} MB")
        for net in NETWORKS:
            row = []
            for p in (1, 16, 64, 256):
                local, repl, comm = model(w, p, net)
                row.append(f"P={p}: {local + repl + comm:.3g} s ({local:.3g} + {repl:.3g} + {comm:.3g})")
            cross = next((p for p in range(2, 1 << 20) if model(w, p, net)[2] > model(w, p, net)[0]), None)
            print(f"  {net}: " + "; ".join(row) + f"; communication > local pass from P = {cross}")


if __name__ == "__main__":
    main()
