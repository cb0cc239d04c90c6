#!/usr/bin/env bash
# Schemathesis (PyPI), driven by the OpenAPI document, against a live `photodrop serve` over a small real library:
# every operation of /api/openapi.json is called with generated valid and invalid requests (with the token, and
# without it), and every answer must be documented (status, content type, JSON shape, headers) and never a server
# error. Run by .ci/run; locally: scripts/api-fuzz.sh [path/to/photodrop] (default: the debug build).
#
# The server is started here and stopped by its PID; the library, the inbox and the Python environment live in a
# temporary folder that is removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="$(realpath "${1:-.build/debug/photodrop}")"
work="$(mktemp -d)"
serve_pid=""
cleanup() {
    if [ -n "$serve_pid" ] && kill -0 "$serve_pid" 2>/dev/null; then
        kill -TERM "$serve_pid"
        wait "$serve_pid" || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# API_FUZZ_VENV: an environment that has Schemathesis already (else one is made here).
venv="${API_FUZZ_VENV:-$work/venv}"
if [ ! -x "$venv/bin/schemathesis" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q schemathesis
fi

# A library of real files (the decoders read them): three JPEGs and an H.264 movie by ffmpeg.
mkdir -p "$work/drop/Trip" "$work/Inbox"
for size in 160x120 176x120 192x120; do
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size" -frames:v 1 "$work/drop/Trip/photo-$size.jpg"
done
ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x120:rate=25:duration=1" -c:v libx264 -pix_fmt yuv420p \
    "$work/drop/Trip/clip.mp4"
token="api-fuzz-token-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
cat > "$work/config.json" <<JSON
{
  "library": "$work/Library",
  "inbox": "$work/Inbox",
  "rejected": "$work/Rejected",
  "serve": {"listen": "127.0.0.1:0", "token": "$token", "maxUploadBytes": 1048576}
}
JSON
"$binary" --config "$work/config.json" import "$work/drop" >/dev/null

"$binary" --config "$work/config.json" serve >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
port=""
for _ in $(seq 1 600); do
    port="$(sed -n 's/.*listening on .* port \([0-9][0-9]*\)$/\1/p' "$work/serve.out" | head -n 1)"
    if [ -n "$port" ] && grep -q '?token=' "$work/serve.out"; then break; fi
    if ! kill -0 "$serve_pid" 2>/dev/null; then cat "$work/serve.err" >&2; exit 1; fi
    sleep 0.1
done
if [ -z "$port" ]; then echo "serve did not start" >&2; cat "$work/serve.err" >&2; exit 1; fi
base="http://127.0.0.1:$port"

# Real objects for the generated requests to find, half of the time: the assets and albums of the library and an
# upload (Schemathesis's dictionaries); the other half are generated identifiers, which must get a documented 404.
curl -s -o "$work/upload.json" -H "Authorization: Bearer $token" "$base/api/albums" >/dev/null
album="$(python3 -c 'import json,sys; print(next(a["id"][:36] for a in json.load(open(sys.argv[1]))["albums"] if a.get("title") == "Trip"))' "$work/upload.json")"
ffmpeg -v error -y -f lavfi -i "testsrc2=size=208x120" -frames:v 1 "$work/upload.jpg"
curl -s -o "$work/upload.json" -X PUT --data-binary "@$work/upload.jpg" -H "Authorization: Bearer $token" \
    "$base/api/upload/$album/upload.jpg"
python3 - "$work" "$binary" <<'PY'
import json, subprocess, sys
work, binary = sys.argv[1], sys.argv[2]
def lines(*arguments):
    out = subprocess.run([binary, "--config", f"{work}/config.json", *arguments], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]
assets = [item["id"].split("/")[0] for item in lines("assets", "--json")]
albums = [item["id"].split("/")[0] for item in lines("albums", "--json") if item.get("type") == "album"]
smart = [item["id"].split("/")[0] for item in lines("albums", "--json") if item.get("type") == "smartAlbum"]
upload = json.load(open(f"{work}/upload.json"))["id"]
quote = lambda values: ", ".join(json.dumps(value) for value in values)
with open(f"{work}/schemathesis.toml", "w") as config:
    config.write(f"""[dictionaries.ids]
values = [{quote(assets + albums + smart + [upload])}]
[dictionaries.albums]
values = [{quote(albums)}]
[parameters]
"path.id" = {{ dictionary = "ids", probability = 0.5 }}
"path.album" = {{ dictionary = "albums", probability = 0.5 }}
# Schema-valid, and refused on purpose: 410 for a change token of another library (or older than the history kept),
# 422 for an asset without a video, or one no picture can be made of. Both are documented answers.
[checks.positive_data_acceptance]
expected-statuses = ["2XX", "3XX", 401, 403, 404, 409, 410, 422, 429]
""")
PY

# Every operation, every check. The event stream stays open by design: Schemathesis's requests to it end at the
# request timeout (3 s), and it is also checked with a short read of its own below.
# From the temporary folder: Schemathesis keeps a cache of crashes in the working folder (.schemathesis/).
cd "$work"
"$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run "$base/api/openapi.json" \
    --url "$base" \
    --header "Authorization: Bearer $token" \
    --checks all \
    --workers 1 \
    --max-examples "${API_FUZZ_EXAMPLES:-25}" \
    --request-timeout 3 \
    --no-color \
    --generation-database ":memory:"

# The event stream: Schemathesis's checks on one request that is cut after two seconds, by curl.
status="$(curl -s -o "$work/events.txt" -w '%{http_code} %{content_type}' --max-time 2 \
    -H "Authorization: Bearer $token" "$base/api/events" || true)"
case "$status" in
    "200 text/event-stream"*) ;;
    *) echo "GET /api/events answered '$status'" >&2; exit 1 ;;
esac
grep -q '^retry: ' "$work/events.txt"
echo "api-fuzz: Schemathesis found no undocumented answer and no server error"
