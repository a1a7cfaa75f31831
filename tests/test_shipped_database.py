"""Every configuration shipped in portgemm/tune/database is valid and computes correctly."""

import numpy as np
import pytest

import portgemm
from portgemm.runtime.device import Device
from portgemm.auto import choose, read_database, shipped_database_paths
from portgemm.auto.shallow import gpu_most_k
from portgemm.auto.splitk import fitting_tile
from portgemm.families import get_variant
from portgemm.tune.save import save_entries

from conftest import assert_close, usable_devices

SHIPPED = [(path.name, record["match"], entry)
           for path in shipped_database_paths()
           for record in read_database(path)["devices"]
           for entry in record["entries"]]


def test_there_are_shipped_entries_for_cpu_pocl_and_nvidia():
    names = {name for name, _, _ in SHIPPED}
    assert {"intel-cpu.json", "pocl-cpu.json", "nvidia-gpu.json"} <= names


def test_a_record_holds_one_entry_a_variant_class_and_dtype():
    """As save_entries writes them: a second entry of the same key is one overtaken
    (the warm start measured both, and lookup had to pick between them)."""
    for path in shipped_database_paths():
        for record in read_database(path)["devices"]:
            keys = [(e["variant"], e["shape_class"], e["dtype"]) for e in record["entries"]]
            assert len(keys) == len(set(keys)), (path.name, record["match"])


def test_auto_on_the_tuned_pocl_cpu_uses_the_shipped_vec_entries(monkeypatch, tmp_path):
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    pocl = fabricated_cpu("pthread-Intel(R) Xeon(R) Processor", "GenuineIntel",
                          "Portable Computing Language")
    for size in (1024, 4096):
        chosen = choose(pocl, size, size, size)
        assert (chosen.variant, chosen.source) == ("vec", "shipped"), chosen.reason


@pytest.mark.parametrize("name, match, entry", SHIPPED,
                         ids=[f"{n}:{e['variant']}:{e['shape_class']}" for n, _, e in SHIPPED])
def test_shipped_entry_is_correct_on_cpu_opencl(name, match, entry):
    impl = get_variant(entry["variant"])
    devices = [d for d in usable_devices()
               if not impl.problems(impl.resolve(entry["params"]), d, 4)]
    if not devices:
        pytest.skip("no OpenCL device here can run this configuration")
    rng = np.random.default_rng(11)
    for m, n, k in [(1, 1, 1), (131, 67, 97), (257, 129, 61)]:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        result = portgemm.gemm(a, b, device=devices[0], variant=entry["variant"],
                               params=entry["params"], poison=np.nan)
        assert_close(result.c, a, b)


def fabricated_cpu(name, vendor, platform):
    return Device(name=name, vendor=vendor, platform=platform, type="cpu", index=0,
                  compute_units=2, max_work_group_size=4096,
                  max_work_item_sizes=(4096, 4096, 4096), local_mem_size=2 * 2**20,
                  global_mem_size=8 * 2**30, max_mem_alloc_size=4 * 2**30, has_fp64=True,
                  driver_version="3.0", opencl_version="OpenCL 3.0 PoCL",
                  native_vector_width=16)


def fabricated_gpu(name):
    return Device(name=name, vendor="NVIDIA Corporation", platform="NVIDIA CUDA", type="gpu",
                  index=0, compute_units=132, max_work_group_size=1024,
                  max_work_item_sizes=(1024, 1024, 64), local_mem_size=49152,
                  global_mem_size=80 * 2**30, max_mem_alloc_size=20 * 2**30, has_fp64=True,
                  driver_version="580.159.04", opencl_version="OpenCL 3.0 CUDA")


@pytest.mark.parametrize("gpu, large_variant, medium_variant", [
    ("NVIDIA H200", "wgmma", "wgmma"),             # its own entries: 3xTF32 on the warpgroup MMA
    ("NVIDIA H100 80GB HBM3", "wgmma", "wgmma"),   # its own, the same tilings
    ("NVIDIA A100-PCIE-40GB", "xgemm", "xgemm")])  # untuned: the vendor-type entries
def test_auto_on_nvidia_uses_the_shipped_entries(gpu, large_variant, medium_variant,
                                                 monkeypatch, tmp_path):
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    large = choose(fabricated_gpu(gpu), 4096, 4096, 4096)
    medium = choose(fabricated_gpu(gpu), 1024, 1024, 1024)
    assert (large.variant, large.source) == (large_variant, "shipped")
    assert (medium.variant, medium.source) == (medium_variant, "shipped")
    if large_variant == "xgemm":
        assert (large.params["MWG"], large.params["NWG"]) == (128, 128)
        assert large.params["KSPLIT"] == 1
    # the large tile, K split so that a C of 64 tiles fills the device (the H200 ran it
    # 1.2-1.7x the 32 x 64 tile of the entry before, bench/results/2026-11-22-h200-tail)
    assert get_variant(medium.variant).block(medium.params)[:2] == (128, 128)
    assert medium.params["KSPLIT"] > 1


def with_capability(device: Device, major: int, minor: int) -> Device:
    import dataclasses
    from types import SimpleNamespace

    return dataclasses.replace(device, handle=SimpleNamespace(
        compute_capability_major_nv=major, compute_capability_minor_nv=minor))


def test_choices_follow_the_compute_capability(monkeypatch, tmp_path):
    """Two devices equal but for their handle's compute capability get their own choices
    (a Device's equality leaves the handle out; the memos of choose and traits do not)."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    plain = fabricated_gpu("NVIDIA H200")
    first = choose(plain, 16384, 64, 4096)
    hopper = choose(with_capability(plain, 9, 0), 16384, 64, 4096)
    # xgemm's 64 x 64 tile where portgemm cannot tell that wgmma runs, wgmma's 128 x 64 where
    # it can
    assert first.variant == "xgemm" and hopper.variant == "wgmma"
    assert get_variant("wgmma").block(hopper.params)[:2] == (128, 64)


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
def test_deep_k_on_hopper_takes_the_tile_that_fits(gpu, monkeypatch, tmp_path):
    """The deep-K entry (wgmma, K split 4 ways) where its 128 x 128 tile fits C; wgmma's
    128 x 64 tile for C of 64 columns (on the H200 16384 x 64 x 4096 ran 1.19x faster in it
    whole than in xgemm's 64 x 64 split in 2, bench/results/2026-11-26-hopper-narrow-tiles);
    xgemm's 64 x 64 tile with the model's split for a C of one such tile; wgmma's 64 x 32
    for a small C that its 128 x 64 tile would mostly pad (128 x 64 ran 256 x 16 x 8192
    1.07x slower than xgemm's 16 x 16; 64 x 32 0.96x, within the turns' noise at these
    20 us kernels: bench/results/2026-11-26-hopper-fitted-tiles)."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = with_capability(fabricated_gpu(gpu), 9, 0)
    square = choose(device, 1024, 1024, 16384)
    assert (square.variant, square.params["KSPLIT"]) == ("wgmma", 4)
    assert "deep-k-class entry" in square.reason
    thin = choose(device, 16384, 64, 4096)
    assert thin.variant == "wgmma" and "narrow preset" in thin.reason
    for m, n, k, variant, tile in ((64, 64, 1 << 21, "xgemm", (64, 64)),
                                   (256, 16, 1 << 17, "wgmma", (64, 32))):
        thin = choose(device, m, n, k)
        assert thin.variant == variant and get_variant(variant).block(thin.params)[:2] == tile
        assert thin.params["KSPLIT"] > 1 and "split-K model" in thin.reason
    # a C of 33-63 rows pads the 64 x 64 tile rather than taking 16 x 16 ones, one of
    # 65-127 pads wgmma's 128 x 128 tile (bench/results/2026-11-22-h200-fit-tiles:
    # 1.1-2.9x faster than the largest tile inside C), one of 33-63 columns wgmma's
    # 128 x 64 (8192 x 40 x 8192 ran 1.64x faster in it than in xgemm's 64 x 64)
    for m, n, k, tile in ((48, 8192, 8192, (64, 64)), (4096, 33, 4096, (128, 64)),
                          (100, 4096, 4096, (128, 128)), (4096, 127, 4096, (128, 128))):
        padded = choose(device, m, n, k)
        assert get_variant(padded.variant).block(padded.params)[:2] == tile
    # xgemm's 64 x 64 gives way to wgmma's at a K of at most 65536 (1.06-1.43x on an H100;
    # at 2^21 0.89-1.07x: bench/results/2026-11-27-h100-short-reads)
    for m, n, k, variant in ((36, 1427, 40812, "wgmma"), (48, 8192, 8192, "wgmma"),
                             (64, 64, 65536, "wgmma"), (64, 64, 1 << 21, "xgemm")):
        square = choose(device, m, n, k)
        assert square.variant == variant, square.reason
        assert get_variant(variant).block(square.params)[:2] == (64, 64)
        assert square.params["KSPLIT"] > 1 and "split-K model" in square.reason
    ampere = with_capability(fabricated_gpu("NVIDIA A100-SXM4-80GB"), 8, 0)
    assert choose(ampere, 36, 1427, 40812).variant == "xgemm"


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
def test_shallow_k_on_hopper_takes_its_own_entry(gpu, monkeypatch, tmp_path):
    """A C of at least 512 x 512 from K = 8 to 128 runs the shallow-K entry: wgmma's
    128 x 64 tile unsplit (1.0-1.5x faster than its 128 x 128 on the H200 and the H100,
    bench/results/2026-11-27-h200-few-tiles; that had beaten xgemm's 128 x 128 from K = 32,
    bench/results/2026-11-26-hopper-narrow-tiles; a shallower K runs vec, below); a deeper
    K, and a GPU without the entry, keep the size classes' choice."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = with_capability(fabricated_gpu(gpu), 9, 0)
    for m, n, k in ((4096, 4096, 8), (2000, 2000, 64), (8192, 8192, 128)):
        shallow = choose(device, m, n, k)
        assert shallow.variant == "wgmma" and "shape class shallow-k" in shallow.reason
        assert get_variant("wgmma").block(shallow.params)[:2] == (128, 64)
        assert shallow.params["KSPLIT"] == 1
    assert "shape class large" in choose(device, 4096, 4096, 129).reason
    other = with_capability(fabricated_gpu("NVIDIA A100-SXM4-80GB"), 8, 0)
    assert choose(other, 4096, 4096, 8).params == choose(other, 4096, 4096, 4096).params


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
@pytest.mark.parametrize("m, n, k", [(96, 96, 24), (256, 256, 200), (320, 200, 400),
                                     (100, 100, 100), (511, 511, 511)])
def test_the_small_class_runs_wgmmas_64_x_64_tile_on_hopper(gpu, m, n, k, monkeypatch,
                                                            tmp_path):
    """The small class's float32 entry, xgemm's 64 x 64 tile, runs as wgmma's 64 x 64
    where wgmma runs (1.04-1.65x faster in turns on the H200 and the H100,
    bench/results/2026-11-27-h200-few-tiles), K split by the model; a GPU without wgmma,
    and a user's own entry of that tile, keep xgemm's."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    hopper = with_capability(fabricated_gpu(gpu), 9, 0)
    choice = choose(hopper, m, n, k)
    assert choice.variant == "wgmma" and "shape class small" in choice.reason, choice
    assert get_variant("wgmma").block(choice.params)[:2] == (64, 64)
    assert "taken in wgmma's 64 x 64 tile" in choice.reason
    ampere = with_capability(fabricated_gpu("NVIDIA A100-SXM4-80GB"), 8, 0)
    plain = choose(ampere, m, n, k)
    assert plain.variant == "xgemm" and get_variant("xgemm").block(plain.params)[:2] == (64, 64)
    user = tmp_path / "user.json"
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(user))
    save_entries(user, hopper, [{"variant": "xgemm", "shape_class": "small",
                                 "dtype": "float32", "params": plain.params}], level="name")
    own = choose(hopper, m, n, k)
    assert (own.variant, own.source) == ("xgemm", "user"), own


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
@pytest.mark.parametrize("m, n, k, itemsize, half", [
    (896, 896, 160, 4, (128, 64)), (640, 1408, 160, 4, (128, 64)), (1024, 1024, 256, 4, (128, 64)),
    (1664, 1664, 512, 4, (128, 64)), (896, 896, 160, 8, (64, 64)), (512, 512, 64, 8, (64, 64)),
    (700, 1500, 384, 8, (64, 64)), (384, 2048, 512, 8, (64, 64))])
def test_a_short_k_split_two_ways_takes_half_the_tile(gpu, m, n, k, itemsize, half,
                                                      monkeypatch, tmp_path):
    """Where the model splits a K of at most 512 two ways on the shipped tensor-core tile
    (wgmma's 128 x 128, mma's 64 x 128), C runs in its family's tile of half the area
    instead, as many groups without the pass that sums the slices (1.09-1.77x faster in
    turns on the H200 and the H100, bench/results/2026-11-27-h200-few-tiles); a deeper K,
    a split of 4 and a user's own entry keep the tile and its split."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = with_capability(fabricated_gpu(gpu), 9, 0)
    choice = choose(device, m, n, k, itemsize)
    variant = {4: "wgmma", 8: "mma"}[itemsize]
    assert choice.variant == variant and "half the tile" in choice.reason, choice
    assert get_variant(variant).block(choice.params)[:2] == half
    whole = {4: (128, 128), 8: (64, 128)}[itemsize]
    deeper = choose(device, m, n, 2 * k + 256, itemsize)
    assert get_variant(deeper.variant).block(deeper.params)[:2] == whole, deeper
    split4 = choose(device, 640, 640, 512, itemsize)
    assert split4.params["KSPLIT"] == 4 and "half the tile" not in split4.reason
    assert get_variant(variant).block(split4.params)[:2] == whole
    user = tmp_path / "user.json"
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(user))
    tile = {4: {"WN": 128, "WGM": 2, "WGN": 1, "KS": 2, "PAD": 0, "LEAD": 2},
            8: {"WM": 1, "WN": 4, "MT": 4, "NT": 4, "KS": 1, "PAD": 4, "ASYNC_STAGES": 3}}
    save_entries(user, device, [{"variant": variant, "shape_class": "medium",
                                 "dtype": {4: "float32", 8: "float64"}[itemsize],
                                 "params": tile[itemsize]}], level="name")
    own = choose(device, 896, 896, 160, itemsize)
    assert own.source == "user" and get_variant(variant).block(own.params)[:2] == whole, own


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
@pytest.mark.parametrize("m, n, k, half", [
    (896, 2560, 1024, True), (2560, 896, 3500, True), (1100, 1100, 256, True),
    (1300, 1300, 256, False), (2048, 2048, 1536, False), (600, 2500, 384, False),
    (4096, 4096, 4096, False)])
def test_a_float64_c_takes_mmas_64_x_64_where_it_takes_no_more_waves(gpu, m, n, k, half,
                                                                     monkeypatch, tmp_path):
    """K whole, a float64 C runs mma's 64 x 64 tile in place of the entry's 64 x 128 where
    its tiles take no more waves of the device's groups (3 a unit against 2): 896 x 2560
    and 2560 x 896 ran 1.10-1.15x faster in turns on the H200 and the H100
    (bench/results/2026-11-27-h200-few-tiles); where the 64 x 64 tiles spill into another
    wave, C keeps the entry's tile."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = with_capability(fabricated_gpu(gpu), 9, 0)
    choice = choose(device, m, n, k, 8)
    assert choice.variant == "mma" and choice.params["KSPLIT"] == 1, choice
    assert get_variant("mma").block(choice.params)[:2] == ((64, 64) if half else (64, 128))
    assert ("as few waves" in choice.reason) == half


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
@pytest.mark.parametrize("m, n, k, itemsize, rows", [
    (9314, 1025, 3, 4, 4), (4096, 4096, 1, 4, 4), (2838, 8932, 7, 4, 8), (600, 601, 5, 4, 8),
    (8057, 1025, 2, 8, 4), (1025, 4097, 6, 8, 4),
    (3565, 3591, 8, 4, 8), (4097, 1025, 32, 4, 8), (3565, 3591, 8, 8, 4), (2000, 2001, 24, 8, 4)])
def test_a_shallow_k_on_a_gpu_runs_vec_in_vectors_of_16_bytes(gpu, m, n, k, itemsize, rows,
                                                             monkeypatch, tmp_path):
    """A shallow-k C of K <= 7 (float32) or 6 (float64), or of K <= 32 (24) where C's
    columns are odd, runs vec's tiles of one 16-byte vector, not the class's tensor-core entry
    (the H100: 1.15-3.3x faster, bench/results/2026-11-27-h100-shallow, -short-reads), on
    any GPU; a deeper K keeps the entry, as does an even count of columns at K = 8-32,
    and a CPU its own choice."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = with_capability(fabricated_gpu(gpu), 9, 0)
    choice = choose(device, m, n, k, itemsize)
    assert choice.variant == "vec" and "shape class shallow-k" in choice.reason, choice
    width = 16 // itemsize
    assert (choice.params["tile_y"], choice.params["tile_x"], choice.params["vw"]) == \
        (rows, width, width)
    assert (choice.params["PACKED"], choice.params["KSPLIT"]) == (0, 1)
    deeper = choose(device, m, n, gpu_most_k(itemsize, n) + 1, itemsize)
    assert deeper.variant in ("wgmma", "mma"), deeper
    if k >= 8:
        assert choose(device, m, n + 1, k, itemsize).variant in ("wgmma", "mma")
    other = with_capability(fabricated_gpu("NVIDIA A100-SXM4-80GB"), 8, 0)
    assert choose(other, m, n, k, itemsize).variant == "vec"
    for cpu in (fabricated_cpu("Intel(R) Xeon(R) Processor", "Intel(R) Corporation",
                               "Intel(R) OpenCL"),
                fabricated_cpu("pthread-Intel(R) Xeon(R) Processor", "GenuineIntel",
                               "Portable Computing Language")):
        assert "on a GPU" not in choose(cpu, m, n, k, itemsize).reason


@pytest.mark.parametrize("m, n, k", [(49, 13, 177930), (64, 10, 200000), (24, 30, 300000),
                                     (13, 49, 177930), (16, 64, 65536)])
def test_a_small_float64_c_over_a_deep_k_stays_on_the_tensor_cores(m, n, k, monkeypatch,
                                                                   tmp_path):
    """Where mma runs float64 on the tensor cores, a deep-K C of a few hundred values
    takes its tiles however much they pad C (one 64 x 64 tile): xgemm's 16 x 16, the least
    padded, ran 1.2-2.5x slower on the H100 (bench/results/2026-11-27-h100-shallow); a
    GPU without them keeps xgemm's."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    hopper = with_capability(fabricated_gpu("NVIDIA H100 80GB HBM3"), 9, 0)
    choice = choose(hopper, m, n, k, 8)
    assert choice.variant == "mma" and "shape class deep-k" in choice.reason, choice
    assert get_variant("mma").block(choice.params)[:2] == (64, 64)
    ampere = with_capability(fabricated_gpu("NVIDIA A100-SXM4-80GB"), 8, 0)
    assert choose(ampere, m, n, k, 8).variant == "xgemm"


@pytest.mark.parametrize("m, n, k, itemsize", [
    (672, 1911, 16, 8), (2048, 2048, 8, 8), (1000, 1000, 32, 8), (4096, 4096, 4, 8),
    (8759, 469, 29, 8), (300, 4000, 8, 8),
    (850, 4636, 33, 4), (2048, 2048, 16, 4), (1000, 1000, 32, 4), (3000, 3000, 9, 4)])
def test_a_shallow_k_on_intels_cpu_runtime_runs_vec(m, n, k, itemsize, monkeypatch,
                                                    tmp_path):
    """On Intel's CPU runtime with AVX-512 a C of K <= 32 in float64, of K = 9-48 and
    512K values or more in float32 (an Intel CPU only), shallow-k or of a size class,
    runs vec's tiles of 8 rows by 128 bytes with B in place (on a Xeon of model 207
    1.02-2.84x faster than panel's packed tiles,
    bench/results/2026-11-27-cpu-xeon207-shallow-vec); a K out of the bounds, a small
    float32 C, a skinny C, AVX2 and PoCL keep their choices."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    intel = fabricated_cpu("Intel(R) Xeon(R) Processor", "Intel(R) Corporation",
                           "Intel(R) OpenCL")
    choice = choose(intel, m, n, k, itemsize)
    assert choice.variant == "vec" and "AVX-512: vec, tiles" in choice.reason, choice
    assert (choice.params["tile_y"], choice.params["tile_x"] * itemsize,
            choice.params["PACKED"]) == (8, 128, 0)
    assert choose(intel, m, n, {8: 40, 4: 64}[itemsize], itemsize).variant == "panel"
    if itemsize == 4:
        assert choose(intel, m, n, 8, itemsize).variant == "panel"     # panel's shallow tile
        assert choose(intel, 700, 700, k, itemsize).variant == "panel"  # C under 512K
    assert "AVX-512: vec" not in choose(intel, 8, 4096, k, itemsize).reason  # skinny
    import dataclasses
    avx2 = dataclasses.replace(intel, native_vector_width=8)
    assert "AVX-512: vec" not in choose(avx2, m, n, k, itemsize).reason
    pocl = fabricated_cpu("pthread-Intel(R) Xeon(R) Processor", "GenuineIntel",
                          "Portable Computing Language")
    assert "AVX-512: vec" not in choose(pocl, m, n, k, itemsize).reason
    # an AMD CPU: float64 alike, float32 keeps panel (1.0-1.9x faster on a Zen 5)
    amd = fabricated_cpu("AMD EPYC", "Intel(R) Corporation", "Intel(R) OpenCL")
    assert (choose(amd, m, n, k, itemsize).variant == "vec") == (itemsize == 8)
    unknown = fabricated_cpu("Some CPU", "Intel(R) Corporation", "Intel(R) OpenCL")
    assert "AVX-512: vec" not in choose(unknown, m, n, k, itemsize).reason


@pytest.mark.parametrize("name, maker", [
    ("Intel(R) Xeon(R) Processor", "Intel"), ("AMD EPYC", "AMD"),
    ("pthread-AMD EPYC", "AMD"), ("cpu-skylake-avx512-Intel(R) Xeon(R) Processor", "Intel"),
    ("AMD Ryzen 9 7950X 16-Core Processor", "AMD"), ("Some CPU", ""),
    ("Intel(R) Core(TM) Ultra 7 155H", "Intel")])
def test_a_cpus_maker_from_its_name(name, maker):
    from portgemm.auto.traits import cpu_maker

    assert cpu_maker(fabricated_cpu(name, "Intel(R) Corporation", "Intel(R) OpenCL")) == maker


def test_fitting_tile_weighs_padding_against_reuse():
    """The tile of least padded work per multiply-add: a larger tile past C's edge beats
    a smaller one inside it while its padding costs less than its reuse gains; of equal
    ones the least padded wins, then the first."""
    xgemm = get_variant("xgemm")
    tiles = [("xgemm", xgemm.resolve(dict(MWG=size, NWG=size, MDIMC=8, NDIMC=8, WARPN=8)))
             for size in (128, 64, 16)]
    assert fitting_tile(tiles, 4096, 4096) == 0     # whole tiles: the largest
    assert fitting_tile(tiles, 48, 8192) == 1       # 64 rows for 48 beat 16-row tiles
    assert fitting_tile(tiles, 64, 8192) == 1       # 64 x 64 ties 128 x 128, less padded
    assert fitting_tile(tiles, 100, 8192) == 0      # 128 rows for 100
    assert fitting_tile(tiles, 16, 16) == 2         # 16 x 16 C: its own tile
    assert fitting_tile(tiles, 20, 20) == 2         # 32 x 32 in 16s beats 64 x 64 padded
    assert fitting_tile(tiles + [tiles[1]], 48, 8192) == 1  # the same tile twice: the first
    # tiles MOSTLY_PADDING times a side of C (16 rows: 64 x 64 and up) lose to one that is
    # not, however few loads they take, unless every tile is
    assert fitting_tile(tiles[:2] + [tiles[2]], 16, 8192) == 2
    assert fitting_tile(tiles[:2], 16, 8192) == 1


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
def test_a_tuned_tile_that_pads_c_gives_way_to_its_familys_fitting_tile(gpu, monkeypatch,
                                                                        tmp_path):
    """On Hopper the large-class entries' tiles (mma 64 x 128, wgmma 128 x 128) pad a C of
    32 columns 4x: their families' tiles that fit it take the shape (on the H200
    50000 x 32 x 1024 ran 2.63x faster in float64 on mma's 128 x 32, 1.35x in float32 on
    wgmma's 128 x 64, bench/results/2026-11-26-hopper-narrow-tiles; on the H100 1.10x more
    on wgmma's 64 x 32, 2026-11-26-hopper-fitted-tiles). A C that pads every
    tile of the family keeps the entry's, with the model's split; one that pads none
    keeps the entry."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = with_capability(fabricated_gpu(gpu), 9, 0)
    for itemsize, variant, tile in ((8, "mma", (128, 32)), (4, "wgmma", (64, 32))):
        narrow = choose(device, 50000, 32, 1024, itemsize)
        assert narrow.variant == variant and "pads C" in narrow.reason, narrow.reason
        assert get_variant(variant).block(narrow.params)[:2] == tile
        square = choose(device, 4096, 4096, 4096, itemsize)
        assert "pads C" not in square.reason and square.source == "shipped"
    # a tall tile as wide as C (rounded up to 8 columns), up to 56: on the H100 36-40
    # columns ran 1.38-1.50x faster in 128 x 40 than in the 64 x 64 entry, 1.17x than
    # in 128 x 48 (bench/results/2026-11-26-hopper-fitted-tiles); 64 keeps 64 x 64
    for n, tile in ((28, (128, 32)), (36, (128, 40)), (40, (128, 40)), (44, (128, 48)),
                    (52, (128, 56)), (60, (64, 64)), (64, (64, 64))):
        fitted = choose(device, 50000, n, 4096, 8)
        assert get_variant("mma").block(fitted.params)[:2] == tile, (n, fitted.reason)
    short = choose(device, 48, 3000, 2000)  # 48 rows pad every wgmma tile
    assert short.variant == "wgmma" and get_variant("wgmma").block(short.params)[:2] == (128, 128)
    assert short.params["KSPLIT"] == 16 and "split-K model" in short.reason


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
def test_float64_splits_k_on_the_tensor_cores(gpu, monkeypatch, tmp_path):
    """float64 on Hopper: a C of too few tiles runs mma with K split by the model (on the
    H100 1024 x 1024 x 16384 ran xgemm's 16 x 16 tile at 9% of cuBLAS before, mma split
    in 2 at 74%; 48 x 3000 x 2000 28% whole, 79-95% split in 8); a C of 64 columns the
    deep-K entry's 64 x 64 tile; a large square whole (bench/results/2026-11-26-h100-
    float64-shapes)."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = with_capability(fabricated_gpu(gpu), 9, 0)
    tile = ("WM", "WN", "MT", "NT")
    square = choose(device, 1024, 1024, 16384, 8)
    assert square.variant == "mma" and square.params["KSPLIT"] > 1, square.reason
    assert [square.params[key] for key in tile] == [1, 4, 4, 4]  # the large entry's 64 x 128
    thin = choose(device, 16384, 64, 4096, 8)
    assert thin.variant == "mma" and [thin.params[key] for key in tile] == [2, 2, 2, 4]
    assert "deep-k-class entry" in thin.reason
    # its 256 tiles fill two groups an SM: a streaming tile's most (whole, 1.04x faster
    # than the 4 ways that three groups an SM asked for)
    assert thin.params["KSPLIT"] == 1
    few = choose(device, 48, 3000, 2000, 8)
    assert few.variant == "mma" and few.params["KSPLIT"] > 1 and "split-K model" in few.reason
    assert choose(device, 4096, 4096, 4096, 8).params["KSPLIT"] == 1


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
def test_a_float64_c_of_170_to_192_columns_over_a_deep_k_takes_the_medium_tile(
        gpu, monkeypatch, tmp_path):
    """mma's 64 x 96 tile, not four tall 128 x 48 ones across C, each reading all of A
    (on an H100 1.26-1.50x faster: bench/results/2026-11-26-h100-medium-n)."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = with_capability(fabricated_gpu(gpu), 9, 0)
    for m, n, k in ((8192, 170, 8192), (8192, 192, 8192), (4096, 176, 8192)):
        medium = choose(device, m, n, k, 8)
        assert get_variant("mma").block(medium.params)[:2] == (64, 96), (m, n, k, medium.reason)
        assert "medium preset" in medium.reason


@pytest.mark.parametrize("gpu", ["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
def test_a_skinny_float64_c_goes_to_the_tensor_cores(gpu, monkeypatch, tmp_path):
    """float64 on Hopper: a tall C of 9 or more columns runs mma's tall tiles, 128 rows
    by its columns rounded up to 8 (from 16: on the H100 20-24 columns ran 1.04-1.22x
    faster in 128 x 24 than in 128 x 32; 8192 x 11 x 8192 1.66x faster in 128 x 16
    than in tallskinny), K split for two groups an SM (on the H100
    4096 x 16 x 4096 ran at 45% of cuBLAS in tallskinny, 98-103% so,
    bench/results/2026-11-26-h100-store-pairs); a wide C of 4 or more rows their mirrors,
    16 x 128 and 32 x 128 (1.5-2.3x faster than the wide kernel at 8-32 rows on the H100,
    bench/results/2026-11-26-hopper-narrow-tiles, 1.10-1.26x at 4-6,
    2026-11-26-hopper-fitted-tiles), in float32 from 12 rows; fewer columns or rows, a
    tall float32 C and a GPU before Hopper keep the skinny class's kernels."""
    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = with_capability(fabricated_gpu(gpu), 9, 0)
    for m, n, k, split, tile in ((4096, 16, 4096, 8, 16), (4096, 12, 4096, 8, 16),
                                 (8192, 11, 8192, 4, 16), (4096, 9, 4096, 8, 16),
                                 (16384, 16, 4096, 2, 16), (50000, 16, 1024, 1, 16),
                                 (4096, 17, 4096, 8, 24), (4096, 24, 4096, 8, 24)):
        tall = choose(device, m, n, k, 8)
        assert tall.variant == "mma" and "tensor cores' tiles" in tall.reason, tall.reason
        assert get_variant("mma").block(tall.params)[:2] == (128, tile)
        # 132 SMs x 2 groups: the split that fills them without a second wave
        assert tall.params["KSPLIT"] == split, (m, n, k, tall.reason)
    assert choose(device, 4096, 8, 4096, 8).variant == "tallskinny"
    assert choose(device, 4096, 16, 4096, 4).variant == "tallskinny"
    for m, n, k, split, tile in ((16, 4096, 4096, 8, 16), (8, 4096, 4096, 8, 16),
                                 (24, 4096, 4096, 8, 32), (16, 50000, 1024, 1, 16)):
        wide = choose(device, m, n, k, 8)
        assert wide.variant == "mma" and "a wide C" in wide.reason, wide.reason
        assert get_variant("mma").block(wide.params)[:2] == (tile, 128)
        assert wide.params["KSPLIT"] == split, (m, n, k, wide.reason)
    four = choose(device, 4, 4096, 4096, 8)
    assert four.variant == "mma" and get_variant("mma").block(four.params)[:2] == (16, 128)
    assert choose(device, 3, 4096, 4096, 8).variant == "wide"
    # float32 (3xTF32) from 12 rows (1.2-1.6x faster than the wide kernel at 16-32 rows
    # on the H100, 1.01-2.03x at 12-14, bench/results/2026-11-27-h100-small-c)
    single = choose(device, 32, 4096, 4096, 4)
    assert single.variant == "mma" and "a wide C" in single.reason
    assert get_variant("mma").block(single.params)[:2] == (32, 128)
    for m, n, k in ((12, 700, 65536), (14, 4096, 4096), (12, 1500, 4096)):
        twelve = choose(device, m, n, k, 4)
        assert twelve.variant == "mma" and "a wide C" in twelve.reason, twelve.reason
        assert get_variant("mma").block(twelve.params)[:2] == (16, 128)
    assert choose(device, 11, 4096, 4096, 4).variant == "wide"
    assert choose(device, 8, 4096, 4096, 4).variant == "wide"
    ampere = with_capability(fabricated_gpu("NVIDIA A100-SXM4-80GB"), 8, 0)
    assert choose(ampere, 4096, 16, 4096, 8).variant == "tallskinny"
    assert choose(ampere, 32, 4096, 4096, 4).variant == "wide"


@pytest.mark.parametrize("gpu, capability, variant", [
    ("NVIDIA H200", (9, 0), "mma"),                # its own entry: the FP64 tensor cores
    ("NVIDIA H100 80GB HBM3", (9, 0), "mma"),      # its own entry, the same tiling
    ("NVIDIA A100-PCIE-40GB", (8, 0), "xgemm")])
def test_auto_float64_on_nvidia(gpu, capability, variant, monkeypatch, tmp_path):
    import dataclasses
    from types import SimpleNamespace

    monkeypatch.setenv("PORTGEMM_TUNING_DB", str(tmp_path / "none.json"))
    device = dataclasses.replace(fabricated_gpu(gpu), handle=SimpleNamespace(
        compute_capability_major_nv=capability[0], compute_capability_minor_nv=capability[1]))
    for size in (4096, 1024):
        chosen = choose(device, size, size, size, 8)
        assert (chosen.variant, chosen.source) == (variant, "shipped"), chosen.reason
