#!/usr/bin/env python3
"""Deterministic benchmark workloads for photodrop (issue 5).

Every workload is generated from a fixed seed, so two runs (and two machines) produce byte-identical files.
A folder that already holds a complete workload of the same version is reused (its STAMP file says so).

  W1      10,000 distinct JPEGs of 30-60 KB (real JPEG encoding of noisy images) in 10 album folders
  W2      200 files of 5-8 MB: 100 JPEGs and 100 H.264/AAC MP4s (ffmpeg), about 1.2 GB
  BURST   N tiny distinct JPEGs (1-3 KB) in 10 album folders, for the memory bound under a huge burst
  LIVE    N Live Photo pairs (default 2,000) in 10 album folders: IMG_NNNN.JPG (30-60 KB, its Apple MakerNote
          carrying the content identifier) and IMG_NNNN.MOV (H.264 QuickTime, 1 s, the same identifier in its
          metadata keys), with capture times within a second of each other (issue 14)

Usage: generate.py w1|w2|burst|live|photos DEST [--count N]    (N counts pairs for live, and each of JPEG and HEIC for photos)
"""
import argparse
import datetime
import io
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import uuid

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


def camera_like(rng, width, height):
    """A photo-like picture: smooth colour fields, edges and mild grain (not pure noise, which no camera makes and
    which makes decoders look slower and HEIC files huge)."""
    from PIL import Image, ImageDraw, ImageFilter
    small = Image.new("RGB", (48, 36))
    small.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(48 * 36)])
    image = small.resize((width, height), Image.BICUBIC)
    draw = ImageDraw.Draw(image)
    for _ in range(40):
        x, y = rng.randrange(width), rng.randrange(height)
        r = rng.randrange(20, max(21, width // 8))
        draw.ellipse((x - r, y - r, x + r, y + r), outline=(rng.randrange(256),) * 3, width=rng.randrange(1, 8))
    grain = Image.effect_noise((width, height), 12).convert("RGB")
    return Image.blend(image, grain, 0.08).filter(ImageFilter.SMOOTH)


def generate_photos(dest, count):
    """count JPEGs of 6-9 MP (quality 92, with EXIF) and count HEICs of 12 MP (made from JPEGs by Debian's heif-enc,
    quality 80): camera-size photos for the thumbnail benchmark (issue 15)."""
    need_pillow()
    if shutil.which("heif-enc") is None:
        sys.exit("generate.py: heif-enc is missing; scripts/bench.sh installs it (apt-get install libheif-examples)")
    rng = random.Random(6_000_000)
    for folder in ("JPEG", "HEIC"):
        os.makedirs(os.path.join(dest, folder), exist_ok=True)
    sizes = [(3000, 2000), (3264, 2448), (3456, 2304), (3600, 2400), (3672, 2448)]
    for index in range(count):
        width, height = sizes[index % len(sizes)]
        image = camera_like(rng, width, height)
        image.save(os.path.join(dest, "JPEG", "IMG_%04d.jpg" % index), "JPEG", quality=92,
                   exif=exif_bytes(rng, index))
    # x265's ultrafast preset: the files decode like any HEIC, and making 100 of them takes minutes, not an hour.
    encoders = []
    for index in range(count):
        scratch = os.path.join(dest, "scratch-%04d.jpg" % index)
        camera_like(rng, 4032, 3024).save(scratch, "JPEG", quality=95)
        out = os.path.join(dest, "HEIC", "IMG_%04d.heic" % index)
        encoders.append((subprocess.Popen(["heif-enc", "-q", "80", "-p", "preset=ultrafast", scratch, "-o", out],
                                          stdout=subprocess.DEVNULL), scratch))
        while len(encoders) >= 2 or (index == count - 1 and encoders):
            process, used = encoders.pop(0)
            if process.wait() != 0:
                sys.exit("generate.py: heif-enc failed on %s" % used)
            os.remove(used)


# A Live Photo's movie is made once by ffmpeg with these placeholders, then copied with them replaced (same lengths, so
# every box size and offset stays valid): 2,000 ffmpeg runs would take minutes.
MOVIE_IDENTIFIER_PLACEHOLDER = b"00000000-0000-4000-8000-0000DEADBEEF"
MOVIE_DATE_PLACEHOLDER = b"2000-01-01T00:00:00+0000"


def apple_maker_note(identifier):
    """An iPhone's EXIF MakerNote: `Apple iOS\\0`, version 1, `MM`, then a big-endian IFD whose value offsets count from
    the note's first byte: MakerNoteVersion (0x0001, SLONG 14) and ContentIdentifier (0x0011, ASCII, NUL-terminated)."""
    text = identifier.encode("ascii") + b"\0"
    header = b"Apple iOS\0" + struct.pack(">H", 1) + b"MM"
    entries = 2
    values = len(header) + 2 + entries * 12 + 4  # after the entry count, the entries and the next-IFD offset
    return (header + struct.pack(">H", entries)
            + struct.pack(">HHII", 0x0001, 9, 1, 14)
            + struct.pack(">HHII", 0x0011, 2, len(text), values)
            + struct.pack(">I", 0) + text)


def live_exif(index, taken, identifier):
    """EXIF as an iPhone's Live Photo still carries it: make, model, DateTimeOriginal with its offset, and the Apple
    MakerNote with the content identifier. Pillow writes a bytes value as BYTE; the MakerNote's entry is retyped
    UNDEFINED (7), as cameras write it (photodrop reads either)."""
    from PIL import Image
    exif = Image.Exif()
    exif[0x010F] = "Apple"
    exif[0x0110] = "iPhone bench %d" % (index % 3)
    exif[0x0112] = 1
    ifd = exif.get_ifd(0x8769)
    ifd[0x9003] = taken.strftime("%Y:%m:%d %H:%M:%S")
    ifd[0x9011] = "+01:00"
    ifd[0x927C] = apple_maker_note(identifier)
    data = exif.tobytes()
    tiff = data.index(b"MM\0*") if b"MM\0*" in data else data.index(b"II*\0")
    order = ">" if data[tiff:tiff + 2] == b"MM" else "<"
    entry = struct.pack(order + "HH", 0x927C, 1)
    if data.count(entry) != 1:
        raise SystemExit("generate.py: cannot find the MakerNote entry in Pillow's EXIF")
    return data.replace(entry, struct.pack(order + "HH", 0x927C, 7))


def live_jpeg(rng, index, taken, identifier):
    """A noisy JPEG of 30-60 KB (as W1's) with the Live Photo EXIF."""
    from PIL import Image
    exif = live_exif(index, taken, identifier)
    quality = rng.randint(75, 90)
    bytes_per_pixel = 0.8
    target = rng.randint(31_000, 59_000)
    data = b""
    for _ in range(8):
        pixels = max(64 * 64, int(target / bytes_per_pixel))
        width = max(64, int((pixels * 4 / 3) ** 0.5))
        height = max(48, pixels // width)
        image = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=quality, exif=exif)
        data = buffer.getvalue()
        if 30_000 <= len(data) <= 60_000:
            break
        bytes_per_pixel *= len(data) / (width * height) / bytes_per_pixel
    return data


def live_movie_template(folder):
    """One H.264 QuickTime movie (1 s, 320×240, yuv420p, avc1: what Apple devices play) with the placeholders as its
    content identifier and creation date in the metadata keys (`moov/meta`, `keys`/`ilst`)."""
    if shutil.which("ffmpeg") is None:
        sys.exit("generate.py: ffmpeg is missing; scripts/bench.sh installs it (apt-get install ffmpeg)")
    out = os.path.join(folder, "template.mov")
    subprocess.run([
        "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-t", "1",
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-tag:v", "avc1",
        "-fflags", "+bitexact", "-flags:v", "+bitexact",
        "-movflags", "use_metadata_tags",
        "-metadata", "com.apple.quicktime.content.identifier=" + MOVIE_IDENTIFIER_PLACEHOLDER.decode(),
        "-metadata", "com.apple.quicktime.creationdate=" + MOVIE_DATE_PLACEHOLDER.decode(), out,
    ], check=True)
    with open(out, "rb") as f:
        data = f.read()
    os.remove(out)
    for placeholder in (MOVIE_IDENTIFIER_PLACEHOLDER, MOVIE_DATE_PLACEHOLDER):
        if data.count(placeholder) != 1:
            raise SystemExit("generate.py: the template movie holds %r %d times, not once" % (
                placeholder, data.count(placeholder)))
    return data


def generate_live(dest, count):
    """`count` Live Photo pairs: IMG_NNNN.JPG and IMG_NNNN.MOV in the same album folder, one content identifier."""
    need_pillow()
    rng = random.Random(14_002_000)
    names = albums(10)
    for name in names:
        os.makedirs(os.path.join(dest, name), exist_ok=True)
    template = live_movie_template(dest)
    start = datetime.datetime(2025, 3, 1, 9, 0, 0)
    for index in range(count):
        identifier = str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper()
        taken = start + datetime.timedelta(seconds=index * 97 + rng.randrange(60))
        folder = os.path.join(dest, names[index % len(names)])
        with open(os.path.join(folder, "IMG_%04d.JPG" % index), "wb") as f:
            f.write(live_jpeg(rng, index, taken, identifier))
        # The movie starts when the still was taken, to the second (iPhones differ by a fraction of one).
        movie = template.replace(MOVIE_IDENTIFIER_PLACEHOLDER, identifier.encode("ascii"))
        movie = movie.replace(MOVIE_DATE_PLACEHOLDER, taken.strftime("%Y-%m-%dT%H:%M:%S+0100").encode("ascii"))
        with open(os.path.join(folder, "IMG_%04d.MOV" % index), "wb") as f:
            f.write(movie)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workload", choices=["w1", "w2", "burst", "live", "photos"])
    parser.add_argument("dest")
    parser.add_argument("--count", type=int)
    args = parser.parse_args()
    count = args.count or {"w1": 10_000, "w2": 200, "burst": 100_000, "live": 2_000, "photos": 100}[args.workload]
    if stamp_ok(args.dest, args.workload, count):
        return
    # Generate into a sibling temp folder and rename into place, so an interrupted run never leaves a
    # half-made workload that looks complete.
    parent = os.path.dirname(os.path.abspath(args.dest))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".gen-", dir=parent)
    {"w1": generate_w1, "w2": generate_w2, "burst": generate_burst, "live": generate_live,
     "photos": generate_photos}[args.workload](
        work, count)
    write_stamp(work, args.workload, count)
    if os.path.exists(args.dest):
        shutil.rmtree(args.dest)
    os.rename(work, args.dest)


if __name__ == "__main__":
    main()
