# Sourced by the benchmarks that need PostgreSQL: starts a throwaway server from Debian's package
# (apt-get install postgresql; the binaries in /usr/lib/postgresql/*/bin) on port $port, with its
# data and socket in $work (a temporary directory the caller made), stopped and $work removed at
# exit; run as root, the server runs as the postgres user. Defines as_pg (run as postgres).
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$pgbin/postgres" ] || { echo "needs the PostgreSQL server: apt-get install postgresql" >&2; exit 2; }
chmod 755 "$work"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() { as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir "$work/pg" "$work/sock"
[ "$(id -u)" = 0 ] && chown postgres "$work/pg" "$work/sock"
as_pg "$pgbin/initdb" -D "$work/pg" -U postgres --auth=trust >/dev/null
as_pg "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg/server.log" -o "-p $port -k $work/sock" -w start >/dev/null
