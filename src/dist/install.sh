#!/usr/bin/env bash
# Installs orchestrate from its self-contained archive (src/dist/build.sh), which carries its own
# Java runtime: no Java needs to be installed.
#
# Usage: install.sh [--prefix DIR] [ARCHIVE]
#   --prefix DIR  where to install (default: ~/.local). DIR/lib/orchestrate/ holds orchestrate and
#                 its runtime, DIR/bin/orchestrate is a link to its launcher: put DIR/bin on PATH.
#   ARCHIVE       an orchestrate-VERSION-PLATFORM.tar.gz. Without it: the unpacked archive this
#                 install.sh is part of, else the one archive beside this install.sh.
# An archive with its ARCHIVE.sha256 beside it is checked against that first, and not installed
# when it differs. Installing again, the same version or another, replaces DIR/lib/orchestrate
# whole, once the new one is unpacked and its runtime starts on this machine. Last, the start-up
# archive is made for this place (bin/build-cds, some seconds): without it orchestrate works, but
# each command starts more slowly.
# To uninstall: rm -rf DIR/lib/orchestrate DIR/bin/orchestrate
set -euo pipefail

die() {
  echo "install.sh: error: $*" >&2
  exit 1
}
usage() {
  echo "install.sh: error: $* (usage: install.sh [--prefix DIR] [ARCHIVE])" >&2
  exit 2
}

here=$(cd -P "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=
archive=
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] && [ -n "$2" ] || usage "--prefix needs a directory"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; [ -n "$prefix" ] || usage "--prefix needs a directory"; shift ;;
    -h | --help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage "unknown option '$1'" ;;
    *) [ -z "$archive" ] || usage "one archive at a time"; archive=$1; shift ;;
  esac
done
if [ -z "$prefix" ]; then
  [ -n "${HOME:-}" ] || usage "HOME is not set: pass --prefix DIR"
  prefix=$HOME/.local
fi

unpacked() { [ -x "$1/runtime/bin/java" ] && [ -f "$1/lib/orchestrate.jar" ] && [ -f "$1/bin/orchestrate" ]; }

# What to install: an archive, or the unpacked archive this script came in.
source_dir=
if [ -n "$archive" ]; then
  [ -f "$archive" ] || die "$archive: no such file"
elif unpacked "$here"; then
  source_dir=$here
else
  shopt -s nullglob
  found=("$here"/orchestrate-*.tar.gz)
  shopt -u nullglob
  case ${#found[@]} in
    1) archive=${found[0]} ;;
    0) die "no orchestrate-*.tar.gz beside $here/install.sh; name the archive: install.sh [--prefix DIR] ARCHIVE" ;;
    *) die "${#found[@]} archives beside install.sh (${found[*]##*/}); name the one to install" ;;
  esac
fi

if [ -n "$archive" ] && [ -f "$archive.sha256" ]; then
  read -r expected _ <"$archive.sha256" || expected=
  if command -v sha256sum >/dev/null; then
    actual=$(sha256sum <"$archive")
  elif command -v shasum >/dev/null; then
    actual=$(shasum -a 256 <"$archive")
  else
    die "cannot check $archive against $archive.sha256: neither sha256sum nor shasum is installed"
  fi
  actual=${actual%% *}
  [ "$expected" = "$actual" ] ||
    die "$archive does not match $archive.sha256 (sha256 $actual, expected ${expected:-nothing}): download it again"
  echo "checked $archive against $archive.sha256"
fi

mkdir -p "$prefix/lib" "$prefix/bin" 2>/dev/null || die "cannot create $prefix/lib and $prefix/bin: choose another --prefix"
prefix=$(cd -P "$prefix" && pwd)
target=$prefix/lib/orchestrate
link=$prefix/bin/orchestrate
link_to=../lib/orchestrate/bin/orchestrate

# Never replace what this script did not install.
if [ -e "$target" ] && ! unpacked "$target" && [ -n "$(ls -A "$target" 2>/dev/null)" ]; then
  die "$target exists and is not an orchestrate installation: move it away or choose another --prefix"
fi
if [ -e "$link" ] || [ -L "$link" ]; then
  if [ ! -L "$link" ]; then
    die "$link exists and is not a link to an installed orchestrate: move it away or choose another --prefix"
  elif [ "$(readlink "$link")" != "$link_to" ]; then
    die "$link is a link to $(readlink "$link"), not to $link_to: remove it or choose another --prefix"
  fi
fi

# Unpack beside the installation, on its file system, so the old one is replaced by a rename.
work=$(mktemp -d "$prefix/lib/.orchestrate-install.XXXXXX") || die "cannot write to $prefix/lib"
trap 'rm -rf "$work"' EXIT
if [ -n "$archive" ]; then
  mkdir "$work/unpacked"
  gzip -dc <"$archive" | tar -xf - -C "$work/unpacked" --no-same-owner ||
    die "cannot unpack $archive: is it an orchestrate-VERSION-PLATFORM.tar.gz?"
  shopt -s nullglob
  top=("$work/unpacked"/*)
  shopt -u nullglob
  [ ${#top[@]} -eq 1 ] && unpacked "${top[0]}" ||
    die "$archive is not an orchestrate archive (one directory with runtime/, lib/ and bin/)"
  mv "${top[0]}" "$work/new"
else
  cp -Rp "$source_dir" "$work/new"
  rm -f "$work/new"/orchestrate-*.tar.gz "$work/new"/orchestrate-*.tar.gz.sha256
  rm -rf "$work/new/lib/cds" "$work/new/lib/java-opts.ok"
fi
# An archive of another platform stops here, with the installation in place left as it was.
if ! runtime=$("$work/new/runtime/bin/java" -version 2>&1); then
  die "its Java runtime does not start on this machine ($(uname -s) $(uname -m)): is the archive for this platform? It said: ${runtime%%$'\n'*}"
fi

if [ -e "$target" ]; then
  mv "$target" "$work/old" || die "cannot move the installation in $target aside to replace it"
fi
if ! mv "$work/new" "$target"; then
  [ ! -e "$work/old" ] || mv "$work/old" "$target" || true
  die "cannot move the new installation into $target"
fi
ln -sfn "$link_to" "$link"
"$target/bin/build-cds" >"$work/build-cds.out" 2>&1 || true
if ! grep -q '^\[build-cds\] wrote' "$work/build-cds.out"; then
  echo "install.sh: warning: no start-up archive (orchestrate works without it, starting more slowly):" >&2
  head -n 5 "$work/build-cds.out" >&2
fi

version=$("$link" --version) || die "the installed $link does not start (its error above)"
echo "installed ${version%%$'\n'*} in $target, linked from $link"
case ":${PATH:-}:" in
  *":$prefix/bin:"*) ;;
  *) echo "add $prefix/bin to PATH to call orchestrate by name" ;;
esac
