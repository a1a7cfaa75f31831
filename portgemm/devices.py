"""``python -m portgemm.devices``: every OpenCL device, its filter string and limits."""

from __future__ import annotations

import os

from tabulate import tabulate

from .cli import Parser, flush_stdout, stdout_closed_quietly
from .errors import DeviceNotFoundError
from .runtime.device import get_devices
from .runtime.drivers import register_drivers
from .runtime.selectors import DEVICE_ENV_VAR, select_device


def _mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:,.0f} MiB" if nbytes >= 2**20 else f"{nbytes / 1024:,.0f} KiB"


def device_table(devices) -> str:
    rows = [(d.filter_string, d.name, d.platform, d.vendor, d.compute_units,
             d.max_work_group_size, _mib(d.local_mem_size), _mib(d.global_mem_size),
             "yes" if d.has_fp64 else "no", d.driver_version) for d in devices]
    return tabulate(rows, headers=["filter string", "device", "platform", "vendor", "CUs",
                                   "max wg", "local mem", "global mem", "fp64", "driver"])


def main(argv=None) -> int:
    parser = Parser(prog="python -m portgemm.devices", description=__doc__)
    parser.add_argument("--select", metavar="SPEC", help="also show what this selector picks")
    args = parser.parse_args(argv)

    devices = get_devices()
    if args.select is not None:  # an argument: checked before anything is printed
        try:
            selected = select_device(args.select)
        except DeviceNotFoundError as exc:
            parser.error(str(exc))
    try:
        print(device_table(devices) if devices else "no OpenCL device found")
        report = register_drivers()
        for driver in report.added:
            print(f"registered by portgemm: {driver.name} -> {driver.library} ({driver.origin})")
        if report.vendors_dir:
            print(f"vendors folder: {report.vendors_dir}")
        for note in report.notes:
            print(f"note: {note}")
        if args.select is not None:
            print(f"{args.select!r} selects: {selected.description}")
        elif devices:
            # $PORTGEMM_DEVICE is checked after the table: the table is what fixes it
            try:
                print(f"default device: {select_device(None).description}")
            except DeviceNotFoundError:
                flush_stdout()
                parser.error(f"${DEVICE_ENV_VAR}={os.environ.get(DEVICE_ENV_VAR)!r} matches "
                             f"no device above; set it to a filter string of the table, or "
                             f"unset it")
        flush_stdout()
    except BrokenPipeError:
        stdout_closed_quietly()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
