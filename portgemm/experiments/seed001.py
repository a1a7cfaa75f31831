"""Paper 001 (PHVM: a horizontal times a vertical matrix, M, N << K, on a GPU, and a
time-cost model that picks the kernel's grid and block sizes). Three experiments: the
paper's kernels against the vendor BLAS on its Table 1 pairs (its Figures 4-6), the
configurations its model allows beside the model's curve (Figures 9-10), and the whole
GS x BS grid around them, where the model is judged against every configuration.

The paper's results are figures; the numbers it states are the optimal configurations
(quoted in the experiments' text, and checked against portgemm's model with its tables).
Points depend on the device (``per_device``): K is scaled to its memory, and the
configurations and predictions come from its constants.
"""

from __future__ import annotations

from typing import Any

from ..auto import phvm as paper
from ..auto.traits import traits
from ..operands import MAX_ELEMENTS
from ..tune.sweep import grid
from .budget import memory_problem
from .record import OK, Record
from .spec import Experiment, Mode, PlotSpec, Point, pick
from .table import plain_number

TABLE1 = (("MTXA", (3, 3, 50_000_000)), ("MTXB", (5, 5, 300_000_000)),
          ("MTXC", (7, 7, 2_000_000_000)))
TABLE2 = (("MTX1", (5, 5, 30_000_000)), ("MTX2", (7, 7, 30_000_000)),
          ("MTX3", (9, 9, 30_000_000)))
PAPER_OPTIMA = {"rtx2080ti": (136, 512), "a100-pcie-40gb": (864, 256)}  # its section 3.2
# The paper's tables count cycles; with no device known (listing the experiments), the
# A100's boost clock turns them into ms.
A100_HZ = 1.41e9
MODEL_CHOICE = "model's optimum"


def scaled(size: tuple[int, int, int], device: Any, mode: Mode) -> tuple[tuple, int]:
    """(M, N, K / d), d: the smallest power of ten with which the pair fits (see
    SCALING), times 10 with --quick and 10^4 in the tests' tiny mode."""
    m, n, k = size
    divisor = 1
    while not _fits((m, n, k // divisor), device):
        divisor *= 10
    divisor *= pick(mode, full=1, quick=10, tiny=10_000)
    return (m, n, max(1, k // divisor)), divisor


def _fits(size: tuple[int, int, int], device: Any) -> bool:
    m, n, k = size
    return (max(m * k, k * n) <= MAX_ELEMENTS
            and not memory_problem(Point("", 0, "phvm", size), device))


def _label(name: str, divisor: int) -> str:
    return name if divisor == 1 else f"{name}, K/{divisor:g}"


SCALING = """
Scaled to the device: the paper's K does not fit most devices (MTXC's A and B are 56 GB
each in float32, and 1.4e10 elements exceed portgemm's 32-bit indices), so each pair
keeps its M and N and divides K by the smallest power of ten (1, 10, 100, ...) with which
each operand stays within 2^31 - 1 elements and the device's largest allocation, A, B and
C within the device's memory, and the float64 check within 80% of the host's memory;
--quick divides by 10 more. The label says the divisor ("MTXC, K/100"), the table the
sizes run.
"""

OPERANDS = """
Operands as in the paper: float32 from U(-1, 1), B stored column-major (the paper's
DOT(E.row(i), F.COL(j)) reads two contiguous vectors), the same A and B for every series.
Kernel time: the OpenCL event time (the paper timed kernels only).
"""


def _constants(device: Any) -> tuple[paper.PhvmConstants, float]:
    """The model's constants for the device and ms per unit of its time; with no device,
    the paper's A100 (Tables 3-4)."""
    if device is None:
        return paper.NAMED["a100-pcie-40gb"], 1e3 / A100_HZ
    return paper.constants_for(device), 1e-6  # measured latencies are in ns


def _constants_text(c: paper.PhvmConstants) -> str:
    return (f"{c.name}: SM_NUM={c.sm_num} SMS={c.sms} WS={c.ws} CoreS={c.cores} "
            f"sigma_add={c.add:.3g} sigma_mul={c.mul:.3g} sigma_g={c.g:.3g} "
            f"sigma_s={c.s:.3g} ({c.unit}) u_SM={c.u_sm:g}")


def _model_point(series: str, x: Any, size, gs: int, bs: int, panel: str,
                 c: paper.PhvmConstants, ms: float, best: tuple[int, int]) -> Point:
    return Point(series, x, "phvm", size, {"GS": gs, "BS": bs}, panel=panel,
                 model=paper.cost(c, *size, gs, bs) * ms,
                 highlight=MODEL_CHOICE if (gs, bs) == best else "",
                 extra={"model constants": _constants_text(c)})


def model_vs_fastest(records: list[Record]) -> list[str]:
    """Per panel: the model's choice against the fastest configuration measured."""
    lines = []
    for panel in dict.fromkeys(r.panel for r in records):
        rows = [r for r in records if r.panel == panel]
        chosen = next((r for r in rows if r.highlight), None)
        done = [r for r in rows if r.status == OK and r.time_ms]
        if chosen is None or not done:
            continue
        best = min(done, key=lambda r: r.time_ms)
        where = f"{panel} ({chosen.m}×{chosen.n}×{chosen.k})"
        if chosen.status != OK or not chosen.time_ms:
            lines.append(f"{where}: the model's choice {_config(chosen)} was {chosen.status} "
                         f"({chosen.reason}); the fastest measured: {_config(best)}, "
                         f"{plain_number(best.time_ms)} ms")
            continue
        lines.append(f"{where}: the model's choice {_config(chosen)} took "
                     f"{plain_number(chosen.time_ms)} ms; the fastest measured, "
                     f"{_config(best)}, {plain_number(best.time_ms)} ms: the model's choice takes "
                     f"{chosen.time_ms / best.time_ms:.2f}x the fastest")
    constants = next((r.extra.get("model constants") for r in records
                      if r.extra.get("model constants")), None)
    if constants:
        lines.append(f"the model's constants (latencies measured by "
                     f"`portgemm/runtime/probe.py`): {constants}")
    return lines


def _config(record: Record) -> str:
    return f"GS={record.params.get('GS')} BS={record.params.get('BS')}"


# --- Figures 4-6: PHVM, BasicMM, the vendor BLAS (and tallskinny) on Table 1's pairs ---

VERSUS_SERIES = (("vendor BLAS", "vendor", "vendor"), ("PHVM", "phvm", "device"),
                 ("BasicMM", "basicmm", "device"), ("tallskinny (ours)", "tallskinny", "device"))


def versus_points(mode: Mode, device: Any) -> list[Point]:
    pairs = pick(mode, full=TABLE1, quick=TABLE1, tiny=TABLE1[:2])
    points = []
    for name, size in pairs:
        size, divisor = scaled(size, device, mode)
        points += [Point(series, _label(name, divisor), variant, size, on=on)
                   for series, variant, on in VERSUS_SERIES]
    return points


def versus_findings(records: list[Record]) -> list[str]:
    lines = []
    for x in dict.fromkeys(r.x for r in records):
        by = {r.variant: r for r in records if r.x == x and r.status == OK and r.time_ms}
        if "phvm" in by and "basicmm" in by:
            ratio = by["phvm"].time_ms / by["basicmm"].time_ms
            versus = (f"PHVM takes {ratio:.2f}x BasicMM's time" if ratio >= 1
                      else f"PHVM is {1 / ratio:.2f}x faster than BasicMM")
            lines.append(f"{x}: {versus}"
                         + "".join(f"; {label} {by[v].pct_of_vendor:.0f}% of the vendor"
                                   for label, v in (("PHVM", "phvm"),
                                                    ("tallskinny", "tallskinny"))
                                   if v in by and by[v].pct_of_vendor is not None))
    return lines


VERSUS = Experiment(
    name="001-phvm-vs-vendor",
    summary="PHVM vs BasicMM vs the vendor BLAS (and tallskinny) on the MTXA/B/C shapes "
            "(M = N = 3, 5, 7, K up to 2e9, scaled to the device), kernel time",
    source="paper 001, section 2.2 (Table 1, Figures 4-6)",
    timed="kernel",
    points=versus_points,
    per_device=True,
    plot=PlotSpec(kind="bars", xlabel="matrix pair"),
    relative_to_vendor=True,
    inputs="001",
    findings=versus_findings,
    reading="""
PHVM is portgemm's `phvm` (each work-item takes every GS*BS-th term of K: neighbouring
work-items read neighbouring addresses) and BasicMM its `basicmm` (each work-item takes
one contiguous run of K); both run with the GS and BS that the paper's model picks for
this device, which is what they do when named without parameters
(`portgemm/auto/phvm.py`, with the device's latencies measured by
`portgemm/runtime/probe.py`). The fourth bar is portgemm's own `tallskinny` kernel
(deterministic, one contiguous run of K per work-group, several elements of C per
work-item) with its occupancy model's parameters. The vendor library is cuBLAS on an
NVIDIA GPU (CUDA events, TF32 off), else numpy's BLAS (its wall time, the library's
call on a CPU); its % column is its time over ours.
""" + OPERANDS + SCALING,
    report_says="Figures 4-6 only (kernel times of cublasSgemm, PHVM and BasicMM on an "
                "A100-PCIE-40GB). The text: PHVM needs clearly less time than BasicMM, so "
                "coalescing the loads pays; PHVM beats cublasSgemm, the more so the "
                "fewer rows A has; and cublasSgemm orders MTXB and MTXC the other way "
                "round from PHVM and BasicMM (slower on the pair with the smaller M), "
                "which the paper reads as cuBLAS not exploiting this shape.",
)


# --- Figures 9-10: the configurations the model allows, measured beside its curve ------

def _paper_optima_text() -> str:
    """What portgemm's reading of the model gives with the paper's own tables."""
    found = []
    for name in PAPER_OPTIMA:
        optima = {paper.optimum(paper.NAMED[name], *size)[:2] for _, size in TABLE2}
        found.append(f"{name}: " + ", ".join(f"GS({gs}), BS({bs})" for gs, bs in optima))
    return "; ".join(found)


def family_points(mode: Mode, device: Any) -> list[Point]:
    c, ms = _constants(device)
    points = []
    for name, size in pick(mode, full=TABLE2, quick=TABLE2, tiny=TABLE2[:1]):
        size, divisor = scaled(size, device, mode)
        configs = sorted(paper.configurations(c, size[2]), key=lambda cell: cell[1])  # BS up
        best = paper.optimum(c, *size)[:2]
        chosen = configs if mode.name != "tiny" else [best, configs[-1]]
        points += [_model_point("PHVM", f"{gs}×{bs}", size, gs, bs, _label(name, divisor),
                                c, ms, best)
                   for gs, bs in dict.fromkeys(chosen)]
    return points


FAMILY = Experiment(
    name="001-model-sweep",
    summary="PHVM over the configurations the paper's model allows (GS x BS = every thread "
            "slot), MTX1-3 (M = N = 5, 7, 9, K = 3e7), beside the model's time",
    source="paper 001, section 3.2 (Table 2, Figures 9-10)",
    timed="kernel",
    points=family_points,
    per_device=True,
    plot=PlotSpec(kind="line", xlabel="configuration GS × BS"),
    inputs="001",
    findings=model_vs_fastest,
    reading="""
One panel per pair of the paper's Table 2. The configurations are those the paper's
model allows on this device (its equations 2-4: GS x BS = SMS x SM_NUM, every thread
slot busy; BS a multiple of the SIMD width WS that divides SMS; here also within the
device's work-group limit; on a CPU GS x BS = K / run instead, a run of K a work-item
that the probe measured, and GS rounded up to an odd count, as
`portgemm/auto/phvm.py` explains), with SM_NUM, SMS and WS from the device
(`portgemm/auto/traits.py`). The solid curve is `phvm`'s kernel time at each; the dotted
one the model's time (equations 1 and 6-11, read as `portgemm/auto/phvm.py` explains,
with this device's latencies from `portgemm/runtime/probe.py` and u_SM = 0.2) fitted onto
it, as the paper drew its THEO curves on a second axis. The star is the model's optimum,
the diamond the fastest configuration measured; "In this run" below compares the two
and gives the constants.
""" + OPERANDS + SCALING,
    report_says="Figures 9 (RTX 2080 Ti) and 10 (A100) only; the text gives the optimum: "
                "GS(136), BS(512) on the 2080 Ti and GS(864), BS(256) on the A100, for all "
                "three pairs, as the model predicts; as GS grows the time first falls, then "
                "rises steeply, and the model places that turn. The model's times are "
                "longer than the measured ones (it leaves the caches out). portgemm's "
                "reading of the model with the paper's Tables 3-4 gives "
                + _paper_optima_text() + ".",
)


# --- beyond the paper: the whole GS x BS grid at MTX1 --------------------------------

LINE = "on the model's line (GS x BS = SMS x SM_NUM; on a CPU K / run)"


def grid_points(mode: Mode, device: Any) -> list[Point]:
    """The configurations the model allows as one series (its line through the grid),
    then one series per BS for the rest of the grid."""
    c, ms = _constants(device)
    name, size = TABLE2[0]
    size, divisor = scaled(size, device, mode)
    best = paper.optimum(c, *size)[:2]
    known = traits(device) if device is not None else None
    simd = known.simd if known else c.ws
    line = set(paper.configurations(c, size[2]))
    # the tuner's grid and its rule (portgemm/tune/predict.py): configurations with fewer
    # work-items than a sixteenth of what the device holds only show it idle, at seconds
    # a point (M*N passes over K); where a power-of-two stride aliases (a CPU), each GS's
    # odd neighbour too, so the model's odd GS meets its like, not only powers of two
    odd = device is not None and paper.strides_alias(device)
    cells = ({(gs, bs) for gs, bs in grid(device, simd=simd, odd=odd)
              if gs * bs >= known.slots // 16} if known else set())
    if mode.name == "quick":  # every other power of two of each (and their odd neighbours)
        cells = {(gs, bs) for gs, bs in cells
                 if (_even_power(gs) or odd and gs > 2 and _even_power(gs - 1))
                 and _even_power(bs // simd)}
    elif mode.name == "tiny":
        line, cells = {best}, {(1, simd), (64, simd)}
    panel = _label(name, divisor)
    return ([_model_point(LINE, gs, size, gs, bs, panel, c, ms, best)
             for gs, bs in sorted(line)]
            + [_model_point(f"BS={bs}", gs, size, gs, bs, panel, c, ms, best)
               for bs, gs in sorted((bs, gs) for gs, bs in cells - line)])


def _even_power(value: int) -> bool:
    """1, 4, 16, ...: a power of two with an even exponent."""
    return value > 0 and value & (value - 1) == 0 and (value.bit_length() - 1) % 2 == 0


GRID = Experiment(
    name="001-gs-bs-grid",
    summary="PHVM over the whole GS x BS grid at MTX1 (5 x 5 x 3e7), beside the model's time "
            "for each configuration and its constrained optimum",
    source="paper 001, section 3 (its model, off the configurations it allows)",
    timed="kernel",
    points=grid_points,
    per_device=True,
    plot=PlotSpec(kind="line", xlabel="GS (work-groups)", logx=True),
    inputs="001",
    findings=model_vs_fastest,
    reading="""
The paper measures only the configurations its model allows (001-model-sweep). Here the
constraint is dropped: the paper's MTX1 on the grid `python -m portgemm.tune --model phvm
--sweep` measures (`portgemm/tune/sweep.py`: BS from the device's SIMD width doubling up
to its work-group limit, at most 1024; GS powers of two from 1 to 8192, and on a CPU
each one's odd neighbour GS + 1 as well, since the model's GS is odd there; none with
fewer work-items GS x BS than a sixteenth of the device's thread slots; --quick keeps
every other power of two of each: GS 1, 4, 16, ... (on a CPU also 5, 17, 65, ...),
BS = SIMD width x 1, 4, 16, ...),
and the configurations the model allows (GS x BS = SMS x SM_NUM, on a CPU K / run: those
of 001-model-sweep), drawn as one curve: the model's line through the grid. The rest is one
curve per BS over GS. Dotted: the model's time for the same configurations, fitted onto
the panel with one factor. The star is the model's optimum (over the configurations it
allows), the diamond the fastest configuration measured: whether the two meet is the
test of the model on this device.
""" + OPERANDS + SCALING,
    report_says="Not in the paper, which sweeps the allowed configurations only (its "
                "optimum: GS(136), BS(512) on the RTX 2080 Ti and GS(864), BS(256) on the "
                "A100).",
)

EXPERIMENTS = (VERSUS, FAMILY, GRID)
