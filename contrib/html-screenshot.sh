#!/usr/bin/env bash
# The browser check of mpv's HTML report: writes the report of a batch's
# results file, opens its index and one trace page in headless Chromium (with
# every host name unresolvable, so nothing can come from the network), saves
# a screenshot of each and checks that the browser rendered them.
#
#   contrib/html-screenshot.sh RESULTS.jsonl [OUT_DIR] [TRACE_PAGE]
#
# OUT_DIR (default bench-out/html-shots) receives html/ (the report),
# index.png and trace.png. TRACE_PAGE names a page of html/traces/ (default:
# the first one). MPV (default target/release/mpv) is the mpv binary. Skips
# with exit code 0 when no Chromium is installed (Debian: apt-get install chromium).
set -euo pipefail
results=${1:?usage: contrib/html-screenshot.sh RESULTS.jsonl [OUT_DIR] [TRACE_PAGE]}
out=${2:-bench-out/html-shots}
mpv=${MPV:-target/release/mpv}
browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b"); break; fi
done
if [ -z "$browser" ]; then
    echo "html-screenshot: skipped: no chromium installed"
    exit 0
fi
mkdir -p "$out"
"$mpv" report "$results" --html "$out/html" >/dev/null
index=$(realpath "$out/html/index.html")
if [ -n "${3:-}" ]; then
    trace=$(realpath "$out/html/traces/$3")
else
    trace=$(find "$out/html/traces" -name '*.html' | sort | head -n 1)
    [ -n "$trace" ] || { echo "html-screenshot: $results has no FALSE result: no trace page"; exit 1; }
    trace=$(realpath "$trace")
fi
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1000
       --host-resolver-rules="MAP * ~NOTFOUND")
# Screenshot FILE PNG, then check the rendered page holds TEXT.
shot() {
    "$browser" "${flags[@]}" --screenshot="$2" "file://$1" >/dev/null 2>&1
    [ -s "$2" ] || { echo "html-screenshot: no screenshot of $1"; exit 1; }
    "$browser" "${flags[@]}" --dump-dom "file://$1" 2>/dev/null | grep -q "$3" \
        || { echo "html-screenshot: $1 rendered without \"$3\""; exit 1; }
    echo "html-screenshot: $2 ($(stat -c %s "$2") bytes) of $1"
}
shot "$index" "$out/index.png" "FALSE results"
shot "$trace" "$out/trace.png" "error path"
