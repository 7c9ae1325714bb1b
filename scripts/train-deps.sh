#!/usr/bin/env bash
# Install what training needs from Debian (never needed at runtime on the Pi):
#   gnome-cards-data       aisleriot card sheets (GPL-3+), the training card faces
#   kdegames-card-data-kf5 KDE card decks (GPL-2+/LGPL-2+), more training faces
#   librsvg2-bin           rsvg-convert, renders the SVG faces per element id
# Idempotent: does nothing when everything is installed already. Runs as root or through sudo.
set -euo pipefail
pkgs=(gnome-cards-data kdegames-card-data-kf5 librsvg2-bin fonts-dejavu-core)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "train-deps: all installed (${pkgs[*]})"
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "train-deps: installed ${missing[*]}"
