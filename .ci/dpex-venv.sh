#!/usr/bin/env bash
# Build the numba-dpex venv from scratch in folder $1 and run the dpex tests with it.
#
#   bash .ci/dpex-venv.sh /tmp/venv-dpex
#
# numba-dpex's last release (0.23.0, 2024) imports only with its own frozen stack, whose
# wheels exist for Python 3.9-3.11 on Linux x86_64: this venv is separate from the main
# one. The exact pins are the `dpex` extra in setup.cfg (the one place they are listed).
# PORTGEMM_DPEX_PYTHON picks the interpreter (default python3.11).
set -euo pipefail
venv="${1:?usage: $0 VENV_FOLDER}"
python="${PORTGEMM_DPEX_PYTHON:-python3.11}"
cd "$(dirname "$0")/.."

start=$SECONDS
"$python" -m venv --clear "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install -q --disable-pip-version-check ".[dpex,dev]"
echo "dpex venv built in $((SECONDS - start)) s: $venv"

"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/test_dpex.py
