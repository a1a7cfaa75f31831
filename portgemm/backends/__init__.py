"""Backends run a variant's launch plan: OpenCL here, host (threads, serial) and dpex beside."""
