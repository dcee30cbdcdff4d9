#!/usr/bin/env python3
"""Writes the seed corpus of one libFuzzer target of tests/fuzz.

    make_seeds.py TARGET OUT_DIR [--committed-only]

Seeds come from the models in the repository (tests/data, examples/models)
and, for semantic_mutator_fuzzer, the seed list semantic_seed_models.txt,
whose ../shared entries are skipped with --committed-only or when absent.
scripts/fuzz.sh and the CI smoke tests (tests/fuzz/CMakeLists.txt) use it.
"""
import os
import random
import struct
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MAX_PB = 2 * 1024 * 1024  # bigger models make slow seeds
MAX_INDEX = 1000 * 1024


def committed_files(name, max_size):
    found = []
    for top in ("tests/data", "examples/models"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                path = os.path.join(dirpath, f)
                if (f == name or (name.startswith("*") and f.endswith(name[1:]))) and \
                        os.path.getsize(path) < max_size:
                    found.append(path)
    return sorted(found)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def saved_model_seeds():
    # Flag byte (bit 0: add the fixed variables bundle), proto length, proto.
    for i, pb in enumerate(committed_files("saved_model.pb", MAX_PB), start=1):
        data = read(pb)
        yield "pb_%d" % i, bytes([i % 2]) + struct.pack("<I", len(data)) + data


def tensor_bundle_seeds():
    # Index length, index, the first 64 KiB of the one data shard.
    for i, index in enumerate(committed_files("*.index", MAX_INDEX), start=1):
        data = index[: -len(".index")] + ".data-00000-of-00001"
        if not os.path.isfile(data):
            continue
        blob = read(index)
        yield "bundle_%d" % i, struct.pack("<I", len(blob)) + blob + read(data)[:65536]


def run_seeds():
    rng = random.Random(36)  # fixed, so that CI runs start alike
    for k in range(32):
        yield "rand_%d" % k, bytes(rng.randrange(256) for _ in range(k * 16 + 1))


def semantic_seeds(committed_only):
    # Selector byte (the line of the seed list), proto length, proto.
    lines = [l.strip() for l in open(os.path.join(ROOT, "tests/fuzz/semantic_seed_models.txt"))]
    lines = [l for l in lines if l and not l.startswith("#")]
    for i, rel in enumerate(lines):
        if committed_only and rel.startswith("../"):
            continue
        pb = os.path.join(ROOT, rel, "saved_model.pb")
        if not os.path.isfile(pb) or os.path.getsize(pb) >= MAX_PB:
            continue
        data = read(pb)
        name = rel.replace("../shared/models/", "").replace("/", "_")
        yield "seed_%02d_%s" % (i, name), bytes([i]) + struct.pack("<I", len(data)) + data


def image_decode_seeds():
    # The committed JPEG and PNG files (tests/data/kernels/image_decode), as they are, and
    # the GIFs of the GIF goldens.
    for path in committed_files("*.jpg", MAX_INDEX) + committed_files("*.png", MAX_INDEX):
        yield os.path.basename(path), read(path)
    for name, payload in rec_records(os.path.join(ROOT, "tests/data/kernels/gif/gif.rec")):
        if name.startswith("gif.") and payload:
            yield name, payload[0]


def rec_records(path):
    """The named records of a .rec golden file (testing/goldens.h): name, dtype, shape, then
    one payload record per string element (one for a scalar)."""
    data = read(path)
    fields, i = [], 0
    while i + 4 <= len(data):
        n = struct.unpack("<I", data[i:i + 4])[0]
        fields.append(data[i + 4:i + 4 + n])
        i += 4 + n
    i = 0
    while i + 3 <= len(fields):
        name, kind, shape = fields[i:i + 3]
        count = 1
        if kind == b"string" and shape:
            count = 1
            for d in shape.split():
                count *= int(d)
        yield name.decode(), fields[i + 3:i + 3 + count]
        i += 3 + count


def wav_decode_seeds():
    # The WAV files of the audio goldens and the speech zoo model's inputs.
    for name, payload in rec_records(os.path.join(ROOT, "tests/data/kernels/audio/audio.rec")):
        if name.startswith("wav.") and payload:
            yield name, payload[0]
    for path in committed_files("wav_data.strings", MAX_INDEX):
        data = read(path)
        n = struct.unpack("<I", data[:4])[0]
        yield "zoo_" + os.path.basename(os.path.dirname(os.path.dirname(path))), data[4:4 + n]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    committed_only = "--committed-only" in sys.argv
    if len(args) != 2:
        sys.exit(__doc__)
    target, out = args
    seeds = {
        "saved_model_fuzzer": saved_model_seeds,
        "tensor_bundle_fuzzer": tensor_bundle_seeds,
        "run_fuzzer": run_seeds,
        "semantic_mutator_fuzzer": lambda: semantic_seeds(committed_only),
        "image_decode_fuzzer": image_decode_seeds,
        "wav_decode_fuzzer": wav_decode_seeds,
    }.get(target)
    if seeds is None:
        sys.exit("make_seeds.py: no seeds for target %r" % target)
    os.makedirs(out, exist_ok=True)
    n = 0
    for name, data in seeds():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        n += 1
    print("make_seeds.py: %d seeds for %s in %s" % (n, target, out))


if __name__ == "__main__":
    main()
