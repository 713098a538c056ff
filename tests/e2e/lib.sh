# Shared helpers for tests that run the real collectd daemon with the
# built zvm_monitor.so (POSIX sh; source it, then call e2e_init).
#
#   E2E_BUILD    top build directory (.libs/zvm_monitor.so, contrib/monreader-emu)
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
  E2E_EMU=$E2E_BUILD/contrib/monreader-emu
  E2E_SHIM=$E2E_EMU/.libs/libmonreader-emu.so
  E2E_GEN=$E2E_EMU/zvm-stream-gen
  E2E_CAT=$E2E_EMU/monreader-cat
  E2E_PIDS=
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
  for _e2e_p in $E2E_PIDS; do
    if kill -0 "$_e2e_p" 2>/dev/null; then
      kill -TERM "$_e2e_p" 2>/dev/null
      _e2e_i=0
      while kill -0 "$_e2e_p" 2>/dev/null && [ $_e2e_i -lt 30 ]; do
        sleep 0.1
        _e2e_i=$((_e2e_i + 1))
      done
      kill -KILL "$_e2e_p" 2>/dev/null
    fi
  done
  if [ -n "${E2E_DIR:-}" ]; then
    :
  elif [ -n "${E2E_KEEP:-}" ]; then
    echo "e2e: keeping $E2E_TMP"
  else
    rm -rf "$E2E_TMP"
  fi
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

# e2e_conf DIR [PLUGIN-BLOCK-LINE...]: write DIR/collectd.conf: logfile
# (notifications too) to DIR/collectd.log, csv to DIR/csv, the lines in
# $E2E_EXTRA_PLUGINS (stock plugins), then zvm_monitor from the build
# reading DIR/monreader, with the given lines in its <Plugin> block.
e2e_conf() {
  _e2e_dir=$1
  shift
  mkdir -p "$_e2e_dir"
  cat >"$_e2e_dir/collectd.conf" <<CONF
Hostname "zvmtest"
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
LoadPlugin zvm_monitor
<Plugin zvm_monitor>
  Device "$_e2e_dir/monreader"
CONF
  for _e2e_line in "$@"; do echo "  $_e2e_line" >>"$_e2e_dir/collectd.conf"; done
  echo "</Plugin>" >>"$_e2e_dir/collectd.conf"
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
