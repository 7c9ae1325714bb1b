#!/usr/bin/env bash
# Installs the Debian packages the integration tests use, if they are missing.
# Runs apt-get as root, or through sudo when that works without a password;
# otherwise it says what is missing and the tests that need it are skipped.
set -euo pipefail
pkgs=()
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || pkgs+=(mosquitto)
command -v chromium >/dev/null 2>&1 || pkgs+=(chromium)
command -v systemd-analyze >/dev/null 2>&1 || pkgs+=(systemd)
command -v node >/dev/null 2>&1 || pkgs+=(nodejs npm)
command -v espeak-ng >/dev/null 2>&1 || pkgs+=(espeak-ng)
[ ${#pkgs[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
  echo "system-deps: missing ${pkgs[*]}; install them with apt-get (tests that need them are skipped)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
