"""tallskinny's runs of K (KV): auto's parameters with each work-item taking KV
consecutive steps of K at once (one 16-byte load a row of A where it took 4 bytes), beside
auto's own, and (--gs) with other counts of groups. Taken in turns in one process on the
same operands (group_counts.py's in_turns), kernel time from OpenCL events.

    python3 bench/gpu/along_k.py [--shapes 3x3x2097152,...] [--kv 1,2,4] [--gs 66,132]
        [--dtype float32] [--json along_k.json]
"""

from __future__ import annotations

from portgemm.auto import choose

from group_counts import measure_shapes, shape_parser

SHAPES = ("3x3x2097152,5x5x2097152,7x7x2097152,8x8x2097152,9x9x2097152,16x16x2097152,"
          "3x3x33554432,8x8x33554432,16x16x33554432")


def main():
    p = shape_parser(__doc__, SHAPES, "along_k.json")
    p.add_argument("--kv", default="1,2,4", help="runs of K to time, KV[,KV]")
    p.add_argument("--gs", default="", help="counts of groups to time with each KV > 1")
    args = p.parse_args()

    def points_for(device, m, n, k, itemsize):
        chosen = choose(device, m, n, k, itemsize)
        if chosen.variant != "tallskinny":
            return None
        base = dict(chosen.params)
        points = {"auto": base}
        if base.get("ROWVEC"):  # a CPU's form (a dry run here): runs of K are the GPU's
            base = dict(base, ROWVEC=0, BS=64, REDUCE=0)
            points["rows"] = base
        for kv in (int(v) for v in args.kv.split(",") if v):
            if kv != base.get("KV", 1):
                points[f"KV={kv}"] = dict(base, KV=kv)
            for gs in (int(g) for g in args.gs.split(",") if g):
                if kv > 1 and gs != base["GS"]:
                    points[f"KV={kv},GS={gs}"] = dict(base, KV=kv, GS=gs)
        return points

    def line(points, med):
        auto = points["auto"]
        return (f"GS={auto['GS']} BS={auto['BS']} tile {auto['tile_y']}x{auto['tile_x']} | "
                + " | ".join(f"{name} {med[name] * 1e3:7.1f} us {med[name] / med['auto']:.3f}"
                             for name in points))

    measure_shapes(args, points_for, line)


if __name__ == "__main__":
    main()
