#!/usr/bin/env bash
# Builds the self-contained archive of orchestrate for the platform it runs on (issue 47): a
# runtime made by jlink with only the modules orchestrate uses, the launcher, the jar and the
# sqlite-jdbc library for this platform; install.sh installs it where no Java is installed, and
# makes the start-up archive there (a static CDS archive holds the jar's path, so it is made where
# it is used, for the runtime it ships with).
#
# Usage: src/dist/build.sh [--jdk DIR] [--out DIR]
#   --jdk  the JDK whose jlink and jmods make the runtime, and so its version (default: JAVA_HOME,
#          else the java on PATH). `./mvnw package -Pdist` passes the JDK running Maven. Build
#          with a JDK 17, the baseline: the runtime runs what the jar needs and no more.
#   --out  where to write (default: target/dist)
# Needs `./mvnw package` first (target/orchestrate.jar, target/native). Writes to OUT:
#   orchestrate-VERSION-PLATFORM.tar.gz    one directory, orchestrate-VERSION-PLATFORM/, holding
#                                          install.sh, bin/, lib/, runtime/, config/, examples/
#   orchestrate-VERSION-PLATFORM.tar.gz.sha256
#   install.sh                             the same install.sh, to install from the archive beside it
# PLATFORM is this machine's: linux-x64, linux-aarch64, macos-x64, macos-aarch64 (linux-musl-* on
# Alpine), the platforms the launcher has a sqlite-jdbc library for.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$home/target/dist
jdk=

die() {
  echo "build.sh: error: $*" >&2
  exit 1
}

while [ $# -gt 0 ]; do
  case $1 in
    --jdk) [ $# -ge 2 ] || die "--jdk needs a directory"; jdk=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (usage: src/dist/build.sh [--jdk DIR] [--out DIR])" ;;
  esac
done
if [ -z "$jdk" ]; then
  if [ -n "${JAVA_HOME:-}" ]; then
    jdk=$JAVA_HOME
  elif java_on_path=$(command -v java); then
    jdk=$(dirname "$(dirname "$(readlink -f "$java_on_path")")")
  else
    die "no JDK: pass --jdk DIR or set JAVA_HOME"
  fi
fi
[ -x "$jdk/bin/jlink" ] || die "$jdk has no bin/jlink: --jdk needs a JDK, not a runtime"
[ -d "$jdk/jmods" ] || die "$jdk has no jmods/ for jlink (Debian: apt-get install openjdk-17-jmods)"

jar=$home/target/orchestrate.jar
natives=$home/target/native/org/sqlite/native
[ -f "$jar" ] && [ -d "$natives" ] || die "$jar or $natives missing; build first: ./mvnw -B -q package -DskipTests"

# The platform, and the sqlite-jdbc libraries of it the launcher may pick (bin/lib/platform.sh
# looks in Linux-Musl/ where a musl loader is present, so both go with a Linux archive).
case $(uname -m) in
  x86_64 | amd64) arch=x64 native_arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 native_arch=aarch64 ;;
  *) die "no archive for this machine ($(uname -m)): the launcher knows x86_64 and aarch64" ;;
esac
case $(uname -s) in
  Linux)
    os=linux
    [ -f /etc/alpine-release ] && os=linux-musl
    native_dirs=(Linux/$native_arch Linux-Musl/$native_arch) ;;
  Darwin) os=macos native_dirs=(Mac/$native_arch) ;;
  *) die "no archive for $(uname -s): the launcher knows Linux and macOS" ;;
esac

# The modules orchestrate uses, found with
#   jdeps --ignore-missing-deps --multi-release 17 -verbose:package target/orchestrate.jar
# and each kept for what uses it. jlink adds what they require (java.sql brings java.logging,
# java.xml and java.transaction.xa). Left out: java.desktop, whose java.beans only the optional
# parts of jackson-databind and snakeyaml, and parts of jline and of the PostgreSQL driver that
# orchestrate never loads, refer to; jdk.localedata and jdk.charsets (output is formatted for
# Locale.ROOT and read as UTF-8).
modules=(
  java.base
  java.sql           # JDBC: sqlite-jdbc and the PostgreSQL driver
  java.net.http      # webhooks (notify:) and the summarizer's model clients
  jdk.unsupported    # sun.misc.Signal: a run's Ctrl-C and SIGTERM (cli/StopSignals)
  jdk.crypto.ec      # elliptic-curve TLS: https:// webhooks and endpoints, PostgreSQL over TLS
  java.naming        # the PostgreSQL driver: TLS host-name checks (javax.naming.ldap)
  java.security.jgss # the PostgreSQL driver: GSS authentication and encryption
  java.management    # the PostgreSQL driver: maxResultBuffer as a share of the heap
)
module_list=$(printf '%s,' "${modules[@]}")
module_list=${module_list%,}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/stage
mkdir -p "$stage"

# No man pages, no header files, no debug attributes in the classes. Not --compress=2: zipping
# lib/modules saves 19 MB installed (a 42 MB runtime instead of 60 MB) but makes the tar.gz larger
# (32.7 MB instead of 29.2 MB: gzip does better on the classes unzipped), and every class the
# start-up archive does not hold (a run's, a webhook's) is unzipped each time it is loaded
# (docs/benchmarks.md).
"$jdk/bin/jlink" --add-modules "$module_list" --strip-debug --no-header-files --no-man-pages \
  --output "$stage/runtime"

# The jar without sqlite-jdbc's libraries for every platform (12 of its 21 MB): the launcher loads
# this platform's from lib/native (-Dorg.sqlite.lib.path), as it loads target/native's in a checkout.
mkdir -p "$work/jar" "$stage/lib/native/org/sqlite/native"
(cd "$work/jar" && "$jdk/bin/jar" --extract --file "$jar")
rm -rf "$work/jar/org/sqlite/native"
(cd "$work/jar" && "$jdk/bin/jar" --create --file "$stage/lib/orchestrate.jar" --manifest META-INF/MANIFEST.MF .)
for d in "${native_dirs[@]}"; do
  if [ -d "$natives/$d" ]; then
    mkdir -p "$stage/lib/native/org/sqlite/native/$d"
    cp -p "$natives/$d"/* "$stage/lib/native/org/sqlite/native/$d/"
  fi
done

# The launcher as in a checkout: with runtime/ beside it, it runs that runtime and finds the jar
# in lib/ (bin/lib/platform.sh). config/ and examples/ are the documented config and the shipped
# example, which bin/build-cds also trains the start-up archive on.
mkdir -p "$stage/bin/lib" "$stage/config"
cp -p "$home/bin/orchestrate" "$home/bin/build-cds" "$stage/bin/"
cp -p "$home/bin/lib/platform.sh" "$stage/bin/lib/"
cp -p "$home/config/orchestrate.yaml" "$stage/config/"
cp -Rp "$home/examples" "$stage/examples"
cp -p "$home/src/dist/install.sh" "$stage/install.sh"

# The runtime runs the jar: a module it lacks would show here, not on a user's machine.
version=$("$stage/runtime/bin/java" -cp "$stage/lib/orchestrate.jar" dev.orchestrate.Main --version) \
  || die "the jlinked runtime does not run the jar (its error above)"
version=${version#orchestrate }
version=${version%%$'\n'*}
[[ $version =~ ^[A-Za-z0-9._-]+$ ]] || die "cannot read the version from --version: '$version'"

name=orchestrate-$version-$os-$arch
mv "$stage" "$work/$name"
mkdir -p "$out"
rm -f "$out/$name.tar.gz" "$out/$name.tar.gz.sha256"
tar -C "$work" -cf - "$name" | gzip -6 >"$out/$name.tar.gz.part"
mv "$out/$name.tar.gz.part" "$out/$name.tar.gz"
if command -v sha256sum >/dev/null; then
  (cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
else
  (cd "$out" && shasum -a 256 "$name.tar.gz" >"$name.tar.gz.sha256")
fi
cp -p "$home/src/dist/install.sh" "$out/install.sh"
echo "[dist] wrote $out/$name.tar.gz ($(du -k "$out/$name.tar.gz" | cut -f1) KiB; runtime $("$work/$name/runtime/bin/java" -version 2>&1 | head -n 1))"
