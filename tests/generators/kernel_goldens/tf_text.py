#!/usr/bin/env python3
"""Goldens for the tensorflow_text kernels (tests/kernels/tf_text_ops_test.cc).

Run with /work/venv-text/bin/python -P (TensorFlow 2.21 with tensorflow-text
2.21). tensorflow-text 2.21.0 does not import (undefined symbol icudt77_dat:
tensorflow/text#1541, fixed in 2.21.1); the goldens were made with 2.21.1 put
first on the path:
  pip download --no-deps tensorflow-text==2.21.1 -d W
  pip install --no-deps --target T W/tensorflow_text-2.21.1-*.whl
  PYTHONPATH=T /work/venv-text/bin/python -P tests/generators/kernel_goldens/tf_text.py
Every expected value comes from TF Text's raw ops (or
tf.raw_ops.UnicodeScript / UnsortedSegmentJoin) on the CPU, run eagerly, so
errors are the kernels' own messages.

Writes tests/data/kernels/tf_text/<group>.rec: named tensors as length-prefixed
records (4-byte little-endian length, then the bytes): name, dtype ("string",
"int64", ..., or "error"), shape (dims separated by spaces), then for strings
one record per element, for numbers one record of little-endian bytes, for
"error" one record with TensorFlow's message. A case is stored as
<case>.0, <case>.1, ... (its outputs) or <case>.error and <case>.code (the
status code); its inputs as
<case>.in.<k> and its attrs as <case>.attr.<name> (strings, or int64 / bool
scalars), so the C++ test repeats the exact call.
"""
import os
import pathlib
import re
import struct
import sys

_HERE = pathlib.Path(__file__).resolve().parent
sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _HERE]
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tensorflow_text  # noqa: E402,F401  (registers the ops)
from tensorflow_text.python.ops import bert_tokenizer  # noqa: E402
from tensorflow_text.python.ops import normalize_ops  # noqa: E402
from tensorflow_text.python.ops import regex_split_ops  # noqa: E402
from tensorflow_text.python.ops import wordpiece_tokenizer  # noqa: E402

REPO = _HERE.parents[2]
OUT = REPO / "tests" / "data" / "kernels" / "tf_text"

gen_wordpiece = wordpiece_tokenizer.gen_wordpiece_tokenizer
gen_regex = regex_split_ops.gen_regex_split_ops
gen_normalize = normalize_ops.gen_normalize_ops


def S(*xs):
    return np.array([x.encode() if isinstance(x, str) else x for x in xs], dtype=object)


class Rec:
    def __init__(self, group):
        self.group = group
        self.items = []
        self.names = set()

    def put(self, name, value, dtype=None):
        assert name not in self.names, name
        self.names.add(name)
        if isinstance(value, Exception):
            # The kernel's own words, without eager mode's "{{function_node ...}} "
            # and " [Op:...]" around them.
            msg = getattr(value, "message", str(value))
            msg = re.sub(r"^\{\{function_node [^}]*\}\} ", "", msg)
            msg = re.sub(r" \[Op:\w+\]( name: .*)?$", "", msg, flags=re.S)
            self.items.append((name, "string", (), [msg.encode()]))
            return
        if hasattr(value, "numpy"):
            value = value.numpy()
        if isinstance(value, bool):
            value = np.array(value)
        elif isinstance(value, int):
            value = np.int64(value)
        a = np.asarray(value, dtype=dtype)
        if a.dtype == object or a.dtype.kind in "SU":
            flat = [x if isinstance(x, bytes) else str(x).encode() for x in a.reshape(-1)]
            self.items.append((name, "string", a.shape, flat))
            return
        kind = {np.dtype(np.int32): "int32", np.dtype(np.int64): "int64",
                np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
                np.dtype(np.bool_): "bool"}[a.dtype]
        self.items.append((name, kind, a.shape, [a.astype(a.dtype.newbyteorder("<")).tobytes()]))

    def case(self, name, fn, inputs, attrs):
        for k, x in enumerate(inputs):
            self.put(f"{name}.in.{k}", x)
        for key, v in attrs.items():
            self.put(f"{name}.attr.{key}", v.encode() if isinstance(v, str) else v,
                     dtype=object if isinstance(v, str) else None)
        try:
            # Explicit tensors: eager mode caches NumPy scalars that subclass Python's float by
            # value, and a float64 -0.3 after float32 inputs reached RaggedRange as 0.
            out = fn(*[tf.constant(x) for x in inputs], **attrs)
        except (tf.errors.OpError, ValueError, TypeError) as e:
            self.put(name + ".error", e)
            self.put(name + ".code", int(getattr(e, "error_code", 3)))
            print(f"  {name}: {self.items[-2][3][0].decode()[:150]}")
            return
        outs = out if isinstance(out, (list, tuple)) else [out]
        for k, t in enumerate(outs):
            self.put(f"{name}.{k}", t)

    def write(self):
        OUT.mkdir(parents=True, exist_ok=True)
        path = OUT / (self.group + ".rec")
        with open(path, "wb") as f:
            for name, kind, shape, payload in self.items:
                for rec in [name.encode(), kind.encode(),
                            " ".join(str(d) for d in shape).encode()] + payload:
                    f.write(struct.pack("<I", len(rec)))
                    f.write(rec)
        print(f"{path}: {len(self.items)} tensors, {os.path.getsize(path)} bytes")


# ------------------------------------------------------------------ wordpiece

VOCAB = ["[UNK]", "the", "##s", "great", "un", "##aff", "##able", "runn", "##ing", "hello",
         "h", "##e", "##ll", "##o", "你", "好", "##好", "a", "##b", "##c", "@@b", "@@c",
         "é", "##é", "##l", "##llo", "x", b"##\xff"]


def wordpiece():
    rec = Rec("wordpiece")
    keys = [v if isinstance(v, bytes) else v.encode("utf-8") for v in VOCAB]
    rec.put("vocab", np.array(keys, dtype=object))
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant(keys), tf.range(len(keys), dtype=tf.int64)),
        default_value=-1)
    words = S("unaffable", "running", "the", "xyz", "", "hello", "thes", "你好", "abc",
              "unaffableunaffable", b"x\xff\xfeb", "h\xe9llo".encode("utf-8"), "héllo", "a", "你好好",
              "greatness")

    def run(values, **attrs):
        return gen_wordpiece.wordpiece_tokenize_with_offsets(
            input_values=values, vocab_lookup_table=table.resource_handle, **attrs)

    n = 0
    for suffix in ["##", "@@"]:
        for max_bytes in [100, 9]:
            for max_chars in [0, 3]:
                for use_unknown in [True, False]:
                    for split in [False, True]:
                        for partition in ["row_lengths", "row_splits"]:
                            if (n % 3 != 0) and suffix == "@@":
                                n += 1
                                continue
                            attrs = dict(suffix_indicator=suffix, max_bytes_per_word=max_bytes,
                                         max_chars_per_token=max_chars,
                                         use_unknown_token=use_unknown, unknown_token="[UNK]",
                                         split_unknown_characters=split,
                                         output_row_partition_type=partition)
                            rec.case(f"wp{n}", run, [words], attrs)
                            n += 1
    # An empty unknown token, an empty batch.
    rec.case("wp_empty_unk", run, [words], dict(
        suffix_indicator="##", max_bytes_per_word=100, use_unknown_token=True, unknown_token=""))
    rec.case("wp_no_words", run, [S()], dict(
        suffix_indicator="##", max_bytes_per_word=100, use_unknown_token=True,
        unknown_token="[UNK]", output_row_partition_type="row_splits"))
    rec.write()


# ------------------------------------------------------------------ regex split

TEXTS = S("hello world", "  leading and trailing  ", "", "a,b;;c", "Don't stop, believing!",
          "héllo wörld 你好吗", "tabs\tand\nnewlines", b"nul a\x00b c", "x", "[unused3] ok",
          b"bad \xff\xfe utf8", "end.")
BERT_DELIM = bert_tokenizer._DELIM_REGEX_PATTERN
BERT_KEEP = bert_tokenizer._KEEP_DELIM_NO_WHITESPACE_PATTERN


def regex_split():
    rec = Rec("regex_split")

    def run(text, delim, keep):
        return gen_regex.regex_split_with_offsets(text, delim, keep)

    cases = [
        ("bert", "(" + BERT_DELIM + ")", "(" + BERT_KEEP + ")"),
        ("space", r"(\s+)", ""),
        ("space_keep", r"(\s+)", r"(\s+)"),
        ("comma", "([,;])", "(,)"),
        ("no_group", r"\s", ""),
        ("two_groups", r"(\s)(\s)?", r"(\s)"),
        ("letters", "([a-z]+)", ""),
        ("cjk", r"([\x{4E00}-\x{9FFF}])", r"([\x{4E00}-\x{9FFF}])"),
        ("bad_delim", "((", ""),
        ("bad_keep", r"(\s)", "(?P<x"),
    ]
    for name, delim, keep in cases:
        rec.case(name, run, [TEXTS, np.array(delim.encode(), dtype=object),
                             np.array(keep.encode(), dtype=object)], {})
    rec.case("bad_shape", run, [TEXTS, S(r"(\s)", r"(,)"), np.array(b"", dtype=object)], {})
    rec.write()


# ------------------------------------------------------------------ normalize

NORM_TEXTS = S("Héllo Wörld", "e\u0301", "ﬁ ﬂ", "Ⅻ ㎏ ①", "ＡＢＣ ｶﾀｶﾅ", "한국어", "Straße",
               "İstanbul", "ΣΑΣ ς", "ǅ", "Å Å", "你好", "", "TeSt 123 !?", b"bad \xff\xfe",
               b"cut \xc3", "\u1e9b\u0323", "Ǆ ǉ", "A\u030a\u0323", "\u00ad soft hyphen",
               "\u2126 \u212b")


def normalize():
    rec = Rec("normalize")
    shaped = NORM_TEXTS[:20].reshape(4, 5)
    rec.case("casefold", lambda x: gen_normalize.case_fold_utf8(x), [NORM_TEXTS], {})
    rec.case("casefold_2d", lambda x: gen_normalize.case_fold_utf8(x), [shaped], {})
    for form in ["NFC", "NFKC", "NFD", "NFKD", "nfd", "Nfkc", "NFX", "NFKC_CF", ""]:
        rec.case(f"norm_{form or 'empty'}",
                 lambda x, normalization_form: gen_normalize.normalize_utf8(x, normalization_form),
                 [NORM_TEXTS], {"normalization_form": form})
    rec.case("norm_2d", lambda x, normalization_form: gen_normalize.normalize_utf8(
        x, normalization_form), [shaped], {"normalization_form": "NFKD"})
    rec.write()


# ------------------------------------------------------------------ core ops

CODE_POINTS = [65, 0x4E00, 0x410, 0x5D0, 0x627, 0x3042, 0x30A2, 0xAC00, 0x300, 0x20, 0xE01,
               -1, 0x110000, 0x10FFFF, 0xE000, 0x1F600, 0x378, 0x10000, 0x0B95, 0x0905, 0x10A0,
               0x1200, 0x13A0, 0x1780, 0xFF21, 0x3000, 0x2E80, 0x30FC, 0x0, 0x7FFFFFFF,
               -2147483648, 0xD800, 0x1D400, 0x20000]


def core():
    rec = Rec("core")
    cp = np.array(CODE_POINTS, dtype=np.int32)
    rec.case("script", lambda x: tf.raw_ops.UnicodeScript(input=x), [cp], {})
    rec.case("script_2d", lambda x: tf.raw_ops.UnicodeScript(input=x), [cp[:30].reshape(5, 6)],
             {})

    def join(inputs, segment_ids, num_segments, **attrs):
        return tf.raw_ops.UnsortedSegmentJoin(inputs=inputs, segment_ids=segment_ids,
                                              num_segments=num_segments, **attrs)

    words = S("a", "", "bc", "d", "", "e", "f", "")
    ids = np.array([0, 2, 0, 3, 0, 2, 0, 0], np.int32)
    i64 = np.int64
    rec.case("join", join, [words, ids, np.int32(5)], {"separator": ", "})
    rec.case("join_nosep", join, [words, ids.astype(i64), i64(4)], {})
    rec.case("join_nul_sep", join, [words, ids, np.int32(4)], {"separator": "-\x00+"})
    grid = words.reshape(4, 2)
    rec.case("join_2d", join, [grid, np.array([1, 0, 1, 1], np.int32), np.int32(3)],
             {"separator": "|"})
    rec.case("join_2d_ids", join, [grid, np.array([[1, 0], [0, 0], [2, 1], [0, 2]], i64),
                                   i64(3)], {"separator": "+"})
    rec.case("join_3d", join, [S(*"abcdefghijkl").reshape(3, 2, 2), np.array([1, 1, 0], np.int32),
                               np.int32(2)], {"separator": "."})
    rec.case("join_empty", join, [S(), np.array([], np.int32), np.int32(2)], {"separator": "."})
    rec.case("join_big_id", join, [words, np.array([0, 1, 2, 3, 4, 5, 6, 7], np.int32),
                                   np.int32(7)], {})
    rec.case("join_neg_id", join, [words, -ids, np.int32(5)], {})
    rec.case("join_rank0_ids", join, [words[:1].reshape(()), np.int32(0), np.int32(1)], {})
    rec.case("join_dim", join, [grid, np.array([0, 1, 0], np.int32), np.int32(2)], {})
    rec.case("join_rank", join, [words, ids.reshape(2, 4), np.int32(4)], {})
    rec.case("join_no_segments", join, [words, ids, np.array([], np.int32)], {})
    rec.write()


# ------------------------------------------------------------------ ragged

def ragged():
    """RaggedRange and RaggedGather, what slicing and concatenating ragged rows leave in a
    preprocessor's graph. Tsplits is stored as <case>.attr.Tsplits ("int32" / "int64")."""
    rec = Rec("ragged")

    def rng(starts, limits, deltas, Tsplits="int64"):
        return tf.raw_ops.RaggedRange(starts=starts, limits=limits, deltas=deltas,
                                      Tsplits=tf.as_dtype(Tsplits))

    i32, i64, f32, f64 = np.int32, np.int64, np.float32, np.float64
    rec.case("range_scalars", rng, [i64(2), i64(11), i64(3)], {})
    rec.case("range_vectors", rng, [np.array([0, 5, 8, 3], i32), np.array([3, 5, 0, 9], i32),
                                    np.array([1, 2, -3, 2], i32)], {"Tsplits": "int32"})
    rec.case("range_broadcast", rng, [i64(0), np.array([4, 0, 7, 1], i64), i64(2)], {})
    rec.case("range_float", rng, [np.array([0.5, 1.0, -2.0], f32), f32(3.2),
                                  np.array([0.7, 0.1, 1.5], f32)], {})
    rec.case("range_double", rng, [f64(1.0), np.array([0.0, 2.5], f64), f64(-0.3)], {})
    rec.case("range_empty", rng, [np.array([], i64), np.array([], i64), i64(1)], {})
    rec.case("range_zero_delta", rng, [np.array([0, 1], i32), i32(5), np.array([1, 0], i32)],
             {"Tsplits": "int32"})
    rec.case("range_sizes", rng, [np.array([0, 1], i64), np.array([3, 4, 5], i64), i64(1)], {})
    rec.case("range_rank2", rng, [np.zeros((2, 2), i64), i64(3), i64(1)], {})

    def gather(*inputs, OUTPUT_RAGGED_RANK):
        *splits, values, indices = inputs
        out = tf.raw_ops.RaggedGather(params_nested_splits=splits, params_dense_values=values,
                                      indices=indices, OUTPUT_RAGGED_RANK=OUTPUT_RAGGED_RANK)
        return list(out.output_nested_splits) + [out.output_dense_values]

    words = S("a", "b", "c", "d", "e", "f", "g")
    splits = np.array([0, 2, 2, 5, 7], i64)
    rec.case("gather_1d", gather, [splits, words, np.array([3, 0, 1, 3, 2], i32)],
             {"OUTPUT_RAGGED_RANK": 1})
    rec.case("gather_2d_indices", gather, [splits, words, np.array([[2, 0], [1, 3], [3, 3]], i64)],
             {"OUTPUT_RAGGED_RANK": 2})
    rec.case("gather_nested", gather, [np.array([0, 1, 3, 3], i32), np.array([0, 2, 2, 5], i32),
                                       np.arange(10, dtype=f32).reshape(5, 2),
                                       np.array([1, 2, 0, 1], i32)], {"OUTPUT_RAGGED_RANK": 2})
    rec.case("gather_empty", gather, [splits, words, np.array([], i32)], {"OUTPUT_RAGGED_RANK": 1})
    rec.case("gather_int64_values", gather, [np.array([0, 3, 4], i64), np.array([7, 8, 9, 10], i64),
                                             np.array([1, 1, 0], i64)], {"OUTPUT_RAGGED_RANK": 1})
    rec.case("gather_bad_index", gather, [splits, words, np.array([[0, 1], [4, 0]], i32)],
             {"OUTPUT_RAGGED_RANK": 2})
    rec.case("gather_neg_index", gather, [splits, words, np.array([-1], i32)],
             {"OUTPUT_RAGGED_RANK": 1})
    rec.case("gather_unsorted", gather, [np.array([0, 3, 2, 7], i64), words, np.array([0], i32)],
             {"OUTPUT_RAGGED_RANK": 1})
    rec.case("gather_past_values", gather, [np.array([0, 3, 9], i64), words, np.array([0], i32)],
             {"OUTPUT_RAGGED_RANK": 1})
    rec.case("gather_negative_split", gather, [np.array([-1, 3, 5], i64), words,
                                               np.array([0], i32)], {"OUTPUT_RAGGED_RANK": 1})
    rec.write()


if __name__ == "__main__":
    wordpiece()
    regex_split()
    normalize()
    core()
    ragged()
