#!/usr/bin/env python3
"""Ratings from a generator unlike `scaledsm generate`'s, to test the recommender's rules.

Issue 63 asks for one generator kept out of the tuning of the ratings fit.
The first law (the default) was run once as it came, then used in the
tuning; the second (--variant b) was kept out. The first differs from `scaledsm generate --problem ratings` in every part of
its law. Users belong to six taste clusters (a rank-12 interaction whose
strengths fall from 1 to 0.2), each user stretches the scale by a factor of
their own, the noise is Laplace, the scale is 1 to 10 in whole steps, the
items' popularity is log-normal with a heavy spread and the users' activity
a Pareto law, and which pairs are rated depends on the taste (missing not at
random). 120,000 users, 40,000 items, 4 million ratings before the
hold-out; the seed fixes every draw.

    python3 bench/heldout_ratings.py --out DIR [--seed 1] [--ratings 4000000]

writes DIR/train.csv and DIR/test.csv (user,item,rating; 10% held out).
With --variant b, a second law, kept out of the tuning after the first had
been used to fix what it found: items in 20 genres (an item's factors its
genre's plus its own), a rank-6 interaction, half stars from 1 to 5, each
user's noise of its own level (standard deviation 0.5 to 1.3), Zipf
popularity (0.9) and log-normal activity, weak taste-driven choice; 60,000
users, 15,000 items, 3 million ratings.
"""
import argparse
import os

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ratings", type=int, default=4_000_000)
    ap.add_argument("--users", type=int, default=120_000)
    ap.add_argument("--items", type=int, default=40_000)
    ap.add_argument("--holdout", type=float, default=0.1)
    ap.add_argument("--variant", default="a", choices=["a", "b"])
    a = ap.parse_args()
    if a.variant == "b":
        return variant_b(a)
    rng = np.random.default_rng(a.seed)
    nu, ni, m, k = a.users, a.items, a.ratings, 12
    strength = np.linspace(1.0, 0.2, k)
    centers = rng.normal(size=(6, k))
    cluster = rng.integers(0, 6, size=nu)
    lu = (centers[cluster] + 0.6 * rng.normal(size=(nu, k))) * np.sqrt(strength)
    ri = rng.normal(size=(ni, k)) * np.sqrt(strength)
    ub = rng.normal(scale=0.9, size=nu)
    stretch = rng.uniform(0.5, 1.5, size=nu)
    pop = rng.lognormal(sigma=1.6, size=ni)
    ib = 0.35 * np.log(pop / np.median(pop)) + rng.normal(scale=0.6, size=ni)
    act = rng.pareto(1.5, size=nu) + 1.0
    pu, pi = act / act.sum(), pop / pop.sum()
    spread = np.sqrt((lu[:64] @ ri[:64].T).var())
    users, items, z = rated(rng, lu, ri, pu, pi, m, 0.8, spread)
    inter = z * spread
    raw = 5.5 + ub[users] + ib[items] + stretch[users] * 1.4 * inter + rng.laplace(scale=0.85, size=m)
    stars = np.clip(np.rint(raw), 1, 10).astype(int)
    write(a, rng, users, items, stars)


def variant_b(a):
    """The second law (see the module's doc)."""
    rng = np.random.default_rng(a.seed + 1000)
    nu, ni, m, k = 60_000, 15_000, 3_000_000, 6
    strength = np.linspace(1.0, 0.3, k)
    genre = rng.integers(0, 20, size=ni)
    gcenter = rng.normal(size=(20, k))
    ri = (gcenter[genre] + 0.7 * rng.normal(size=(ni, k))) * np.sqrt(strength)
    lu = rng.normal(size=(nu, k)) * np.sqrt(strength)
    ub = rng.normal(scale=0.35, size=nu)
    ib = rng.normal(scale=0.4, size=ni)
    noise = rng.uniform(0.5, 1.3, size=nu)
    pi = np.arange(1, ni + 1, dtype=float) ** -0.9
    rng.shuffle(pi)
    pu = rng.lognormal(sigma=1.0, size=nu)
    pu, pi = pu / pu.sum(), pi / pi.sum()
    spread = np.sqrt((lu[:64] @ ri[:64].T).var())
    users, items, z = rated(rng, lu, ri, pu, pi, m, 0.4, spread)
    raw = 3.6 + ub[users] + ib[items] + 0.45 * z + noise[users] * rng.normal(size=m)
    stars = np.clip(np.rint(2 * raw) / 2, 1, 5)
    write(a, rng, users, items, stars)


def rated(rng, lu, ri, pu, pi, m, slope, spread):
    """m distinct (user, item) pairs drawn by the users' activity pu and the
    items' popularity pi, each kept with probability σ(slope·z), z its
    interaction over spread (missing not at random): users, items, z."""
    nu, ni = len(pu), len(pi)
    keys, users, items, inters = set(), [], [], []
    while len(users) < m:
        n = 2 * (m - len(users)) + 1000
        u = rng.choice(nu, size=n, p=pu)
        i = rng.choice(ni, size=n, p=pi)
        z = np.einsum("ij,ij->i", lu[u], ri[i]) / spread
        keep = rng.random(n) < 1 / (1 + np.exp(-slope * z))
        for uu, ii, zz in zip(u[keep], i[keep], z[keep]):
            key = int(uu) * ni + int(ii)
            if key in keys:
                continue
            keys.add(key)
            users.append(uu)
            items.append(ii)
            inters.append(zz)
            if len(users) == m:
                break
    return np.array(users), np.array(items), np.array(inters)


def write(a, rng, users, items, stars):
    """Holds out a.holdout of the ratings at random and writes a.out's
    train.csv and test.csv (user,item,rating; ids from 1)."""
    test = rng.random(len(stars)) < a.holdout
    os.makedirs(a.out, exist_ok=True)
    for name, sel in (("train.csv", ~test), ("test.csv", test)):
        with open(os.path.join(a.out, name), "w") as f:
            f.write("user,item,rating\n")
            for uu, ii, st in zip(users[sel] + 1, items[sel] + 1, stars[sel]):
                f.write(f"{uu},{ii},{st:g}\n")


if __name__ == "__main__":
    main()
