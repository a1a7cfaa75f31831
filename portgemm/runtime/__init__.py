"""Devices and launching, independent of any GEMM: drivers, selectors, nd-ranges, queues."""

from .device import Device, get_devices
from .drivers import register_drivers
from .ndrange import NDRange, Range, round_up
from .queue import Event, Queue
from .selectors import default_score, select_device, select_devices

__all__ = ["Device", "Event", "NDRange", "Queue", "Range", "default_score", "get_devices",
           "register_drivers", "round_up", "select_device", "select_devices"]
