"""The machine code of a kernel's loops, from the PTX NVIDIA's OpenCL returns as the
program binary (`register_cap.py --ptx-dir DIR` writes it): for each loop, its
instruction count and mix, and how many instructions separate each local-memory load
(LDS) from the first instruction that uses its value.

Runs anywhere with NVIDIA's command-line tools from PyPI, no GPU needed:

    python3 -m venv /tmp/cuda && /tmp/cuda/bin/pip install nvidia-cuda-nvcc \\
        nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
    /tmp/cuda/bin/python bench/gpu/sass_loops.py DIR/*.ptx [--arch sm_90] [--order]
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile

INSTRUCTION = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);")
BRANCH = re.compile(r"\bBRA\b.*?0x([0-9a-f]+)")
LOAD_LOCAL = re.compile(r"LDS(?:\.(\d+))?\s+R(\d+),")
PREDICATE = re.compile(r"^@!?U?P\w+\s+")


def tool(name: str) -> str:
    """A tool of the nvidia-* wheels installed beside this Python, else one on PATH."""
    found = glob.glob(os.path.join(sys.prefix, "lib", "python3*", "site-packages", "nvidia",
                                   "*", "bin", name))
    return found[0] if found else name


def disassemble(ptx_path: str, arch: str) -> tuple[str, list[tuple[int, str]]]:
    """ptxas's register report and the SASS instructions (address, text) of the PTX."""
    with open(ptx_path, "rb") as f:
        ptx = f.read().replace(b"\0", b"")  # the driver's binary ends in NUL bytes
    with tempfile.TemporaryDirectory() as folder:
        source, cubin = os.path.join(folder, "k.ptx"), os.path.join(folder, "k.cubin")
        with open(source, "wb") as f:
            f.write(ptx)
        report = subprocess.run([tool("ptxas"), "-v", f"-arch={arch}", source, "-o", cubin],
                                capture_output=True, text=True, check=True).stderr
        env = dict(os.environ, PATH=os.path.dirname(tool("nvdisasm")) + os.pathsep
                   + os.environ.get("PATH", ""))
        sass = subprocess.run([tool("cuobjdump"), "-sass", cubin], capture_output=True,
                              text=True, check=True, env=env).stdout
    found = [(int(m.group(1), 16), m.group(2).strip())
             for m in map(INSTRUCTION.match, sass.splitlines()) if m]
    used = re.findall(r"Used \d+ registers.*", report)
    return (used[0] if used else report.strip()), found


def opcode(text: str) -> str:
    return PREDICATE.sub("", text).split()[0]


def load_use_distances(body: list[str]) -> list[int]:
    """For each LDS, the instructions up to the first one reading a register it wrote."""
    distances = []
    for i, text in enumerate(body):
        m = LOAD_LOCAL.match(PREDICATE.sub("", text))
        if not m:
            continue
        width = {"64": 2, "128": 4}.get(m.group(1), 1)
        written = {f"R{int(m.group(2)) + j}" for j in range(width)}
        for j in range(i + 1, len(body)):
            operands = PREDICATE.sub("", body[j]).split(None, 1)[1:]
            sources = re.split(r"[,\s\[\]+]+", operands[0])[1:] if operands else []
            if written & {s.replace(".reuse", "") for s in sources}:
                distances.append(j - i)
                break
    return distances


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("ptx", nargs="+")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--min-size", type=int, default=50, help="loops shorter than this: skipped")
    p.add_argument("--order", action="store_true",
                   help="also each loop's global loads (L) and FMAs (f) in program order "
                        "(other instructions '.'): whether a step's loads go out together")
    args = p.parse_args()
    for path in args.ptx:
        report, found = disassemble(path, args.arch)
        print(f"{os.path.basename(path)}: {report}")
        for address, text in found:
            m = BRANCH.search(text)
            if not m or int(m.group(1), 16) >= address:
                continue
            start = int(m.group(1), 16)
            body = [t for a, t in found if start <= a <= address]
            if len(body) < args.min_size:
                continue
            mix = collections.Counter(opcode(t) for t in body)
            ffma = sum(n for op, n in mix.items() if op.startswith(("FFMA", "DFMA")))
            print(f"  loop {start:#06x}-{address:#06x}: {len(body)} instructions, "
                  f"{ffma} FMA ({ffma / len(body):.0%})")
            print("    " + ", ".join(f"{op} {n}" for op, n in mix.most_common(14)))
            if args.order:
                print("    order: " + "".join(
                    "L" if opcode(t).startswith("LDG") else
                    "f" if opcode(t).startswith(("FFMA", "DFMA")) else "." for t in body))
            distances = load_use_distances(body)
            if distances:
                print(f"    LDS to first use: min {min(distances)}, median "
                      f"{statistics.median(distances):g}, max {max(distances)} instructions "
                      f"({len(distances)} loads)")


if __name__ == "__main__":
    main()
