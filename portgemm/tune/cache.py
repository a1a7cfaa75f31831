"""The tuner's resumable measurement cache: one JSON object per line, appended as each
candidate is measured, so an interrupted run loses at most the line being written.

A line's key is (device key, variant, kernel source hash, size, dtype, params). The
source hash makes measurements of an older kernel source count as new candidates.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping

from ..runtime.device import Device
from .space import params_key


def device_key(device: Device) -> str:
    """vendor / name / driver version: what tells two devices' timings apart."""
    return " / ".join(" ".join(str(part).split()) for part in
                      (device.vendor, device.name, device.driver_version))


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:12]


def cache_key(device: str, variant: str, source: str, size, dtype: str,
              params: Mapping[str, Any]) -> str:
    m, n, k = size
    return f"{device}|{variant}|{source}|{m}x{n}x{k}|{dtype}|{params_key(params)}"


class MeasurementCache:
    """Records already measured, read from a JSON-lines file and appended to it."""

    def __init__(self, path: str | os.PathLike | None):
        self.path = Path(path) if path is not None else None
        self.records: dict[str, dict] = {}
        if self.path is not None and self.path.exists():
            # a damaged line (bytes that are not UTF-8, say) is skipped like a short one
            with open(self.path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        record = json.loads(line)
                        self.records[record["key"]] = record
                    except (ValueError, KeyError, TypeError, RecursionError):
                        continue  # a line cut short by an interrupted run

    def get(self, key: str) -> dict | None:
        return self.records.get(key)

    def add(self, key: str, record: dict) -> None:
        record = {"key": key, **record}
        self.records[key] = record
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
        with open(self.path, "ab+") as f:
            # a line cut short by a killed run: end it first, or this record joins it and
            # both are lost to the next reader
            if f.seek(0, os.SEEK_END) and (f.seek(-1, os.SEEK_END), f.read(1))[1] != b"\n":
                line = b"\n" + line
            f.write(line)  # one write: appends from other processes stay whole lines
            f.flush()

    def __len__(self) -> int:
        return len(self.records)
