#!/usr/bin/env bash
# Installs the Chromium the browser test drives (test/browser), from Debian's packages.
# playwright-core never downloads a browser of its own: these machines reach only package
# registries, so the project installs Debian's chromium and the test launches /usr/bin/chromium.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "install-browser: /usr/bin/chromium is present ($(/usr/bin/chromium --version 2>/dev/null || echo 'version unknown')); nothing to do"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-browser: /usr/bin/chromium is missing and installing it needs root:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium" >&2
  exit 1
fi

echo "install-browser: /usr/bin/chromium is missing; installing Debian's chromium package"
echo "+ apt-get update"
apt-get update
echo "+ apt-get install -y --no-install-recommends chromium"
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
echo "install-browser: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
