#!/usr/bin/env bash
# The cluster of docker-compose.yml without a container engine: three
# nats-server processes, built from the version in go.mod, started from
# exactly the files compose mounts (config/nats/nats-{1,2,3}.conf, which
# include accounts.conf), on loopback ports, with the same users.
# docs/deploy.md, "The cluster without a container engine".
#
#   scripts/cluster.sh up          build nats-server, start the three nodes, wait until they serve
#   scripts/cluster.sh env         print the LEDGER_NATS_* settings for `ledger` (eval "$(scripts/cluster.sh env)")
#   scripts/cluster.sh status      which nodes run, and their health
#   scripts/cluster.sh kill N      kill -9 node nats-N (a crash)
#   scripts/cluster.sh start N     start node nats-N again, on its store
#   scripts/cluster.sh down        stop every node (SIGTERM); the stores stay
#
# Everything lives in $LEDGER_CLUSTER_DIR (default ./data-cluster): the
# binary, each node's store and log, pid files, and passwords.env (mode
# 0600), made at the first `up` unless LEDGER_NATS_PASSWORD,
# TOOLS_NATS_PASSWORD, ADMIN_NATS_PASSWORD and SYS_NATS_PASSWORD are set.
#
# What differs from compose, each by a nats-server flag on the command line
# (the files are not changed):
#   --addr 127.0.0.1 --port 4222/4223/4224   clients (compose publishes the same ports on 127.0.0.1)
#   --http_port 8222/8223/8224               monitoring (compose: 8222 inside each container; the
#                                            file's host 0.0.0.0 stays: nats-server has no flag for it)
#   --cluster nats://127.0.0.1:6222/6223/6224  routes listen here (compose: 0.0.0.0:6222)
#   --routes nats-route://127.0.0.1:<the other two>   (compose: nats-2:6222 ...)
#   --store_dir $DIR/nats-N/jetstream        (compose: --store_dir /data/jetstream on a volume)
# LEDGER_CLUSTER_BASE_PORT moves the three blocks of ports (default 4222:
# clients 4222-4224, routes +2000, monitoring +4000).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${LEDGER_CLUSTER_DIR:-./data-cluster}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
base="${LEDGER_CLUSTER_BASE_PORT:-4222}"
conf="$root/config/nats"

client_port() { echo $((base + $1 - 1)); }
route_port() { echo $((base + 2000 + $1 - 1)); }
http_port() { echo $((base + 4000 + $1 - 1)); }

version() { (cd "$root" && go list -m -f '{{.Version}}' github.com/nats-io/nats-server/v2); }

binary() {
  local v bin
  v="$(version)"
  bin="$dir/bin/nats-server-$v"
  if [ ! -x "$bin" ]; then
    mkdir -p "$dir/bin"
    echo "building nats-server $v (go.mod) into $bin" >&2
    (cd "$root" && go build -o "$bin" github.com/nats-io/nats-server/v2)
  fi
  echo "$bin"
}

passwords() {
  local f="$dir/passwords.env"
  if [ ! -f "$f" ]; then
    umask 077
    {
      for v in LEDGER_NATS_PASSWORD TOOLS_NATS_PASSWORD ADMIN_NATS_PASSWORD SYS_NATS_PASSWORD; do
        # A letter first, then hex: a shape nats-server reads as a string.
        echo "$v=${!v:-pw$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')}"
      done
    } >"$f"
  fi
  chmod 600 "$f"
  set -a
  # shellcheck disable=SC1090
  . "$f"
  set +a
}

pidfile() { echo "$dir/nats-$1.pid"; }

# running N: nats-N's process exists and is not a zombie waiting to be
# reaped (a killed node whose parent, this script, is gone).
running() {
  local p st
  p="$(pidfile "$1")"
  [ -f "$p" ] || return 1
  st="$(ps -o stat= -p "$(cat "$p")" 2>/dev/null)" || return 1
  [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

healthy() { curl -fsS "http://127.0.0.1:$(http_port "$1")/healthz?js-enabled-only=true" >/dev/null 2>&1; }

start_node() {
  local n=$1 bin routes="" m
  if running "$n"; then
    echo "nats-$n already runs (pid $(cat "$(pidfile "$n")"))"
    return
  fi
  bin="$(binary)"
  passwords
  for m in 1 2 3; do
    [ "$m" = "$n" ] && continue
    routes="${routes:+$routes,}nats-route://127.0.0.1:$(route_port "$m")"
  done
  mkdir -p "$dir/nats-$n/jetstream"
  "$bin" --config "$conf/nats-$n.conf" \
    --addr 127.0.0.1 --port "$(client_port "$n")" \
    --http_port "$(http_port "$n")" \
    --cluster "nats://127.0.0.1:$(route_port "$n")" \
    --routes "$routes" \
    --store_dir "$dir/nats-$n/jetstream" \
    >>"$dir/nats-$n.log" 2>&1 &
  echo $! >"$(pidfile "$n")"
  for _ in $(seq 1 200); do
    if healthy "$n"; then
      echo "nats-$n runs: nats://127.0.0.1:$(client_port "$n") (pid $(cat "$(pidfile "$n")"), log $dir/nats-$n.log)"
      return
    fi
    if ! running "$n"; then
      echo "nats-$n exited; the end of its log:" >&2
      tail -n 20 "$dir/nats-$n.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "nats-$n is not healthy after 20 s (see $dir/nats-$n.log)" >&2
  exit 1
}

url() { echo "nats://127.0.0.1:$(client_port 1),nats://127.0.0.1:$(client_port 2),nats://127.0.0.1:$(client_port 3)"; }

node_arg() {
  case "${1:-}" in
  1 | 2 | 3) echo "$1" ;;
  *) echo "give a node: 1, 2 or 3" >&2; exit 2 ;;
  esac
}

case "${1:-}" in
up)
  for n in 1 2 3; do start_node "$n"; done
  echo
  echo "The ledger on this cluster (each node keeps a copy of every event):"
  echo "  eval \"\$(scripts/cluster.sh env)\"; ./ledger serve"
  ;;
env)
  passwords
  echo "export LEDGER_NATS_URL=$(url)"
  echo "export LEDGER_NATS_USER=ledger"
  echo "export LEDGER_NATS_PASSWORD=$LEDGER_NATS_PASSWORD"
  echo "export LEDGER_NATS_REPLICAS=3"
  ;;
status)
  for n in 1 2 3; do
    if running "$n"; then
      h="not healthy"
      healthy "$n" && h="healthy"
      echo "nats-$n: runs (pid $(cat "$(pidfile "$n")")), $h, nats://127.0.0.1:$(client_port "$n")"
    else
      echo "nats-$n: stopped"
    fi
  done
  ;;
kill)
  n="$(node_arg "${2:-}")"
  if running "$n"; then
    kill -9 "$(cat "$(pidfile "$n")")"
    echo "nats-$n killed (kill -9)"
  else
    echo "nats-$n is not running"
  fi
  ;;
start)
  start_node "$(node_arg "${2:-}")"
  ;;
down)
  for n in 1 2 3; do
    if running "$n"; then
      pid="$(cat "$(pidfile "$n")")"
      kill "$pid"
      for _ in $(seq 1 100); do running "$n" || break; sleep 0.1; done
      echo "nats-$n stopped"
    fi
    rm -f "$(pidfile "$n")"
  done
  ;;
*)
  sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
