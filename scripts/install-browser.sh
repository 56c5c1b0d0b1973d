#!/bin/sh
# Install Debian's chromium for the HTML report's browser tests (tests/experiments/test_report_html.py drive it through
# Playwright for Python, the test extra, with executable_path=/usr/bin/chromium: Playwright's own browser
# download is never used).  Idempotent: an installed chromium is kept.
# Usage: scripts/install-browser.sh        (then: CI=1 python -m pytest tests/experiments/test_report_html.py)
set -eu

if [ -x /usr/bin/chromium ]; then
    echo "chromium already installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian package: chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
else
    echo "not root or no apt-get: install Debian's chromium yourself (apt-get install chromium)" >&2
fi
