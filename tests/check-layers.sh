#!/bin/sh
# SPDX-License-Identifier: MIT
# The plugin's layers depend one way (README.md, "Layout"):
#
#   base <- format <- engine <- appldata <- records <- config <- mapper <- glue
#   format <- io <- glue
#
# base (top-level base/, headers in include/base/) is what every plugin
# and tool stands on; it includes nothing above it, and collectd only in its
# glue part (base/glue/, include/base/collectd.h, which counts as collectd's
# for whoever includes it). The companion plugins (hypfs/, dmstats/ and
# their include/ headers) may include the base and the format layer (EBCDIC
# names), nothing else of plugin/; collectd in their glue only.
#
# The test rig (tests/rig/: the stream generator, the emulated device, the
# unit tests' builder, the hypfs generator and their one writer of monitor
# bytes) writes data independently of the decoder: it includes the base
# only (output files, command lines). Its self-tests (tests/rig/test-*.c)
# check the generator with the decoder: up to the built-in records, never
# the configuration, the mapper, I/O, the glue or collectd.
#
# (config is above the records but includes nothing of them nor of
# appldata: whoever composes the registry, the glue, hands it the built-in
# records, and a record's own options are rows its descriptor carries.)
#
# Every #include "..." of a source or header under plugin/<layer>/ and of
# a public header in include/zvm_monitor/ (which belongs to the layer named
# below) must name a header of the same or a lower layer; collectd's
# headers are included by the glue only. Fails, naming the file and the
# include, on an upward or sideways include.
#
# The unit tests stand where the code does: a test under tests/unit/<layer>/
# may include its layer and the layers below it in the line above (a
# config test may compose the built-in records as the glue does; a mapper
# test, the records and the configuration), plus the test support
# (tests/unit/support/, whose headers are held to the including test's
# layer in turn), the test-data builder (tests/rig/builder.h) and cmocka. The glue's
# test sees every layer and collectd's headers; the tools' tests every
# library layer and the tools' own headers; a companion's test its plugin,
# the base and format.
set -u
top=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 99

# The layer of a public header (include/zvm_monitor/NAME.h).
public_layer() {
  case $1 in
  be | decode) echo format ;;
  records | field | registry | recwalk | typesdb | value) echo engine ;;
  builtin) echo records ;;
  conf | recconf | recconf_text) echo config ;;
  mapper | timerule | values) echo mapper ;;
  reader | events | capture | replay | setqueue) echo io ;;
  health) echo format ;; # shared by io (the reader) and mapper
  *) echo unknown ;;
  esac
}

# The layers a layer may include.
allowed() {
  case $1 in
  base) echo "base" ;;
  # The collectd side of the base, compiled into each plugin's glue.
  base-glue) echo "base collectd" ;;
  format) echo "base format" ;;
  engine) echo "base format engine" ;;
  appldata) echo "base format engine appldata" ;;
  records) echo "base format engine appldata records" ;;
  config) echo "base format engine config" ;;
  mapper) echo "base format engine appldata records config mapper" ;;
  io) echo "base format io" ;;
  glue) echo "base format engine appldata records config mapper io glue collectd" ;;
  # The companion plugins: the base and zvm_monitor's names (format), none
  # of its other layers; collectd in their glue only.
  hypfs) echo "base format hypfs" ;;
  hypfs-glue) echo "base format hypfs collectd" ;;
  dmstats) echo "base format dmstats" ;;
  dmstats-glue) echo "base format dmstats collectd" ;;
  # The unit tests (tests/unit/<layer>/): the layer and all below it.
  unit-base) echo "base" ;;
  unit-format) echo "base format" ;;
  unit-engine) echo "base format engine" ;;
  unit-appldata) echo "base format engine appldata" ;;
  unit-records) echo "base format engine appldata records" ;;
  unit-config) echo "base format engine appldata records config" ;;
  unit-mapper) echo "base format engine appldata records config mapper" ;;
  unit-io) echo "base format io" ;;
  unit-glue) echo "base format engine appldata records config mapper io glue collectd" ;;
  unit-tools) echo "base format engine appldata records config mapper io tools" ;;
  unit-hypfs) echo "base format hypfs" ;;
  unit-dmstats) echo "base format dmstats" ;;
  # The test rig: its writers, and its self-tests against the decoder.
  rig) echo "base" ;;
  rig-test) echo "base format engine appldata records" ;;
  *) echo "" ;;
  esac
}

bad=0
checked=0
check_file() { # FILE LAYER [VIA]
  ok=$(allowed "$2")
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"); do
    case $2 in
    unit-*) # a unit test or its support: the builder, the support headers
      case $inc in
      builder.h) continue ;;
      */*) ;;
      *)
        if [ -e "tests/unit/support/$inc" ]; then
          # held to the test's layer, named with the chain that reached it
          check_file "tests/unit/support/$inc" "$2" "${3:-}$1 -> "
          checked=$((checked - 1))
          continue
        fi ;;
      esac ;;
    esac
    case $inc in
    zvm_config.h) continue ;;
    ../tools/*.h) to=tools ;;
    collectd/* | base/collectd.h) to=collectd ;;
    zvm_monitor/*.h)
      to=$(public_layer "$(basename "$inc" .h)") ;;
    */*) to=${inc%%/*} ;;
    *) # a header beside the file
      [ -e "$(dirname "$1")/$inc" ] && continue
      to=unknown ;;
    esac
    case " $ok " in
    *" $to "*) ;;
    *)
      echo "FAIL: ${3:-}$1 ($2) includes \"$inc\" ($to)"
      bad=$((bad + 1)) ;;
    esac
  done
  checked=$((checked + 1))
}

for f in plugin/*/*.c plugin/*/*.h; do
  [ -e "$f" ] || continue
  layer=${f#plugin/}
  layer=${layer%%/*}
  [ -n "$(allowed "$layer")" ] || { echo "FAIL: $f: plugin/$layer is no layer"; bad=$((bad + 1)); continue; }
  check_file "$f" "$layer"
done
for f in base/*.c base/*.h include/base/*.h base/glue/*.c; do
  [ -e "$f" ] || continue
  case $f in
  base/glue/*.c | include/base/collectd.h) check_file "$f" base-glue ;;
  *) check_file "$f" base ;;
  esac
done
for c in hypfs dmstats; do
  for f in $c/*.c include/$c/*.h; do
    [ -e "$f" ] || continue
    case $f in
    $c/$c.c) check_file "$f" "$c-glue" ;;
    *) check_file "$f" "$c" ;;
    esac
  done
done
for f in tests/rig/*.c tests/rig/*.h; do
  [ -e "$f" ] || continue
  case $f in
  tests/rig/test-*.c) check_file "$f" rig-test ;;
  *) check_file "$f" rig ;;
  esac
done
for f in include/zvm_monitor/*.h; do
  layer=$(public_layer "$(basename "$f" .h)")
  [ "$layer" != unknown ] || { echo "FAIL: $f belongs to no layer (tests/check-layers.sh)"; bad=$((bad + 1)); continue; }
  check_file "$f" "$layer"
done
# The unit tests, by the folder they are in; a folder that is no layer
# fails, and so does a test outside the folders.
for f in tests/unit/*/*.c; do
  [ -e "$f" ] || continue
  layer=${f#tests/unit/}
  layer=${layer%%/*}
  [ -n "$(allowed "unit-$layer")" ] || { echo "FAIL: $f: tests/unit/$layer is no layer"; bad=$((bad + 1)); continue; }
  check_file "$f" "unit-$layer"
done
for f in tests/test_*.c; do
  [ -e "$f" ] && { echo "FAIL: $f is in no layer's folder (tests/unit/<layer>/)"; bad=$((bad + 1)); }
done
# Loose sources directly in plugin/ belong to no layer.
for f in plugin/*.c plugin/*.h; do
  [ -e "$f" ] && { echo "FAIL: $f is in no layer's folder"; bad=$((bad + 1)); }
done

echo "layers: $checked files, $bad upward or sideways includes"

# The same at link level, for every layer's library (one per folder,
# libzvm<layer>, built in $abs_top_builddir): every zvm_ symbol a layer's
# library needs is defined by it or by the library of a layer it may
# include (the engine once named the built-in records). A libzvm library
# that is no layer's fails too, so none escapes the check; libzvmdecode
# (base, format, engine, appldata, records in one) and libzvmrecpage (the
# tool's page parser, tools/) are no layer's.
lib_bad=0
lib_checked=
if [ -n "${abs_top_builddir:-}" ] && [ -e "$abs_top_builddir/.libs/libzvmbase.a" ]; then
  nm_=${NM:-nm}
  layers="base format engine appldata records config mapper io"
  defined() { $nm_ -g --defined-only "$abs_top_builddir/.libs/libzvm$1.a" 2>/dev/null | awk 'NF == 3 {print $3}'; }
  for layer in $layers; do
    a=$abs_top_builddir/.libs/libzvm$layer.a
    [ -e "$a" ] || { echo "FAIL: libzvm$layer (plugin/$layer) is not built"; lib_bad=$((lib_bad + 1)); continue; }
    have=$(for b in $(allowed "$layer"); do
      case " $layers " in *" $b "*) defined "$b" ;; esac
    done | sort -u)
    for sym in $($nm_ -g --undefined-only "$a" 2>/dev/null | awk '{print $NF}' | grep '^zvm_' | sort -u); do
      if ! printf '%s\n' "$have" | grep -qx "$sym"; then
        echo "FAIL: libzvm$layer needs $sym from a layer it may not use"
        lib_bad=$((lib_bad + 1))
      fi
    done
    lib_checked="$lib_checked libzvm$layer"
  done
  # The libraries the build makes (its Makefile's noinst_LTLIBRARIES; an
  # archive a former layout left in .libs is not one of them).
  for lib in $(sed -n '/^noinst_LTLIBRARIES = /,/[^\\]$/p' "$abs_top_builddir/Makefile" |
    tr ' \t\\' '\n\n\n' | sed -n 's/^\(libzvm[a-z]*\)\.la$/\1/p'); do
    case " $lib_checked libzvmdecode libzvmrecpage " in
    *" $lib "*) ;;
    *)
      echo "FAIL: $lib is no layer's library (tests/check-layers.sh)"
      lib_bad=$((lib_bad + 1)) ;;
    esac
  done
  echo "layers: libraries$lib_checked: $lib_bad needed symbols from a layer above or beside"
fi
[ "$bad" -eq 0 ] && [ "$lib_bad" -eq 0 ]
