#!/usr/bin/env bash
# Runs one of MediaProbe's libFuzzer targets for a while.
#
#   scripts/fuzz.sh TARGET SECONDS      TARGET: boxes | exif | images (or fuzz-boxes …)
#
# Builds the target with libFuzzer and AddressSanitizer into .build-fuzz/TARGET/ (PHOTODROP_FUZZ=1 drops the
# replay main; see below for the sanitizer flags). Seeds it from the shared corpus (../shared/corpus/dev), with the
# media data shrunk so that the fuzzer spends its time on structure (movie and HEIF `mdat` payloads cut to 256
# bytes, JPEG scans to 512 bytes; for exif, the TIFF/EXIF blocks extracted from the files). Keeps the growing
# working corpus in fuzz-work/TARGET/corpus (gitignored) and writes crashes to fuzz-work/TARGET/artifacts/.
# Environment: CORPUS_DIR (seed folder), JOBS (parallel fuzzing jobs, default 1), NICE (default 10),
# FUZZ_CONFIG (release or debug, default release), FUZZ_ARGS (extra libFuzzer flags).
#
# Reproduce a crash without libFuzzer:  swift run fuzz-TARGET fuzz-work/TARGET/artifacts/crash-…
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 2 ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh boxes|exif|images SECONDS" >&2
    exit 2
fi
target="${1#fuzz-}"
seconds="$2"
case "$target" in
    boxes) max_len=262144 ;;
    exif) max_len=65536 ;;
    images) max_len=262144 ;;
    *) echo "fuzz.sh: unknown target '$1' (boxes, exif or images)" >&2; exit 2 ;;
esac

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

corpus_dir="${CORPUS_DIR:-../shared/corpus/dev}"
work="fuzz-work/$target"
mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"

echo "fuzz.sh: building fuzz-$target with libFuzzer + AddressSanitizer …" >&2
# SwiftPM passes `--sanitize fuzzer --sanitize address` to swiftc as two -sanitize= flags in an arbitrary order and
# swiftc keeps only the last one, so a build gets either coverage or AddressSanitizer, never both. Hence
# `--sanitize fuzzer` (which makes SwiftPM link the target for libFuzzer) plus one combined -sanitize flag that
# comes last. Release (-O) keeps Swift's bounds and overflow traps and fuzzes about twice as fast as debug;
# FUZZ_CONFIG=debug for a debug build.
config="${FUZZ_CONFIG:-release}"
scratch=".build-fuzz/$target"
PHOTODROP_FUZZ=1 swift build -c "$config" --scratch-path "$scratch" --product "fuzz-$target" \
    --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address >&2
binary="$scratch/$config/fuzz-$target"
sections=$(objdump -h "$binary")
symbols=$(nm "$binary")
if ! grep -q sancov_cntrs <<<"$sections" || ! grep -q __asan_init <<<"$symbols"; then
    echo "fuzz.sh: $binary lacks coverage counters or AddressSanitizer; remove $scratch and retry" >&2
    exit 1
fi

# Seeds: regenerated on every run from the corpus (which is never copied into the repository).
rm -f "$work/seeds"/*
if [ ! -d "$corpus_dir" ] && [ -d "Tests/FuzzRegressions/$target" ]; then
    cp -n "Tests/FuzzRegressions/$target"/* "$work/corpus/" 2>/dev/null || true
fi
if [ -d "$corpus_dir" ]; then
    python3 - "$target" "$corpus_dir" "$work/seeds" <<'PY'
import os, struct, sys
target, src, dst = sys.argv[1:4]
def iso(d):
    return len(d) >= 8 and (d[4:8] == b"ftyp" or d[4:8] in (b"moov", b"mdat", b"wide", b"free", b"skip"))
def exif_blocks(d):
    """TIFF streams: whole TIFF-based files, and the EXIF of JPEG APP1 segments."""
    if d[:4] in (b"II*\0", b"MM\0*"):
        yield d[:65536]
    i = 2
    while d[:2] == b"\xff\xd8" and i + 4 <= len(d) and d[i] == 0xFF:
        marker, length = d[i + 1], struct.unpack(">H", d[i + 2:i + 4])[0]
        if marker == 0xE1 and d[i + 4:i + 10] == b"Exif\0\0":
            yield d[i + 10:i + 2 + length]
        if marker == 0xDA:
            break
        i += 2 + length
    j = d.find(b"Exif\0\0MM")
    if j < 0:
        j = d.find(b"Exif\0\0II")
    if j >= 0 and not d.startswith(b"\xff\xd8"):
        yield d[j + 6:j + 6 + 65536]
def compact_boxes(d):
    """The file with every large mdat/mpvd payload cut to 256 bytes (sizes fixed up; chunk offsets left alone)."""
    out, i = bytearray(), 0
    while i + 8 <= len(d):
        size, typ = struct.unpack(">I4s", d[i:i + 8])
        header = 8
        if size == 1 and i + 16 <= len(d):
            size, header = struct.unpack(">Q", d[i + 8:i + 16])[0], 16
        elif size == 0:
            size = len(d) - i
        if size < header:
            break
        box = d[i:i + size]
        if typ in (b"mdat", b"mpvd") and size > 4096:
            out += struct.pack(">I4s", 8 + 256, typ) + box[header:header + 256]
        else:
            out += box
        i += size
    return bytes(out)
def compact_jpeg(d):
    """Headers up to the scan, 512 bytes of scan, end marker."""
    i = 2
    while i + 4 <= len(d) and d[i] == 0xFF:
        marker, length = d[i + 1], struct.unpack(">H", d[i + 2:i + 4])[0]
        i += 2 + length
        if marker == 0xDA:
            return d[:i] + d[i:i + 512].replace(b"\xff", b"\x00") + b"\xff\xd9"
    return d
n = 0
for name in sorted(os.listdir(src)):
    if name.endswith(".tsv") or name.startswith("."):
        continue
    d = open(os.path.join(src, name), "rb").read()
    blobs = []
    if target == "boxes":
        blobs = [compact_boxes(d)] if iso(d) else []
    elif target == "exif":
        blobs = list(exif_blocks(d))
    elif iso(d):
        blobs = [compact_boxes(d)]
    elif d[:2] == b"\xff\xd8":
        blobs = [compact_jpeg(d)]
    else:
        blobs = [d[:262144]]
    for k, blob in enumerate(blobs):
        if blob:
            open(os.path.join(dst, f"{name}.{k}"), "wb").write(blob)
            n += 1
print(f"fuzz.sh: {n} seed(s) from {src}", file=sys.stderr)
PY
else
    echo "fuzz.sh: no corpus at $corpus_dir; starting from the working corpus only" >&2
fi

dict="scripts/fuzz-dicts/$target.dict"
echo "fuzz.sh: running fuzz-$target for $seconds s (working corpus $work/corpus, crashes in $work/artifacts/)" >&2
parallel=()
if [ "${JOBS:-1}" -gt 1 ]; then parallel=(-jobs="$JOBS" -workers="$JOBS"); fi
set +e
# shellcheck disable=SC2086
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" nice -n "${NICE:-10}" "$binary" \
    "$work/corpus" "$work/seeds" \
    -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/artifacts/" -dict="$dict" -print_final_stats=1 \
    "${parallel[@]}" ${FUZZ_ARGS:-} 2>&1 | tee "$work/last-run.log" | grep -Ev '^#[0-9]+\s+(NEW|REDUCE)' >&2
status=${PIPESTATUS[0]}
set -e
crashes=$(find "$work/artifacts" -type f | wc -l)
echo "fuzz.sh: fuzz-$target finished with status $status; $crashes artifact(s) in $work/artifacts/" >&2
# KEEP_CORPUS=1: the working corpus, merged down to the inputs that reach new code, replaces Tests/FuzzCorpus/TARGET/,
# which `swift test` replays too. Seed such a run with CORPUS_DIR=/nonexistent (the working corpus starts from
# Tests/FuzzRegressions/TARGET/): the shared media corpus is never copied into the repository, even shrunk.
if [ "${KEEP_CORPUS:-0}" = 1 ]; then
    rm -rf "Tests/FuzzCorpus/$target.new"
    mkdir -p "Tests/FuzzCorpus/$target.new"
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$binary" -merge=1 \
        -max_len="$max_len" "Tests/FuzzCorpus/$target.new" "$work/corpus" >"$work/merge.log" 2>&1
    rm -rf "Tests/FuzzCorpus/$target"
    mv "Tests/FuzzCorpus/$target.new" "Tests/FuzzCorpus/$target"
    echo "fuzz.sh: merged corpus in Tests/FuzzCorpus/$target/ ($(ls "Tests/FuzzCorpus/$target" | wc -l) inputs)" >&2
fi
# Every finding becomes a regression input that `swift test` replays (Tests/MediaProbeTests/FuzzRegressionTests);
# commit it with the fix.
if [ "$crashes" -gt 0 ]; then
    mkdir -p "Tests/FuzzRegressions/$target"
    find "$work/artifacts" -type f -exec cp -n {} "Tests/FuzzRegressions/$target/" \;
    echo "fuzz.sh: copied to Tests/FuzzRegressions/$target/; fix the parser, then commit them" >&2
fi
exit "$status"
