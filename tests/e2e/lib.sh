# SPDX-License-Identifier: MIT
# Shared helpers for tests that run the real collectd daemon with the
# built zvm_monitor.so (POSIX sh; source it, then call e2e_init).
#
#   E2E_BUILD    top build directory (.libs/zvm_monitor.so, tests/rig)
#   COLLECTD_DAEMON    the daemon (default /usr/sbin/collectd); its stock
#                      plugins and types.db are taken from the same tree
#                      (ROOT/usr/lib/collectd, ROOT/usr/share/collectd)
#   COLLECTD_PLUGIN_DIR, COLLECTD_TYPESDB   overrides for those two
#   E2E_EXEC_WRAPPER   runs every program built for the target (daemon,
#                      generator, monreader-cat): empty natively; a qemu-user
#                      binary (qemu-s390x) for the s390x build, which gets
#                      LD_PRELOAD as "-E LD_PRELOAD=..." (see e2e_exec)
#   E2E_DIR      a new or empty directory to keep every scenario's files in
#                (default: a temporary one, removed at exit unless E2E_KEEP=1)
#   E2E_NOW      wall-clock seconds scenarios stamp streams with (e2e_now;
#                default: when e2e_init ran; kept in E2E_DIR/e2e-now): two
#                runs given the same E2E_NOW write the same values
#   ZVM_ASAN_RUNTIME   set by the sanitizer stage: preloaded before the shim
#   E2E_PROMETHEUS     the Prometheus server (default: prometheus in PATH;
#                      tests/e2e/check-ci-skip.sh points it nowhere)
#
# Every process started with e2e_bg is remembered and killed by its PID
# when the shell exits, whatever the reason. Internal variables are named
# _e2e_* so that callers' variables survive.

e2e_init() {
  E2E_DAEMON=${COLLECTD_DAEMON:-/usr/sbin/collectd}
  # /usr/sbin/collectd -> /usr; SYSROOT/usr/sbin/collectd -> SYSROOT/usr
  _e2e_usr=$(dirname "$(dirname "$E2E_DAEMON")")
  E2E_STOCK=${COLLECTD_PLUGIN_DIR:-$_e2e_usr/lib/collectd}
  E2E_TYPESDB=${COLLECTD_TYPESDB:-$_e2e_usr/share/collectd/types.db}
  E2E_LIBS=$E2E_BUILD/.libs
  E2E_EMU=$E2E_BUILD/tests/rig
  E2E_SHIM=$E2E_EMU/.libs/libmonreader-emu.so
  E2E_GEN=$E2E_EMU/zvm-stream-gen
  E2E_CAT=$E2E_EMU/monreader-cat
  E2E_PROMETHEUS=${E2E_PROMETHEUS:-prometheus}
  E2E_PIDS=
  E2E_SCENARIO_PIDS=
  if [ -n "${E2E_DIR:-}" ]; then
    mkdir -p "$E2E_DIR" && [ -z "$(ls -A "$E2E_DIR")" ] ||
      { echo "e2e: E2E_DIR $E2E_DIR must be a new or empty directory"; exit 2; }
    E2E_TMP=$(cd "$E2E_DIR" && pwd)
  else
    E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/zvm-e2e.XXXXXX")
  fi
  # one wall clock for the whole run, kept with its output
  E2E_NOW=${E2E_NOW:-$(date +%s)}
  echo "$E2E_NOW" >"$E2E_TMP/e2e-now"
  trap e2e_cleanup EXIT
  trap 'exit 130' HUP INT TERM
  trap 'exit 141' PIPE
}

e2e_cleanup() {
  # scenarios under way (e2e_scenarios): each stops what it started
  for _e2e_p in $E2E_SCENARIO_PIDS; do kill -TERM "$_e2e_p" 2>/dev/null || true; done
  for _e2e_p in $E2E_SCENARIO_PIDS; do wait "$_e2e_p" 2>/dev/null || true; done
  e2e_cleanup_pids
  if [ -n "${E2E_DIR:-}" ]; then
    :
  elif [ -n "${E2E_KEEP:-}" ]; then
    echo "e2e: keeping $E2E_TMP"
  else
    rm -rf "$E2E_TMP"
  fi
}

# e2e_cleanup_pids: stop every process e2e_bg started here and has not
# stopped (SIGTERM, SIGKILL after 5 s).
e2e_cleanup_pids() {
  for _e2e_left in $E2E_PIDS; do e2e_stop "$_e2e_left" 5 || true; done
}

# e2e_bg OUTFILE COMMAND [ARG...]: start a background process, remember
# its PID in $E2E_PID and in the list the exit trap kills.
e2e_bg() {
  _e2e_out=$1
  shift
  "$@" >"$_e2e_out" 2>&1 &
  E2E_PID=$!
  E2E_PIDS="$E2E_PIDS $E2E_PID"
}

# e2e_forget PID: a process that has been stopped and reaped.
e2e_forget() {
  _e2e_rest=
  for _e2e_p in $E2E_PIDS; do [ "$_e2e_p" = "$1" ] || _e2e_rest="$_e2e_rest $_e2e_p"; done
  E2E_PIDS=$_e2e_rest
}

# e2e_wait SECONDS COMMAND [ARG...]: run COMMAND every 0.2 s until it
# succeeds; fails once SECONDS (wall clock) have passed.
e2e_wait() {
  _e2e_deadline=$(($(date +%s) + $1))
  shift
  until "$@"; do
    [ "$(date +%s)" -lt "$_e2e_deadline" ] || return 1
    sleep 0.2
  done
}

# e2e_stop PID [SECONDS]: SIGTERM, wait until it is gone (10 s by default),
# then SIGKILL and fail.
e2e_stop() {
  kill -TERM "$1" 2>/dev/null || true
  _e2e_i=0
  while kill -0 "$1" 2>/dev/null; do
    if [ $_e2e_i -ge $((${2:-10} * 10)) ]; then
      kill -KILL "$1" 2>/dev/null
      wait "$1" 2>/dev/null
      e2e_forget "$1"
      return 1
    fi
    sleep 0.1
    _e2e_i=$((_e2e_i + 1))
  done
  wait "$1" 2>/dev/null
  e2e_forget "$1"
  return 0
}

# e2e_collectd_conf DIR HOST PLUGIN [PLUGIN-BLOCK-LINE...]: write
# DIR/collectd.conf for a daemon named HOST: logfile (notifications too)
# to DIR/collectd.log, csv to DIR/csv, the lines in $E2E_EXTRA_PLUGINS
# (stock plugins), then PLUGIN from the build with the given lines in its
# <Plugin> block.
e2e_collectd_conf() {
  _e2e_dir=$1
  _e2e_plugin=$3
  mkdir -p "$_e2e_dir"
  cat >"$_e2e_dir/collectd.conf" <<CONF
Hostname "$2"
FQDNLookup false
BaseDir "$_e2e_dir"
PIDFile "$_e2e_dir/collectd.pid"
Interval 1
TypesDB "$E2E_TYPESDB"
PluginDir "$E2E_STOCK"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$_e2e_dir/collectd.log"
  Timestamp true
  PrintSeverity true
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$_e2e_dir/csv"
  StoreRates false
</Plugin>
${E2E_EXTRA_PLUGINS:-}
PluginDir "$E2E_LIBS"
LoadPlugin $_e2e_plugin
<Plugin $_e2e_plugin>
CONF
  shift 3
  for _e2e_line in "$@"; do echo "  $_e2e_line" >>"$_e2e_dir/collectd.conf"; done
  echo "</Plugin>" >>"$_e2e_dir/collectd.conf"
}

# e2e_conf DIR [PLUGIN-BLOCK-LINE...]: e2e_collectd_conf for zvm_monitor
# (host zvmtest) reading DIR/monreader.
e2e_conf() {
  _e2e_dir=$1
  shift
  e2e_collectd_conf "$_e2e_dir" zvmtest zvm_monitor "Device \"$_e2e_dir/monreader\"" "$@"
}

# e2e_preload: LD_PRELOAD value for the daemon (ASan runtime first when the
# plugin was built with it).
e2e_preload() {
  if [ -n "${ZVM_ASAN_RUNTIME:-}" ]; then
    echo "$ZVM_ASAN_RUNTIME $E2E_SHIM"
  else
    echo "$E2E_SHIM"
  fi
}

# e2e_collectd DIR SCENARIO [ENV=VALUE...]: collectd -f with DIR's
# configuration and the emulated device (DIR/monreader) playing SCENARIO
# once; PID in $E2E_PID, stdout/stderr in DIR/collectd.out.
e2e_collectd() {
  _e2e_dir=$1
  _e2e_scn=$2
  shift 2
  e2e_bg "$_e2e_dir/collectd.out" e2e_exec TZ=UTC ASAN_OPTIONS=detect_leaks=0 \
    LD_PRELOAD="$(e2e_preload)" \
    MONREADER_EMU_DEVICE="$_e2e_dir/monreader" MONREADER_EMU_SCENARIO="$_e2e_scn" \
    MONREADER_EMU_LOOP=1 "$@" "$E2E_DAEMON" -f -C "$_e2e_dir/collectd.conf"
}

# e2e_exec [-t SECONDS] [VAR=VALUE...] PROGRAM [ARG...]: run a program
# built for the target (the daemon, zvm-stream-gen, monreader-cat, ...) with
# VAR=VALUE in its environment, like env(1); -t: killed after SECONDS
# (timeout(1), exit status 124). With E2E_EXEC_WRAPPER (qemu-s390x) the
# wrapper runs it, and LD_PRELOAD goes to the emulated program (qemu's -E),
# never to the emulator. It replaces the shell: use it as e2e_bg's command
# or in a subshell: (e2e_exec "$E2E_GEN" ARGS).
e2e_exec() {
  _e2e_timeout=
  if [ "${1:-}" = -t ]; then
    _e2e_timeout="timeout $2"
    shift 2
  fi
  # shellcheck disable=SC2086
  [ -n "${E2E_EXEC_WRAPPER:-}" ] || exec $_e2e_timeout env "$@"
  # Rebuild "$@" in place: VAR=VALUE... WRAPPER [-E LD_PRELOAD=...] PROGRAM ARG...
  _e2e_n=$#
  _e2e_pre=
  _e2e_prog=
  while [ "$_e2e_n" -gt 0 ]; do
    _e2e_a=$1
    shift
    _e2e_n=$((_e2e_n - 1))
    if [ -n "$_e2e_prog" ]; then
      set -- "$@" "$_e2e_a"
      continue
    fi
    case $_e2e_a in
    LD_PRELOAD=*) _e2e_pre=${_e2e_a#LD_PRELOAD=} ;;
    *=*) set -- "$@" "$_e2e_a" ;;
    *)
      _e2e_prog=1
      # shellcheck disable=SC2086
      set -- "$@" $E2E_EXEC_WRAPPER
      [ -z "$_e2e_pre" ] || set -- "$@" -E "LD_PRELOAD=$_e2e_pre"
      set -- "$@" "$_e2e_a"
      ;;
    esac
  done
  # shellcheck disable=SC2086
  exec $_e2e_timeout env "$@"
}

# e2e_run [-t SECONDS] [VAR=VALUE...] PROGRAM [ARG...]: e2e_exec in a
# subshell, for the foreground (its exit status is the program's).
e2e_run() { (e2e_exec "$@"); }

# e2e_now: the wall-clock second streams are stamped from (E2E_NOW).
e2e_now() { echo "${E2E_NOW:-$(date +%s)}"; }

# e2e_free_port: a TCP port on 127.0.0.1 nobody listens on right now.
e2e_free_port() {
  "${PYTHON:-python3}" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# e2e_free_udp_port: a UDP port on 127.0.0.1 nobody uses right now.
e2e_free_udp_port() {
  "${PYTHON:-python3}" -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# ---------------------------------------------------------------------------
# Real back ends on 127.0.0.1, free ports, everything under DIR. Each
# returns non-zero (its output in DIR/*.out) when it does not come up.

# e2e_start_carbon DIR: carbon-cache keeping 1 s points for an hour.
# Sets E2E_CARBON_PORT (line receiver), E2E_CARBON_PID, E2E_WHISPER.
e2e_start_carbon() {
  _e2e_c=$1
  E2E_WHISPER=$_e2e_c/storage/whisper
  mkdir -p "$E2E_WHISPER" "$_e2e_c/log" "$_e2e_c/lib"
  E2E_CARBON_PORT=$(e2e_free_port) && _e2e_pp=$(e2e_free_port) && _e2e_qp=$(e2e_free_port) || return 1
  cat >"$_e2e_c/carbon.conf" <<CONF
[cache]
STORAGE_DIR = $_e2e_c/storage
LOCAL_DATA_DIR = $E2E_WHISPER
WHITELISTS_DIR = $_e2e_c/lib
LOG_DIR = $_e2e_c/log
PID_DIR = $_e2e_c
USER =
MAX_CACHE_SIZE = inf
MAX_UPDATES_PER_SECOND = inf
MAX_CREATES_PER_MINUTE = inf
WHISPER_AUTOFLUSH = True
LINE_RECEIVER_INTERFACE = 127.0.0.1
LINE_RECEIVER_PORT = $E2E_CARBON_PORT
ENABLE_UDP_LISTENER = False
PICKLE_RECEIVER_INTERFACE = 127.0.0.1
PICKLE_RECEIVER_PORT = $_e2e_pp
CACHE_QUERY_INTERFACE = 127.0.0.1
CACHE_QUERY_PORT = $_e2e_qp
ENABLE_MANHOLE = False
LOG_LISTENER_CONNECTIONS = False
LOG_UPDATES = False
LOG_CREATES = False
CONF
  cat >"$_e2e_c/storage-schemas.conf" <<CONF
[collectd]
pattern = ^collectd\.
retentions = 1s:1h,1m:1d

[default]
pattern = .*
retentions = 1s:1h
CONF
  e2e_bg "$_e2e_c/carbon.out" carbon-cache --config="$_e2e_c/carbon.conf" \
    --pidfile="$_e2e_c/carbon.pid" --logdir="$_e2e_c/log" --nodaemon start
  E2E_CARBON_PID=$E2E_PID
  e2e_wait 20 "${PYTHON:-python3}" -c "import socket; socket.create_connection(('127.0.0.1', $E2E_CARBON_PORT), 1)" 2>/dev/null
}

# e2e_start_influxdb DIR TYPESDB: InfluxDB 1.x with a collectd listener
# (database "collectd"; TYPESDB: a types.db file or a directory of them).
# Sets E2E_INFLUX_HTTP (query port), E2E_INFLUX_UDP (listener), E2E_INFLUX_PID.
e2e_start_influxdb() {
  _e2e_idir=$1
  mkdir -p "$_e2e_idir/meta" "$_e2e_idir/data" "$_e2e_idir/wal"
  E2E_INFLUX_HTTP=$(e2e_free_port) && _e2e_rp=$(e2e_free_port) &&
    E2E_INFLUX_UDP=$(e2e_free_udp_port) || return 1
  cat >"$_e2e_idir/influxdb.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$_e2e_rp"
[meta]
  dir = "$_e2e_idir/meta"
[data]
  dir = "$_e2e_idir/data"
  wal-dir = "$_e2e_idir/wal"
  query-log-enabled = false
[http]
  enabled = true
  bind-address = "127.0.0.1:$E2E_INFLUX_HTTP"
  log-enabled = false
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
[subscriber]
  enabled = false
[[collectd]]
  enabled = true
  bind-address = "127.0.0.1:$E2E_INFLUX_UDP"
  database = "collectd"
  typesdb = "$2"
  batch-size = 100
  batch-timeout = "200ms"
CONF
  e2e_bg "$_e2e_idir/influxd.out" influxd run -config "$_e2e_idir/influxdb.conf"
  E2E_INFLUX_PID=$E2E_PID
  e2e_wait 30 curl -sf -o /dev/null "http://127.0.0.1:$E2E_INFLUX_HTTP/ping"
}

# e2e_start_graphite_web DIR WHISPER_DIR: graphite-web (Django's server,
# Debian's /usr/bin/python3) reading WHISPER_DIR, for its render and
# metrics/find APIs. Sets E2E_GRAPHITE_WEB (port), E2E_GRAPHITE_WEB_PID.
e2e_start_graphite_web() {
  _e2e_g=$1
  mkdir -p "$_e2e_g/log"
  E2E_GRAPHITE_WEB=$(e2e_free_port) || return 1
  cat >"$_e2e_g/zvm_graphite_settings.py" <<CONF
SECRET_KEY = 'zvm-monitor-test'
STORAGE_DIR = '$_e2e_g'
WHISPER_DIR = '$2'
STANDARD_DIRS = ['$2']
LOG_DIR = '$_e2e_g/log'
INDEX_FILE = '$_e2e_g/index'
CARBONLINK_HOSTS = []
DATABASES = {'default': {'NAME': '$_e2e_g/graphite.db', 'ENGINE': 'django.db.backends.sqlite3'}}
CONF
  # Its views want the (sqlite) user tables even for anonymous requests.
  env PYTHONPATH="$_e2e_g" GRAPHITE_SETTINGS_MODULE=zvm_graphite_settings \
    DJANGO_SETTINGS_MODULE=graphite.settings /usr/bin/python3 -m django migrate \
    --run-syncdb -v0 >"$_e2e_g/migrate.out" 2>&1 || return 1
  e2e_bg "$_e2e_g/graphite-web.out" env PYTHONPATH="$_e2e_g" \
    GRAPHITE_SETTINGS_MODULE=zvm_graphite_settings DJANGO_SETTINGS_MODULE=graphite.settings \
    /usr/bin/python3 -m django runserver "127.0.0.1:$E2E_GRAPHITE_WEB" --noreload
  E2E_GRAPHITE_WEB_PID=$E2E_PID
  e2e_wait 30 curl -sf -o /dev/null "http://127.0.0.1:$E2E_GRAPHITE_WEB/metrics/find?query=*"
}

# e2e_start_prometheus DIR TARGET: a Prometheus server scraping TARGET
# (host:port of collectd's write_prometheus) every second, keeping
# collectd's "instance" label (the host name; honor_labels).
# Sets E2E_PROM_PORT, E2E_PROM_PID.
e2e_start_prometheus() {
  _e2e_p=$1
  mkdir -p "$_e2e_p/data"
  E2E_PROM_PORT=$(e2e_free_port) || return 1
  cat >"$_e2e_p/prometheus.yml" <<CONF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: collectd
    honor_labels: true
    static_configs:
      - targets: ['$2']
CONF
  e2e_bg "$_e2e_p/prometheus.out" "${E2E_PROMETHEUS:-prometheus}" --config.file="$_e2e_p/prometheus.yml" \
    --storage.tsdb.path="$_e2e_p/data" --web.listen-address="127.0.0.1:$E2E_PROM_PORT"
  E2E_PROM_PID=$E2E_PID
  e2e_wait 30 curl -sf -o /dev/null "http://127.0.0.1:$E2E_PROM_PORT/-/ready" || return 1
  # Its discovery hands the target to the scraper only after a few seconds:
  # wait for the first scrape (collectd not up yet: health "down"), or the
  # first values collectd serves could go unseen.
  e2e_wait 30 sh -c 'curl -sf "$1" | grep -q "\"health\":\"\(up\|down\)\""' sh \
    "http://127.0.0.1:$E2E_PROM_PORT/api/v1/targets"
}

# e2e_write_graphite_conf PORT: collectd.conf lines sending every value to
# carbon on 127.0.0.1:PORT (paths collectd.HOST.PLUGIN-PI.TYPE-TI[.DS]).
e2e_write_graphite_conf() {
  cat <<CONF
<LoadPlugin write_graphite>
  FlushInterval 1
</LoadPlugin>
<Plugin write_graphite>
  <Node "carbon">
    Host "127.0.0.1"
    Port "$1"
    Protocol "tcp"
    Prefix "collectd."
    StoreRates false
    AlwaysAppendDS false
    SeparateInstances false
  </Node>
</Plugin>
CONF
}

# e2e_network_conf PORT: collectd.conf lines sending every value to the
# collectd listener (InfluxDB's) on 127.0.0.1:PORT (UDP).
e2e_network_conf() {
  cat <<CONF
<LoadPlugin network>
  FlushInterval 1
</LoadPlugin>
<Plugin network>
  Server "127.0.0.1" "$1"
</Plugin>
CONF
}

# ---------------------------------------------------------------------------
# Scenarios. A driver (tests/e2e/run.sh, tests/hypfs/e2e.sh) sources
# tests/lib.sh too (zvm_ci, zvm_unexplained_skips) and defines sc_NAME
# functions: each writes what it checked into $SC_LOG (say, fail) and
# returns 0 (passed), 77 (skipped, with a "SKIP: ... (PACKAGE)" or
# "SKIP(not-applicable): REASON" line: tests/lib.sh, "Skipped tests") or
# anything else (failed).

# say LINE: a line in the scenario's log.
say() { echo "$*" >>"$SC_LOG"; }
# fail MESSAGE: note why the scenario failed (the scenario then returns 1).
fail() {
  say "FAIL: $*"
  return 1
}

# e2e_scenario_influxdb DIR TYPES-FILE...: a scenario's InfluxDB under DIR
# (e2e_start_influxdb), its collectd listener knowing collectd's types.db
# and the TYPES-FILEs. Returns 77 after a SKIP line when influxd or curl is
# not installed, 1 after a FAIL line when it does not answer.
e2e_scenario_influxdb() {
  _e2e_idir=$1
  shift
  for _e2e_cmd in influxd curl; do
    command -v "$_e2e_cmd" >/dev/null 2>&1 || {
      say "SKIP: influxd/curl not installed (influxdb influxdb-client curl)"
      return 77
    }
  done
  mkdir -p "$_e2e_idir/typesdb"
  cp "$E2E_TYPESDB" "$_e2e_idir/typesdb/types.db"
  for _e2e_types in "$@"; do cp "$_e2e_types" "$_e2e_idir/typesdb/"; done
  e2e_start_influxdb "$_e2e_idir" "$_e2e_idir/typesdb" || {
    tail -n 20 "$_e2e_idir/influxd.out" >>"$SC_LOG"
    fail "influxd not answering on 127.0.0.1:$E2E_INFLUX_HTTP"
    return 1
  }
}

# e2e_scenarios LABEL NAME...: sc_NAME for each NAME, in $D ($E2E_TMP/NAME)
# with its log $SC_LOG; what it started and left running is stopped. One
# line a scenario, PASS/FAIL/SKIP and "LABEL NAME" (NAME alone where LABEL
# is empty), with its log after a failure (every log with E2E_VERBOSE=1);
# then "LABEL e2e: N s" and the line tests/run and CI read, "N passed, N
# failed, N skipped". A skip for want of a package fails under CI and is a
# loud SKIP elsewhere. Returns 0 when none failed.
#
# Scenarios are independent (each its own directory, daemons, free ports),
# and most of their time is waiting for a daemon to settle, so E2E_JOBS of
# them run at once (default 3; 2 under an emulator, E2E_EXEC_WRAPPER, where
# each daemon keeps a CPU busy), each in a subshell of its own; the lines
# come in the order of the list. The scenarios named in E2E_ALONE measure
# CPU time against an idle daemon or time a stop, so they run after the
# others, one at a time (E2E_JOBS=1: all one after another, as before);
# tests/e2e/run.sh adds those whose file says "# e2e: alone".
E2E_ALONE=${E2E_ALONE:-}
e2e_scenarios() {
  _e2e_label=${1:+$1 }
  shift
  _e2e_passed=0
  _e2e_failed=0
  _e2e_skipped=0
  _e2e_t_all=$(date +%s)
  _e2e_jobs=${E2E_JOBS:-3}
  [ -z "${E2E_EXEC_WRAPPER:-}" ] || _e2e_jobs=${E2E_JOBS:-2}
  _e2e_together=
  _e2e_alone=
  for _e2e_name in "$@"; do
    case " $E2E_ALONE " in
    *" $_e2e_name "*) _e2e_alone="$_e2e_alone $_e2e_name" ;;
    *) _e2e_together="$_e2e_together $_e2e_name" ;;
    esac
  done
  # "PID:NAME" of the scenarios under way, oldest first
  _e2e_running=
  for _e2e_name in $_e2e_together; do
    # shellcheck disable=SC2086
    while [ "$(echo $_e2e_running | wc -w)" -ge "$_e2e_jobs" ]; do
      _e2e_collect_oldest
    done
    _e2e_start "$_e2e_name"
  done
  while [ -n "$_e2e_running" ]; do _e2e_collect_oldest; done
  for _e2e_name in $_e2e_alone; do
    _e2e_start "$_e2e_name"
    _e2e_collect_oldest
  done
  if [ $_e2e_skipped -gt 0 ]; then
    echo "${_e2e_label}e2e: $(($(date +%s) - _e2e_t_all)) s, $_e2e_skipped scenario(s) SKIPPED (see above)"
  else
    echo "${_e2e_label}e2e: $(($(date +%s) - _e2e_t_all)) s"
  fi
  echo "$_e2e_passed passed, $_e2e_failed failed, $_e2e_skipped skipped"
  [ $_e2e_failed -eq 0 ]
}

# _e2e_start NAME: sc_NAME in a subshell of its own, in the background; it
# leaves its status and time in $D/.e2e-result and what it printed in
# $D/.e2e-out. It stops what it started, also when it is killed.
_e2e_start() {
  D=$E2E_TMP/$1
  mkdir -p "$D"
  SC_LOG=$D/scenario.log
  : >"$SC_LOG"
  rm -f "$D/.e2e-result"
  (
    # where the result goes: a scenario may change D (a second directory)
    _e2e_result=$D/.e2e-result
    E2E_PIDS=
    trap 'e2e_cleanup_pids' EXIT
    trap 'exit 143' TERM
    trap 'exit 130' HUP INT
    _e2e_t0=$(date +%s)
    "sc_$1"
    _e2e_rc=$?
    e2e_cleanup_pids
    echo "$_e2e_rc $(($(date +%s) - _e2e_t0))" >"$_e2e_result"
  ) >"$D/.e2e-out" 2>&1 &
  _e2e_running="$_e2e_running $!:$1"
  E2E_SCENARIO_PIDS="$E2E_SCENARIO_PIDS $!"
}

# _e2e_collect_oldest: wait for the oldest scenario under way, print its
# line (and its log where it says so) and count it.
_e2e_collect_oldest() {
  # shellcheck disable=SC2086
  set -- $_e2e_running
  _e2e_pid=${1%%:*}
  _e2e_done=${1#*:}
  shift
  _e2e_running="$*"
  wait "$_e2e_pid" 2>/dev/null
  _e2e_rest=
  for _e2e_p in $E2E_SCENARIO_PIDS; do [ "$_e2e_p" = "$_e2e_pid" ] || _e2e_rest="$_e2e_rest $_e2e_p"; done
  E2E_SCENARIO_PIDS=$_e2e_rest
  _e2e_what=$_e2e_label$_e2e_done
  D=$E2E_TMP/$_e2e_done
  SC_LOG=$D/scenario.log
  # what the scenario printed outside its log (normally nothing)
  [ ! -s "$D/.e2e-out" ] || cat "$D/.e2e-out" >>"$SC_LOG"
  if [ -s "$D/.e2e-result" ]; then
    read -r _e2e_rc _e2e_dt <"$D/.e2e-result"
  else
    _e2e_rc=1
    _e2e_dt=?
    say "FAIL: the scenario's shell ended without a result"
  fi
  rm -f "$D/.e2e-result" "$D/.e2e-out"
  # skips for want of a package (a "SKIP:" line, or 77 without a
  # "SKIP(not-applicable):" line): failures under CI
  _e2e_unexplained=
  [ "$_e2e_rc" -ne 0 ] && [ "$_e2e_rc" -ne 77 ] ||
    _e2e_unexplained=$(zvm_unexplained_skips "$SC_LOG" "$_e2e_rc")
  if [ -n "$_e2e_unexplained" ] && zvm_ci; then
    _e2e_failed=$((_e2e_failed + 1))
    echo "FAIL: $_e2e_what (${_e2e_dt} s): skipped under CI, where every stage installs what it uses (tests/lib.sh):"
    echo "$_e2e_unexplained" | sed 's/^/    /'
  elif [ "$_e2e_rc" -eq 77 ]; then
    _e2e_skipped=$((_e2e_skipped + 1))
    if [ -n "$_e2e_unexplained" ]; then
      echo "SKIP: $_e2e_what"
      echo "!!!!!!!! $_e2e_what SKIPPED (a failure under CI=true): $(echo "$_e2e_unexplained" | tr '\n' ' ')!!!!!!!!"
    else
      echo "SKIP: $_e2e_what ($(zvm_not_applicable "$SC_LOG" | head -n 1))"
    fi
  elif [ "$_e2e_rc" -eq 0 ]; then
    _e2e_passed=$((_e2e_passed + 1))
    echo "PASS: $_e2e_what (${_e2e_dt} s)"
    [ -z "$_e2e_unexplained" ] ||
      echo "!!!!!!!! $_e2e_what partly SKIPPED (a failure under CI=true): $(echo "$_e2e_unexplained" | tr '\n' ' ')!!!!!!!!"
    zvm_not_applicable "$SC_LOG" | sed 's/^/    /'
    [ -z "${E2E_VERBOSE:-}" ] || sed 's/^/    /' "$SC_LOG"
  else
    _e2e_failed=$((_e2e_failed + 1))
    echo "FAIL: $_e2e_what (${_e2e_dt} s)"
    sed 's/^/    /' "$SC_LOG"
    [ -z "${E2E_KEEP:-}${E2E_DIR:-}" ] && echo "    (E2E_KEEP=1 keeps $D)"
  fi
}
