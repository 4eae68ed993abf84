#!/usr/bin/env bash
# Install everything the tests need (a virtualenv, the package with its test extra,
# and Debian's Chromium for the browser tests when it is missing), then run them.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests..."
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
python3 -m venv .venv
# requirements.txt (what a Space installs) is installed as is: the tests run with exactly
# those pins, and tests/test_spaces.py fails when the two drift apart
.venv/bin/pip install -q -r requirements.txt -e ".[test]"
exec .venv/bin/python -m pytest "$@"
