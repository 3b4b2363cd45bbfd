#!/usr/bin/env bash
# A PostgreSQL server on this machine for the shared store's benchmarks: a
# cluster in DIR, listening only on a Unix socket in DIR, run as postgres
# when started by root (the server refuses root). Default settings (fsync
# on): what a team's server would run.
# Usage: tools/bench/local-postgres.sh start DIR   # prints the store's URI
#        tools/bench/local-postgres.sh stop DIR
set -euo pipefail
action=$1 dir=$(realpath -m "$2")
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as=()
if [ "$(id -u)" -eq 0 ]; then as=(runuser -u postgres --); fi
case "$action" in
  start)
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    [ -d "$dir/data" ] || "${as[@]}" "$bin/initdb" -D "$dir/data" -U mlgo --auth=trust --encoding=UTF8 --locale=C \
      > "$dir/initdb.log"
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir'" > /dev/null
    echo "postgresql://mlgo@/postgres?host=$dir" ;;
  stop) "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop > /dev/null ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
