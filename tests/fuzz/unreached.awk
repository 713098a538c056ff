# What no corpus input reaches, from an lcov file (llvm-cov export
# -format=lcov): per source file, the functions never entered and the
# ranges of lines never run. For tests/fuzz/fuzz.mk's fuzz-coverage.
function flush(   f, out) {
  if (file == "")
    return
  out = ""
  for (f = 1; f <= nfn; f++)
    if (hits[fname[f]] == 0)
      out = out (out == "" ? "" : ", ") fname[f]
  if (out != "")
    printf "%s: functions no input enters: %s\n", file, out
  if (ranges != "")
    printf "%s: lines no input runs (%d): %s\n", file, nzero, ranges
  else if (nlines > 0)
    printf "%s: every line run\n", file
}
function endrange() {
  if (from > 0)
    ranges = ranges (ranges == "" ? "" : ", ") (from == last ? from : from "-" last)
  from = 0
}
/^SF:/ {
  flush()
  file = substr($0, 4)
  if (match(file, /\/(plugin|include|tools)\/.*$/))
    file = substr(file, RSTART + 1)
  nfn = 0; nlines = 0; nzero = 0; ranges = ""; from = 0; last = 0
  delete hits
  next
}
/^FN:/ { split(substr($0, 4), a, ","); fname[++nfn] = a[2]; hits[a[2]] = 0; next }
/^FNDA:/ { split(substr($0, 6), a, ","); hits[a[2]] += a[1]; next }
/^DA:/ {
  split(substr($0, 4), a, ",")
  nlines++
  if (a[2] + 0 == 0) {
    nzero++
    if (from > 0 && a[1] + 0 <= last + 1) {
      last = a[1] + 0
    } else {
      endrange()
      from = last = a[1] + 0
    }
  }
  next
}
/^end_of_record/ { endrange(); next }
END { flush() }
