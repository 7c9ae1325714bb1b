#!/usr/bin/env bash
# Install cardtable on a Raspberry Pi OS (Debian bookworm) machine. Idempotent: run it again after a
# `git pull` to update; it keeps existing passwords and the table config.
#
#   sudo systemd/install.sh                 # the real thing
#   DESTDIR=/tmp/root systemd/install.sh --no-venv   # stage into a fake root (tests; no root needed)
#
# What it does: Debian packages (mosquitto, python3-venv, espeak-ng; only with --apt), a `cardtable` system user in
# the hardware groups, a venv under /opt/cardtable with the package, the unit, the mosquitto drop-in
# with its ACLs and a password file, the udev rules, and the spectator page in mosquitto's http_dir.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DESTDIR="${DESTDIR:-}"
DESTDIR="${DESTDIR%/}"
WITH_APT=0
WITH_VENV=1
START=1
for arg in "$@"; do
  case "$arg" in
    --apt) WITH_APT=1 ;;
    --no-venv) WITH_VENV=0 ;;
    --no-start) START=0 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option '$arg' (known: --apt --no-venv --no-start)" >&2; exit 2 ;;
  esac
done

LIVE=0
[ -z "$DESTDIR" ] && LIVE=1
if [ "$LIVE" -eq 1 ] && [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: run as root (sudo), or set DESTDIR to stage into a folder" >&2
  exit 1
fi

say() { printf 'cardtable install: %s\n' "$*"; }
# install_file SRC DEST MODE: copy only when the content differs, so a rerun changes nothing.
install_file() {
  local src="$1" dest="$DESTDIR$2" mode="$3"
  mkdir -p "$(dirname "$dest")"
  if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
    chmod "$mode" "$dest"
    return 0
  fi
  install -m "$mode" "$src" "$dest"
  say "installed $2"
}

# 1. Debian packages
if [ "$WITH_APT" -eq 1 ] && [ "$LIVE" -eq 1 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends mosquitto mosquitto-clients python3-venv python3-pip espeak-ng >/dev/null
fi

# 2. The service user, in the groups that own the camera, GPIO, serial, SPI, I2C and sound nodes.
if [ "$LIVE" -eq 1 ]; then
  if ! id cardtable >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/cardtable --no-create-home --shell /usr/sbin/nologin \
      --user-group cardtable
    say "created user cardtable"
  fi
  for group in video gpio dialout spi i2c audio; do
    if getent group "$group" >/dev/null && ! id -nG cardtable | tr ' ' '\n' | grep -qx "$group"; then
      usermod -a -G "$group" cardtable
    fi
  done
fi

# 3. The package, in a venv that can see Debian's picamera2/libcamera (--system-site-packages).
VENV="$DESTDIR/opt/cardtable/venv"
if [ "$WITH_VENV" -eq 1 ]; then
  [ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade "$REPO[pi]"
  say "package installed in /opt/cardtable/venv"
fi
[ -f "$REPO/docs/deployment.md" ] && install_file "$REPO/docs/deployment.md" /opt/cardtable/docs/deployment.md 0644

# 4. The unit.
install_file "$REPO/systemd/cardtable.service" /etc/systemd/system/cardtable.service 0644

# 5. The mosquitto drop-in, its ACLs and the password file (kept when it exists).
install_file "$REPO/systemd/mosquitto/cardtable.conf" /etc/mosquitto/conf.d/cardtable.conf 0644
install_file "$REPO/systemd/mosquitto/cardtable-tcp.acl" /etc/mosquitto/cardtable-tcp.acl 0644
install_file "$REPO/systemd/mosquitto/cardtable-ws.acl" /etc/mosquitto/cardtable-ws.acl 0644
mkdir -p "$DESTDIR/etc/cardtable"
chmod 0750 "$DESTDIR/etc/cardtable"
# The service runs as cardtable and reads its config here (the passwords stay root's: systemd hands them over).
[ "$LIVE" -eq 1 ] && chgrp cardtable /etc/cardtable
install_file "$REPO/examples/table.toml" /etc/cardtable/table.toml.example 0644
new_secret() { head -c 18 /dev/urandom | base64 | tr -d '/+=' ; }
for who in mqtt operator; do
  f="$DESTDIR/etc/cardtable/$who-password"
  if [ ! -s "$f" ]; then
    (umask 077; new_secret > "$f")
    say "generated /etc/cardtable/$who-password"
  fi
  chmod 0600 "$f"
done
PASSWD="$DESTDIR/etc/mosquitto/cardtable.passwd"
if [ ! -s "$PASSWD" ]; then
  if command -v mosquitto_passwd >/dev/null 2>&1; then
    (umask 027
     mosquitto_passwd -c -b "$PASSWD" cardtable "$(cat "$DESTDIR/etc/cardtable/mqtt-password")"
     mosquitto_passwd -b "$PASSWD" operator "$(cat "$DESTDIR/etc/cardtable/operator-password")")
    say "wrote /etc/mosquitto/cardtable.passwd (users cardtable, operator)"
  else
    echo "install.sh: mosquitto_passwd is missing (apt-get install mosquitto, or rerun with --apt)" >&2
    exit 1
  fi
fi
# mosquitto drops root and reads the file as user mosquitto.
if [ "$LIVE" -eq 1 ] && getent group mosquitto >/dev/null; then
  chown root:mosquitto "$PASSWD"
fi
chmod 0640 "$PASSWD"

# 6. udev rules (the Pico's stable /dev/cardtable-ring name, device permissions) from systemd/udev/
if compgen -G "$REPO/systemd/udev/*.rules" >/dev/null; then
  for rule in "$REPO"/systemd/udev/*.rules; do
    install_file "$rule" "/etc/udev/rules.d/$(basename "$rule")" 0644
  done
fi

# 7. The spectator page, served by mosquitto's websockets listener (http_dir).
WWW=/usr/share/cardtable/spectator
for f in index.html app.js style.css vendor/mqtt.min.js; do
  install_file "$REPO/spectator/$f" "$WWW/$f" 0644
done

# 8. Start things (live installs only).
if [ "$LIVE" -eq 1 ]; then
  systemctl daemon-reload
  command -v udevadm >/dev/null 2>&1 && udevadm control --reload-rules && udevadm trigger || true
  systemctl enable mosquitto.service >/dev/null
  systemctl restart mosquitto.service
  systemctl enable cardtable.service >/dev/null
  if [ "$START" -eq 1 ]; then
    if [ -f /etc/cardtable/table.toml ]; then
      systemctl restart cardtable.service
      say "cardtable.service (re)started; follow it with: journalctl -u cardtable -f"
    else
      say "copy /etc/cardtable/table.toml.example to /etc/cardtable/table.toml and edit it (docs/deployment.md), then: systemctl start cardtable"
    fi
  fi
fi
say "done"
