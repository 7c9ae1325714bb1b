#!/usr/bin/env bash
# Install what training needs from Debian (never needed at runtime on the Pi):
#   gnome-cards-data       aisleriot card sheets (GPL-3+), the training card faces
#   kdegames-card-data-kf5 KDE card decks (GPL-2+/LGPL-2+), more training faces
#   librsvg2-bin           rsvg-convert, renders the SVG faces per element id
#   fonts-dejavu-core, fonts-dejavu-extra
#                          the DejaVu faces the drawn decks' ranks are drawn in (vision/synth/drawn.py)
#   fonts-urw-base35 ... fonts-ebgaramond
#                          printers' faces for the drawn decks past the twelfth (--drawn-decks; PRINTERS_FONTS)
#   nodejs, npm            to fetch two npm packages of per-card SVG decks into data/npm-decks/
#                          (Adrian Kennard's decks, CC0; the responsive deck after Chris Aguilar, LGPL-3)
# Idempotent: does nothing when everything is installed already. Runs as root or through sudo.
set -euo pipefail
pkgs=(gnome-cards-data kdegames-card-data-kf5 librsvg2-bin fonts-dejavu-core fonts-dejavu-extra
      fonts-urw-base35 fonts-liberation2 fonts-freefont-ttf fonts-linuxlibertine fonts-roboto-unhinted
      fonts-open-sans fonts-lato fonts-ebgaramond)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)  # (npm may come with a nodejs from elsewhere)
if [ ${#missing[@]} -eq 0 ]; then
    echo "train-deps: all installed (${pkgs[*]})"
else
    if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
    "${SUDO[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
    echo "train-deps: installed ${missing[*]}"
fi
# The npm decks, pinned (npm checks each tarball against the registry's integrity hash).
decks="$(cd "$(dirname "$0")/.." && pwd)/data/npm-decks"
for spec in react-playing-cards=@heruka_urgyen/react-playing-cards@0.5.0 \
            playing-cards-standard-deck=@younestouati/playing-cards-standard-deck@3.0.0; do
    folder=${spec%%=*}
    package=${spec#*=}
    [ -d "$decks/$folder/package" ] && continue
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "$package" >/dev/null)
    mkdir -p "$decks/$folder"
    tar -xzf "$tmp"/*.tgz -C "$decks/$folder"
    rm -rf "$tmp"
    echo "train-deps: unpacked $package into $decks/$folder"
done
