#!/bin/sh
# mkdeb.sh BINARY OUTDIR: builds OUTDIR/quire_<version>_<arch>.deb from the
# desktop binary, the desktop entry and the icons in this folder. Version and
# maintainer come from wails.json; Depends from dpkg-shlibdeps (dpkg-dev), so
# it names the WebKitGTK/GTK runtime packages of the machine that built it
# (libwebkit2gtk-4.1-0, libgtk-3-0 on Debian 12). `make package` runs it.
set -eu
bin=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

field() { node -p "const w = require('$repo/wails.json'); $1"; }
version=$(field 'w.info.productVersion')
maintainer=$(field '`${w.author.name} <${w.author.email}>`')
arch=$(dpkg --print-architecture)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/debian/quire
install -D -m 755 "$bin" "$root/usr/bin/quire"
install -D -m 644 "$here/quire.desktop" "$root/usr/share/applications/quire.desktop"
install -D -m 644 "$here/quire.svg" "$root/usr/share/icons/hicolor/scalable/apps/quire.svg"
install -D -m 644 "$here/quire-256.png" "$root/usr/share/icons/hicolor/256x256/apps/quire.png"

# dpkg-shlibdeps reads debian/control of a source package; this one is enough.
printf 'Source: quire\n\nPackage: quire\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e debian/quire/usr/bin/quire 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
case $depends in
  *libwebkit2gtk-4.1-0*) ;;
  *) echo "mkdeb: $bin does not link WebKitGTK 4.1 (Depends: $depends); build it with -tags desktop,production,webkit2_41" >&2; exit 1 ;;
esac
case $depends in
  *libgtk-3-0*) ;;
  *) echo "mkdeb: $bin does not link GTK 3 (Depends: $depends)" >&2; exit 1 ;;
esac
size=$(du -sk "$root" | cut -f1)

mkdir -p "$root/DEBIAN"
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" "$here/control" > "$root/DEBIAN/control"
mkdir -p "$out"
deb="$out/quire_${version}_${arch}.deb"
dpkg-deb --build --root-owner-group "$root" "$deb" >/dev/null
echo "$deb"
