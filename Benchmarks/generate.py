#!/usr/bin/env python3
"""Deterministic benchmark workloads for photodrop (issue 5).

Every workload is generated from a fixed seed, so two runs (and two machines) produce byte-identical files.
A folder that already holds a complete workload of the same version is reused (its STAMP file says so).

  W1      10,000 distinct JPEGs of 30-60 KB (real JPEG encoding of noisy images) in 10 album folders
  W2      200 files of 5-8 MB: 100 JPEGs and 100 H.264/AAC MP4s (ffmpeg), about 1.2 GB
  BURST   N tiny distinct JPEGs (1-3 KB) in 10 album folders, for the memory bound under a huge burst

Usage: generate.py w1|w2|burst DEST [--count N]
"""
import argparse
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile

VERSION = "3"


def need_pillow():
    try:
        from PIL import Image  # noqa: F401
    except ImportError:
        sys.exit("generate.py: Pillow is missing; scripts/bench.sh installs it (python3 -m pip install Pillow)")


def exif_bytes(rng, index):
    """A small EXIF block with camera, capture date and orientation, as real camera JPEGs carry."""
    from PIL import Image
    exif = Image.Exif()
    exif[0x010F] = "photodrop-bench"        # Make
    exif[0x0110] = "W-%d" % (index % 7)     # Model
    exif[0x0112] = 1                        # Orientation
    ifd = exif.get_ifd(0x8769)
    day = 1 + index % 28
    ifd[0x9003] = "2025:%02d:%02d %02d:%02d:%02d" % (1 + index % 12, day, rng.randrange(24), rng.randrange(60),
                                                    rng.randrange(60))
    ifd[0x9011] = "+01:00"
    return exif.tobytes()


def noisy_jpeg(rng, target_bytes, index, quality=85, low=None, high=None):
    """Encodes a noisy image whose JPEG lands near target_bytes, and inside [low, high] when given."""
    from PIL import Image
    bytes_per_pixel = 0.8  # measured for this kind of noise at quality 70-90
    exif = exif_bytes(rng, index)
    data = b""
    low = low or int(0.9 * target_bytes)
    high = high or int(1.1 * target_bytes)
    for _ in range(8):
        pixels = max(64 * 64, int(target_bytes / bytes_per_pixel))
        width = max(64, int((pixels * 4 / 3) ** 0.5))
        height = max(48, pixels // width)
        # Noise over a gradient: real encoding work, no two images alike, nothing compresses trivially.
        noise = rng.randbytes(width * height * 3)
        image = Image.frombytes("RGB", (width, height), noise)
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=quality, exif=exif)
        data = buffer.getvalue()
        if low <= len(data) <= high:
            break
        bytes_per_pixel *= len(data) / (width * height) / bytes_per_pixel
    return data


def stamp_ok(dest, kind, count):
    try:
        with open(os.path.join(dest, "STAMP")) as f:
            return f.read().strip() == "%s %s %d" % (VERSION, kind, count)
    except OSError:
        return False


def write_stamp(dest, kind, count):
    with open(os.path.join(dest, "STAMP"), "w") as f:
        f.write("%s %s %d\n" % (VERSION, kind, count))


def fresh(dest):
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)


def albums(count):
    return ["Album %02d" % (i + 1) for i in range(count)]


def generate_w1(dest, count):
    need_pillow()
    rng = random.Random(20261129)
    names = albums(10)
    for name in names:
        os.makedirs(os.path.join(dest, name), exist_ok=True)
    for index in range(count):
        target = rng.randint(31_000, 59_000)
        data = noisy_jpeg(rng, target, index, quality=rng.randint(75, 90), low=30_000, high=60_000)
        path = os.path.join(dest, names[index % len(names)], "IMG_%05d.jpg" % index)
        with open(path, "wb") as f:
            f.write(data)


def generate_burst(dest, count):
    need_pillow()
    from PIL import Image
    rng = random.Random(100_000)
    names = albums(10)
    for name in names:
        os.makedirs(os.path.join(dest, name), exist_ok=True)
    for index in range(count):
        side = rng.randint(24, 40)
        image = Image.frombytes("RGB", (side, side), rng.randbytes(side * side * 3))
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=80)
        with open(os.path.join(dest, names[index % len(names)], "B_%06d.jpg" % index), "wb") as f:
            f.write(buffer.getvalue())


def generate_w2(dest, count):
    need_pillow()
    if shutil.which("ffmpeg") is None:
        sys.exit("generate.py: ffmpeg is missing; scripts/bench.sh installs it (apt-get install ffmpeg)")
    rng = random.Random(5_000_000)
    names = albums(4)
    for name in names:
        os.makedirs(os.path.join(dest, name), exist_ok=True)
    for index in range(count):
        folder = os.path.join(dest, names[index % len(names)])
        target = rng.randint(5_200_000, 7_800_000)
        if index % 2 == 0:
            data = noisy_jpeg(rng, target, index, quality=92, low=5_000_000, high=8_000_000)
            with open(os.path.join(folder, "PHOTO_%03d.jpg" % index), "wb") as f:
                f.write(data)
            continue
        # H.264 + AAC in MP4. A moving test pattern with seeded temporal noise keeps every file distinct; the
        # bitrate is chosen so that the file lands at the target size.
        seconds = 4
        video_bits = int(target * 8 / seconds * 0.97) - 128_000
        out = os.path.join(folder, "VIDEO_%03d.mp4" % index)
        command = [
            "ffmpeg", "-v", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=%d" % seconds,
            "-f", "lavfi", "-i", "sine=frequency=%d:sample_rate=48000:duration=%d" % (220 + index, seconds),
            "-vf", "noise=alls=25:allf=t+u:all_seed=%d" % index,
            "-c:v", "libx264", "-preset", "ultrafast", "-b:v", str(video_bits), "-maxrate", str(video_bits),
            "-bufsize", str(video_bits), "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", out,
        ]
        subprocess.run(command, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workload", choices=["w1", "w2", "burst"])
    parser.add_argument("dest")
    parser.add_argument("--count", type=int)
    args = parser.parse_args()
    count = args.count or {"w1": 10_000, "w2": 200, "burst": 100_000}[args.workload]
    if stamp_ok(args.dest, args.workload, count):
        return
    # Generate into a sibling temp folder and rename into place, so an interrupted run never leaves a
    # half-made workload that looks complete.
    parent = os.path.dirname(os.path.abspath(args.dest))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".gen-", dir=parent)
    {"w1": generate_w1, "w2": generate_w2, "burst": generate_burst}[args.workload](work, count)
    write_stamp(work, args.workload, count)
    if os.path.exists(args.dest):
        shutil.rmtree(args.dest)
    os.rename(work, args.dest)


if __name__ == "__main__":
    main()
