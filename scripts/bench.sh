#!/usr/bin/env bash
# photodrop's benchmark, in one command:
#
#   scripts/bench.sh [--smoke] [--only w1,w2,w3,burst,live,thumbs,serve,pg] [--results FILE] [--rounds N]
#
# Installs what the workload generator and the floors need where it is missing (Pillow from PyPI; ffmpeg and file
# from Debian), builds photodrop and bench-floors with -c release, generates the deterministic workloads into
# $BENCH_WORK (default .bench/, kept for the next run; about 2 GB for the full set, and the same again while it
# runs) and runs Benchmarks/bench.py, which prints one table of every workload against the floors measured in the
# same run and a list of the targets with whether each was met.
#
# --smoke: every workload small, targets not judged (CI runs this to keep the benchmark working).
# --only live: the Live Photo pairs (issue 14); not in the full default set, but in --smoke's (20 pairs).
# Exit status: 0 when every target was met (always, with --smoke, unless the run broke), 1 when one was missed.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
missing=()
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
command -v file >/dev/null 2>&1 || missing+=(file)
command -v xargs >/dev/null 2>&1 || missing+=(findutils)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# The thumbnail workload: heif-enc makes its HEICs, vipsthumbnail is its floor.
command -v heif-enc >/dev/null 2>&1 || missing+=(libheif-examples)
command -v vipsthumbnail >/dev/null 2>&1 || missing+=(libvips-tools)
# The serve row: wrk is the load generator, nginx its floor (the same thumbnail files served statically).
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v nginx >/dev/null 2>&1 || missing+=(nginx)
# The PostgreSQL row: a throwaway cluster (initdb, pg_ctl) in the scratch folder.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
apt_install() {
    echo "bench.sh: installing $* (Debian)" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo_cmd apt-get update -q >&2
    $sudo_cmd apt-get install -y -q --no-install-recommends "$@" >&2
}
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
# The generator needs Pillow: the python3 on PATH with Pillow from PyPI, else Debian's python3 with python3-pil.
python=python3
if ! "$python" -c 'import PIL' >/dev/null 2>&1; then
    echo "bench.sh: installing Pillow (PyPI)" >&2
    "$python" -m pip install -q Pillow >&2 || "$python" -m pip install -q --break-system-packages Pillow >&2 || true
fi
if ! "$python" -c 'import PIL' >/dev/null 2>&1; then
    apt_install python3 python3-pil
    python=/usr/bin/python3
    "$python" -c 'import PIL' || { echo "bench.sh: no Python with Pillow could be set up" >&2; exit 2; }
fi

echo "bench.sh: building photodrop and bench-floors (-c release)" >&2
# The Swift runtime linked in (--static-swift-stdlib), as the README's install step builds it: fewer libraries
# mapped into every process (BENCHMARKS.md, "One boundary to the OS and a leaner process").
swift build -c release --static-swift-stdlib --product photodrop >&2
swift build -c release --static-swift-stdlib --product bench-floors >&2
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"

exec "$python" Benchmarks/bench.py --python "$python" --bin "$bin" --work "${BENCH_WORK:-.bench}" "$@"
