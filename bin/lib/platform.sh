# shellcheck shell=bash
# Sourced by bin/orchestrate and bin/build-cds, so that the launcher and the archive build agree
# on the JVM, its options and the archive's name. This runs before every command, so it starts no
# process on the common path (each cost 6-9 ms of CPU on a 2-core machine, docs/benchmarks.md):
# the archive is found by its name's pattern, and the home of a java on PATH is the one noted the
# last time while that java is still the same file; else one `readlink -f` (and a `java -version`
# the first time a set of ORCHESTRATE_JAVA_OPTS is used, below).
#
# orchestrate_platform HOME sets:
#   installed     1 in an installed copy, else empty
#   java          the java binary: an installed copy's own HOME/runtime/bin/java, whatever
#                 JAVA_HOME says (its archive is made for that runtime, and a JAVA_HOME set for
#                 other programs must not break it); in a checkout $JAVA_HOME/bin/java, else java
#                 on PATH
#   java_feature  its feature release (17, 25, ...; 8 for 1.8; 0 when unknown), from $java_home/release
#   java_version  its JAVA_VERSION as the release file says it ("17.0.15", "1.8.0_292"), or empty
#   java_release  its JAVA_RUNTIME_VERSION ("17.0.15+6-Debian-1deb12u1"; else the feature release),
#                 the JVM part of the archive's name; empty when unknown
#   java_opts     the JVM options every start uses (array)
#   lib_dir       where the jar and what the launcher derives from it live: HOME/target in a
#                 checkout; HOME/lib in an installed copy (src/dist/install.sh), which is one
#                 that has its own runtime in HOME/runtime
#   jar           LIB_DIR/orchestrate.jar
#   archive_dir   LIB_DIR/cds
#   archive       the archive bin/build-cds made for this JVM, without extension (.jsa, static
#                 CDS, or .aot, a JDK 25+ AOT cache, is appended by the caller), or empty when there
#                 is none or the jar is newer than it (rebuilt since). Its name holds the jar's
#                 size and modification time and the JVM's release (orchestrate_archive_name), so
#                 an archive made for another JVM is never even offered; one made for another jar
#                 the JVM itself refuses, silently (it checks the jar against what it recorded).

orchestrate_platform() {
  local home=$1
  installed=
  lib_dir=$home/target
  [ -x "$home/runtime/bin/java" ] && installed=1 lib_dir=$home/lib
  jar=$lib_dir/orchestrate.jar
  archive_dir=$lib_dir/cds

  local java_home=
  if [ -n "$installed" ]; then
    java=$home/runtime/bin/java
    java_home=$home/runtime
  elif [ -n "${JAVA_HOME:-}" ]; then
    java=$JAVA_HOME/bin/java
    java_home=$JAVA_HOME
  else
    java=java
    orchestrate_java_home_on_path "$lib_dir/java-home"
  fi

  # The release file: JAVA_VERSION="17.0.15", JAVA_RUNTIME_VERSION="17.0.15+6-Debian-1deb12u1".
  java_feature=0
  java_version=
  java_release=
  local key value
  if [ -n "$java_home" ] && [ -r "$java_home/release" ]; then
    while IFS='=' read -r key value; do
      value=${value//\"/}
      case $key in
        JAVA_VERSION)
          java_version=$value
          java_feature=${value%%[.+_-]*}
          if [ "$java_feature" = 1 ]; then # 1.8.0_292 is Java 8
            java_feature=${value#1.}
            java_feature=${java_feature%%[.+_-]*}
          fi ;;
        JAVA_RUNTIME_VERSION) java_release=$value ;;
      esac
    done <"$java_home/release"
    [[ $java_feature =~ ^[0-9]+$ ]] || java_feature=0
    [ -n "$java_release" ] || java_release=$java_feature
  fi

  java_opts=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData)
  # One C1 compiler thread: a short command's compilations then take one core, not both, away
  # from the main thread (docs/benchmarks.md). Only with C1 alone: if ORCHESTRATE_JAVA_OPTS
  # changes the compilers (C2 back with TieredStopAtLevel=4), the JVM would refuse a count of 1.
  case " ${ORCHESTRATE_JAVA_OPTS:-} " in
    *TieredStopAtLevel* | *TieredCompilation* | *CICompilerCount*) ;;
    *) java_opts+=(-XX:CICompilerCount=1) ;;
  esac

  # sqlite-jdbc's native library, unpacked at build time (pom.xml), loaded from there instead of
  # being extracted to the temp directory on every start. Its temp directory is that directory too:
  # before loading, sqlite-jdbc sweeps its temp directory for copies earlier processes extracted and
  # left (it lists every entry and checks each copy's lock file), which took 5-10 % of a short
  # command's main thread on a /tmp of 500 entries with other JVMs' copies in it (docs/benchmarks.md).
  # The library directory holds the library alone. It is also where sqlite-jdbc would extract the
  # jar's copy if loading from it failed (a checkout's jar has one, an installed copy's jar none).
  local os_dir= lib= arch=${HOSTTYPE:-}
  case $arch in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
  esac
  case ${OSTYPE:-} in
    linux*)
      os_dir=Linux
      if [[ $OSTYPE == *musl* ]] || [ -e /lib/ld-musl-x86_64.so.1 ] || [ -e /lib/ld-musl-aarch64.so.1 ]; then
        os_dir=Linux-Musl
      fi
      lib=libsqlitejdbc.so ;;
    darwin*) os_dir=Mac lib=libsqlitejdbc.dylib ;;
  esac
  local native=$lib_dir/native/org/sqlite/native/$os_dir/$arch
  if [ -n "$os_dir" ] && [ -f "$native/$lib" ]; then
    java_opts+=("-Dorg.sqlite.lib.path=$native" "-Dorg.sqlite.lib.name=$lib" "-Dorg.sqlite.tmpdir=$native")
  fi

  # The archive: build-cds keeps one per JVM release (it removes an older jar's), so its name's
  # pattern finds it without reading the jar's key (a `stat`); one older than the jar is for a jar
  # since rebuilt, and is not offered.
  archive=
  if [ -n "$java_release" ] && [ -f "$jar" ]; then
    local candidate
    for candidate in "$archive_dir"/orchestrate-*-"java${java_release//[^A-Za-z0-9.-]/_}".{aot,jsa}; do
      if [ -f "$candidate" ] && ! [ "$jar" -nt "$candidate" ]; then
        archive=${candidate%.*}
        break
      fi
    done
  fi
  return 0
}

# orchestrate_archive_name: the name (without extension) of the archive for this jar and this JVM,
# after orchestrate_platform; what bin/build-cds writes. Empty when the JVM's release is unknown.
orchestrate_archive_name() {
  local jar_key=
  if [ -n "$java_release" ] && [ -f "$jar" ]; then
    case ${OSTYPE:-} in
      darwin* | *bsd*) jar_key=$(stat -f '%z-%m' "$jar" 2>/dev/null) || jar_key= ;;
      *) jar_key=$(stat -c '%s-%Y' "$jar" 2>/dev/null) || jar_key= ;;
    esac
  fi
  if [ -n "$jar_key" ]; then
    printf '%s\n' "$archive_dir/orchestrate-$jar_key-java${java_release//[^A-Za-z0-9.-]/_}"
  fi
}

# orchestrate_java_home_on_path NOTE: sets java_home to the home of the java that PATH gives
# (readlink -f of it, less /bin/java), or leaves it empty. The answer is kept in the file NOTE and
# read back while the java PATH gives is still the same file as NOTE's home's bin/java (-ef: the
# same device and inode, through every link; an update or a switch of alternatives changes it) and
# the home's release file is not newer than the note: then no process is started. A note that
# cannot be written, or is torn by a concurrent writer, only costs the readlink again.
orchestrate_java_home_on_path() {
  local note=$1 dir found= noted= on_path globbing=1 IFS=:
  [[ $- != *f* ]] || globbing=
  set -f # PATH's entries as they are, never as patterns
  for dir in $PATH; do
    if [ -f "${dir:-.}/java" ] && [ -x "${dir:-.}/java" ]; then
      found=${dir:-.}/java
      break
    fi
  done
  [ -z "$globbing" ] || set +f
  if [ -n "$found" ] && [ -r "$note" ]; then
    IFS= read -r noted <"$note" || true
    if [ -n "$noted" ] && [ "$found" -ef "$noted/bin/java" ] && ! [ "$noted/release" -nt "$note" ]; then
      java_home=$noted
      return 0
    fi
  fi
  if on_path=$(command -v java) && on_path=$(readlink -f "$on_path" 2>/dev/null); then
    java_home=${on_path%/bin/java}
    { printf '%s\n' "$java_home" >"$note"; } 2>/dev/null || true
  fi
  return 0
}

# orchestrate_run_opts: java_opts for `run` (and a large `memory import`, bin/orchestrate says why):
# C2 back (the C1-only options dropped) and what survives a young collection promoted at once.
orchestrate_run_opts() {
  local c1_only=("${java_opts[@]}") opt
  java_opts=()
  for opt in "${c1_only[@]}"; do
    case $opt in -XX:TieredStopAtLevel=1 | -XX:CICompilerCount=1) ;; *) java_opts+=("$opt") ;; esac
  done
  java_opts+=(-XX:MaxTenuringThreshold=0)
}

# orchestrate_archive_opts [run]: the options that make the JVM use the archive for this jar and
# JVM when one was built, and keep it silent if it still does not fit (the JVM then starts without
# it). Appends to java_opts. With `run`, the run's own archive ($archive-run, bin/build-cds) when
# there is one, else the short commands'.
orchestrate_archive_opts() {
  if [ -z "$archive" ]; then
    return 0
  fi
  local which=$archive
  if [ "${1:-}" = run ] && { [ -f "$archive-run.aot" ] || [ -f "$archive-run.jsa" ]; }; then
    which=$archive-run
  fi
  if [ "$java_feature" -ge 25 ] && [ -f "$which.aot" ]; then
    java_opts+=("-XX:AOTCache=$which.aot" -Xlog:aot=off -Xlog:cds=off)
  elif [ -f "$which.jsa" ]; then
    java_opts+=("-XX:SharedArchiveFile=$which.jsa" -Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off)
  fi
}

# orchestrate_check_java_opts OK_FILE: when the JVM does not start with ORCHESTRATE_JAVA_OPTS,
# says why in one line and exits 2. The launcher execs the JVM, so it cannot read the JVM's own
# three lines afterwards (which end in exit 1, the code of a run that ended badly); instead the
# options are tried once with -version before the first start, and OK_FILE remembers the last
# set that started (with this JVM and these launcher options), read with a builtin: a good
# start costs no process after the first.
orchestrate_check_java_opts() {
  local ok_file=$1 key ok= out line reason= shown
  key="$java ${java_opts[*]} ${ORCHESTRATE_JAVA_OPTS:-}"
  if [ -r "$ok_file" ]; then
    IFS= read -r ok <"$ok_file" || true
  fi
  if [ "$ok" = "$key" ]; then
    return 0
  fi
  # Both streams: some reasons ("Too small maximum heap") come on stdout.
  # shellcheck disable=SC2086 # ORCHESTRATE_JAVA_OPTS is a list of options
  if out=$("$java" "${java_opts[@]}" ${ORCHESTRATE_JAVA_OPTS:-} -version 2>&1); then
    { printf '%s\n' "$key" >"$ok_file"; } 2>/dev/null || true
    return 0
  fi
  while IFS= read -r line; do
    case $line in
      '' | 'Error: Could not create the Java Virtual Machine.' | 'Error: A fatal exception has occurred. Program will exit.' | \
        'Error occurred during initialization of VM') ;;
      *) reason=${reason:+$reason; }$line ;;
    esac
  done <<<"$out"
  shown=${ORCHESTRATE_JAVA_OPTS//[[:cntrl:]]/?}
  echo "orchestrate: error: the JVM does not start with ORCHESTRATE_JAVA_OPTS='$shown': ${reason:-it said nothing}; fix or unset ORCHESTRATE_JAVA_OPTS" >&2
  exit 2
}
