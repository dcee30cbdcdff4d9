#!/usr/bin/env python3
"""Goldens for the string and lookup-table kernels.

Consumed by tests/kernels/string_ops_test.cc and lookup_table_ops_test.cc.
Run with /work/main/.venv/bin/python -P (TensorFlow 2.x; -P keeps this folder's
array.py from shadowing the standard library). Every expected value
comes from tf.raw_ops.<Op> on the CPU.

Writes under tests/data/kernels/strings/:
  <group>.rec   named tensors, each as length-prefixed records (4-byte
                little-endian length, then the bytes):
                  name, dtype ("string", "int64", ..., or "error"),
                  shape (dims separated by spaces; "" for a scalar),
                  then for strings one record per element, for numbers one
                  record of little-endian element bytes, for "error" one
                  record with TensorFlow's message.
  vocab*.txt    text files for InitializeTableFromTextFileV2.
  text_model/, asset_model/   small TF2 SavedModels (string front end, text-file
                table) with their outputs in text_model_golden.rec and
                asset_model_golden.rec (tests/api/string_models_test.cc).
The op configurations are repeated in the C++ tests; keep them in sync.
"""
import os
import struct

import numpy as np
import tensorflow as tf

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(REPO, "tests", "data", "kernels", "strings")

rng = np.random.default_rng(20240917)


class Rec:
    """Collects named tensors for one .rec file."""

    def __init__(self, group):
        self.group = group
        self.items = []
        self.names = set()

    def put(self, name, value, dtype=None):
        assert name not in self.names, name
        self.names.add(name)
        if isinstance(value, Exception):
            msg = getattr(value, "message", str(value)).encode()
            self.items.append((name, "error", (), [msg]))
            return
        if hasattr(value, "numpy"):
            value = value.numpy()
        a = np.asarray(value, dtype=dtype)
        if a.dtype == object or a.dtype.kind in "SU":
            flat = [x if isinstance(x, bytes) else str(x).encode() for x in a.reshape(-1)]
            self.items.append((name, "string", a.shape, flat))
        else:
            kind = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
                    np.dtype(np.int32): "int32", np.dtype(np.int64): "int64",
                    np.dtype(np.bool_): "bool", np.dtype(np.uint32): "uint32",
                    np.dtype(np.uint64): "uint64", np.dtype(np.int8): "int8",
                    np.dtype(np.uint8): "uint8", np.dtype(np.int16): "int16",
                    np.dtype(np.uint16): "uint16", np.dtype(np.complex64): "complex64"}[a.dtype]
            self.items.append((name, kind, a.shape, [a.astype(a.dtype.newbyteorder("<")).tobytes()]))

    def run(self, name, fn):
        """Stores fn()'s outputs as name.0, name.1, ... or name.error."""
        try:
            out = fn()
        except (tf.errors.OpError, ValueError, TypeError) as e:
            self.put(name + ".error", e)
            return None
        outs = out if isinstance(out, (list, tuple)) else [out]
        for k, t in enumerate(outs):
            self.put(f"{name}.{k}", t)
        return out

    def write(self):
        path = os.path.join(OUT, self.group + ".rec")
        with open(path, "wb") as f:
            for name, kind, shape, payload in self.items:
                for rec in [name.encode(), kind.encode(),
                            " ".join(str(d) for d in shape).encode()] + payload:
                    f.write(struct.pack("<I", len(rec)))
                    f.write(rec)
        print(f"{path}: {len(self.items)} tensors, {os.path.getsize(path)} bytes")


S = lambda *xs: np.array([x.encode() if isinstance(x, str) else x for x in xs], dtype=object)

# ------------------------------------------------------------------ regex

TEXTS = [
    "this movie was great, i loved it!", "", "aaa", "The the THE then", "foo@bar.com x@y.org",
    "héllo wörld 你好", "line1\nline2\n", b"\xff\xfeab\xc3", "a.b\\c [x] {y}", "  pad  ",
    "<br />one<br /><br />two", "abcabd", "ab12cd345", "\u212a K k \u017f s!",
]

PATTERNS = [
    # (pattern, rewrite)
    (r"""[!"\#\$%\&'\(\)\*\+,\-\./:;<=>\?@\[\\\]\^_`\{\|\}\~]""", ""),  # TextVectorization
    ("<br />", " "),
    ("x*", "-"),
    ("a|b", "<\\0>"),
    ("(a)(b)?", "[\\1|\\2]"),
    ("(?i)the", "X"),
    (r"^\s+|\s+$", ""),
    (r"\s+", " "),
    ("[^a-z]", "_"),
    (r"\bthe\b", "*"),
    (r"(\w+)@(\w+)\.(com|org)", "\\2 at \\1"),
    ("a{2,3}", "#"),
    ("a{2,}?", "#"),
    ("(?:ab)+", "%"),
    (".", "."),
    ("(?s).", "."),
    ("[[:punct:]]", ""),
    (r"\d+", "<num>"),
    ("[\\x{4e00}-\\x{9fff}]", "C"),
    ("é|ö", "e"),
    ("$", "$"),
    ("^", "^"),
    ("(?m)^", ">"),
    ("(?m)$", "<"),
    (r"\Qa.b\E", "Q"),
    ("a*?", "-"),
    ("(a|ab)(c|bcd)(d*)", "[\\1,\\2,\\3]"),
    ("(a+)(b+)?", "\\2\\1"),
    ("[]a]", "!"),
    ("[^]a]", "!"),
    (r"\\", "/"),
    (r"\.", "\\\\"),
    ("b*", "X"),
    ("(ab)", "\\3"),         # names a group the pattern lacks: unchanged
    ("a", "\\q"),            # malformed rewrite
    (r"\D\W", "~"),
    ("[a-c-]", "+"),
    (r"\x41|\101|\n", "?"),
    ("(?U)a+", "A"),
    ("(?i:A)b", "_"),
    (r"\Bb", "B"),
    (r"\A(?:t|l)", "^"),
    (r"e\z", "E"),
    ("[\\d\\s]", ""),
    ("(?i)[k-s]", "#"),       # folds to KELVIN SIGN and LONG S, as RE2 does
    ("(?i)\\W+", "_"),
    ("(?i)[^k]", "."),
]

BAD_PATTERNS = ["(", ")", "a**", "*a", "[z-a]", "a{2,1}", r"\1", "[a", "a{1001}", "(?<", r"\q",
                "x++"]


def regex_goldens():
    rec = Rec("regex")
    texts = S(*TEXTS)
    for i, (pattern, rewrite) in enumerate(PATTERNS):
        rec.put(f"p{i}.pattern", S(pattern))
        rec.put(f"p{i}.rewrite", S(rewrite))
        rec.run(f"p{i}.global", lambda: tf.raw_ops.StaticRegexReplace(
            input=texts, pattern=pattern, rewrite=rewrite, replace_global=True))
        rec.run(f"p{i}.first", lambda: tf.raw_ops.StaticRegexReplace(
            input=texts, pattern=pattern, rewrite=rewrite, replace_global=False))
        rec.run(f"p{i}.full", lambda: tf.raw_ops.StaticRegexFullMatch(input=texts, pattern=pattern))
    rec.put("texts", texts)
    # Random patterns and texts (fixed seed): RE2's leftmost-first choices,
    # empty matches, captures and malformed patterns/rewrites.
    import random
    r = random.Random(5)
    toks = ["a", "b", "c", ".", "*", "+", "?", "|", "(", ")", "[ab]", "[^a]", "^", "$", "\\b",
            "\\B", "\\d", "\\w", "\\s", "{2}", "{1,3}", "{2,}", "(?i)", "(?:", "(?s)", "(?m)",
            "é", "[a-c]", "*?", "+?", "??", "(a|ab)", "(b*)", "[[:alpha:]]", "\\z", "\\A",
            "((a)|b)", "\\Qa.\\E", "[^é]", "(?U)", "(?i:A)", "\\x61", "(?P<x>b)", "[\\d\\-]"]
    chars = ["a", "b", "c", "é", "\n", " ", "ab", "1", "_", "ü", "A", "B", "\t", "."]
    rewrites = ["<\\0>", "[\\1]", "\\2\\1", "-", "", "a\\qb"]
    for i in range(100):
        pattern = "".join(r.choice(toks) for _ in range(r.randint(1, 6)))
        fz_texts = S(*["".join(r.choice(chars) for _ in range(r.randint(0, 9))) for _ in range(4)])
        rewrite = r.choice(rewrites)
        rec.put(f"fz{i}.pattern", S(pattern))
        rec.put(f"fz{i}.rewrite", S(rewrite))
        rec.put(f"fz{i}.texts", fz_texts)
        for name, glob in [("global", True), ("first", False)]:
            rec.run(f"fz{i}.{name}", lambda: tf.raw_ops.RegexReplace(
                input=fz_texts, pattern=pattern, rewrite=rewrite, replace_global=glob))
        rec.run(f"fz{i}.full", lambda: tf.raw_ops.RegexFullMatch(input=fz_texts, pattern=pattern))

    for i, pattern in enumerate(BAD_PATTERNS):
        rec.put(f"bad{i}.pattern", S(pattern))
        rec.run(f"bad{i}", lambda: tf.raw_ops.RegexReplace(input=texts, pattern=pattern,
                                                           rewrite="x"))
    rec.write()


# ------------------------------------------------------- split, join, misc

def text_goldens():
    rec = Rec("text")
    words = S("Hello World", "ÄBC déf", "", "MiXeD 123 _x_", b"\xff\xc3\x84Z")
    rec.put("case.in", words)
    rec.run("lower", lambda: tf.raw_ops.StringLower(input=words))
    rec.run("upper", lambda: tf.raw_ops.StringUpper(input=words))
    # encoding='utf-8': ICU's full case mapping (ß -> SS, final sigma, İ), bad
    # bytes, a NUL (TF reads each string as a C string there).
    uwords = S("ÓÓSSCHLOË", "straße Ǆ ǅ ǆ", "ΟΔΟΣ ὈΔΥΣΣΕΎΣ", "İstanbul ıi", "Ⅻ ⓐ Ｆｕｌｌ 𐐀𐐨",
               b"ok\xff\xc3(bad", b"nul\x00AFTER", "", "ǈ ﬀ ŉ")
    rec.put("ucase.in", uwords)
    rec.run("ulower", lambda: tf.raw_ops.StringLower(input=uwords, encoding="utf-8"))
    rec.run("uupper", lambda: tf.raw_ops.StringUpper(input=uwords, encoding="utf-8"))
    rec.run("ulower_latin1", lambda: tf.raw_ops.StringLower(input=uwords, encoding="latin1"))
    rec.run("uupper_latin1", lambda: tf.raw_ops.StringUpper(input=uwords, encoding="latin1"))

    split_in = S("  a b\t\tc  ", "", "   ", "one", "x,,y,", "1<>2<>3<>", "a  b  c d")
    rec.put("split.in", split_in)
    for sep in ["", ",", "<>", " "]:
        for maxsplit in [-1, 0, 1, 2]:
            rec.run(f"splitv2.{sep!r}.{maxsplit}", lambda: tf.raw_ops.StringSplitV2(
                input=split_in, sep=sep, maxsplit=maxsplit))
    for delim in ["", " ,", "<>"]:
        for skip in [True, False]:
            rec.run(f"splitv1.{delim!r}.{skip}", lambda: tf.raw_ops.StringSplit(
                input=split_in, delimiter=delim, skip_empty=skip))

    a = S("a", "bb", "ccc", "")
    m = np.array([[b"x", b"y", b"z"], [b"u", b"v", b""]], dtype=object)
    rec.put("join.a", a)
    rec.put("join.m", m)
    rec.run("join.vec", lambda: tf.raw_ops.StringJoin(inputs=[a, "-", a], separator="|"))
    rec.run("join.scalars", lambda: tf.raw_ops.StringJoin(inputs=["p", "q"], separator=""))
    rec.run("join.mat", lambda: tf.raw_ops.StringJoin(inputs=[m, m, "!"], separator=" "))

    cube = np.array([[[f"{i}{j}{k}".encode() for k in range(2)] for j in range(3)]
                     for i in range(2)], dtype=object)
    rec.put("rj.m", m)
    rec.put("rj.cube", cube)
    for name, inp, idx, keep, sep in [
        ("rj0", m, [0], False, ""), ("rj1", m, [1], False, ""), ("rj01", m, [0, 1], False, ""),
        ("rj10", m, [1, 0], False, "."), ("rjnone", m, [], False, ""), ("rjneg", m, [-1], True, "+"),
        ("rjk0", m, [0], True, ","), ("cube20", cube, [2, 0], False, ":"),
        ("cube1", cube, [1], True, ""), ("cubeall", cube, [0, 1, 2], False, "")]:
        rec.run(name, lambda: tf.raw_ops.ReduceJoin(inputs=inp, reduction_indices=idx,
                                                    keep_dims=keep, separator=sep))
    rec.run("rjdup", lambda: tf.raw_ops.ReduceJoin(inputs=m, reduction_indices=[0, -2]))
    rec.run("rjbad", lambda: tf.raw_ops.ReduceJoin(inputs=m, reduction_indices=[2]))

    strip_in = S("  a b ", "\t\n x\r\v\f", "", "   ", "y")
    rec.put("strip.in", strip_in)
    rec.run("strip", lambda: tf.raw_ops.StringStrip(input=strip_in))

    lens_in = S("", "abc", "héllo", "你好", b"\xff\x80a")
    rec.put("len.in", lens_in)
    rec.run("len.byte", lambda: tf.raw_ops.StringLength(input=lens_in, unit="BYTE"))
    rec.run("len.utf8", lambda: tf.raw_ops.StringLength(input=lens_in, unit="UTF8_CHAR"))

    sub_in = S("hello", "héllo wörld", "", "abc")
    rec.put("substr.in", sub_in)
    for unit in ["BYTE", "UTF8_CHAR"]:
        for name, pos, ln in [("s03", 0, 3), ("s1m", 1, -1), ("sneg", -3, 2), ("slong", 2, 100),
                              ("s0", 0, 0), ("sbad", 6, 1), ("snegbad", -7, 2)]:
            rec.run(f"substr.{unit}.{name}", lambda: tf.raw_ops.Substr(
                input=sub_in, pos=pos, len=ln, unit=unit))
        pos = np.array([0, 2, 0, -1], np.int32)
        ln = np.array([2, 3, 0, 1], np.int32)
        rec.put(f"substr.{unit}.vec.pos", pos)
        rec.put(f"substr.{unit}.vec.len", ln)
        rec.run(f"substr.{unit}.vec", lambda: tf.raw_ops.Substr(input=sub_in, pos=pos, len=ln,
                                                                unit=unit))
    bpos = np.array([[0], [1]], np.int64)
    blen = np.array([[1], [2]], np.int64)
    bin_ = S("abc", "defg")
    rec.put("substr.b.in", bin_)
    rec.put("substr.b.pos", bpos)
    rec.put("substr.b.len", blen)
    rec.run("substr.bcast", lambda: tf.raw_ops.Substr(input=bin_, pos=bpos, len=blen))

    floats = np.array([0.0, -1.5, 3.14159265, 1e10, 1.25e-7, np.inf, -np.inf, np.nan, 100.0],
                      np.float32)
    ints = np.array([0, -7, 123456, 2147483647, -2147483648], np.int32)
    rec.put("as.f", floats)
    rec.put("as.i", ints)
    rec.put("as.i64", np.array([-(1 << 62), 42], np.int64))
    rec.put("as.b", np.array([True, False]))
    rec.put("as.u8", np.array([0, 255], np.uint8))
    rec.put("as.s", S("ab", "", "xyz"))
    rec.put("as.d", np.array([2.5, -0.1], np.float64))
    for name, x, kw in [
        ("f_default", floats, {}), ("f_prec2", floats, dict(precision=2)),
        ("f_sci", floats, dict(scientific=True)), ("f_short", floats, dict(shortest=True)),
        ("f_w12", floats, dict(width=12, precision=3)),
        ("f_fill0", floats, dict(width=10, fill="0")), ("f_left", floats, dict(width=10, fill="-")),
        ("f_plus", floats, dict(fill="+")),
        ("d_default", np.array([2.5, -0.1], np.float64), {}),
        ("i_default", ints, {}), ("i_w8", ints, dict(width=8)),
        ("i_fill0", ints, dict(width=8, fill="0")), ("i_space", ints, dict(fill=" ")),
        ("i64", np.array([-(1 << 62), 42], np.int64), {}),
        ("b", np.array([True, False]), {}), ("u8", np.array([0, 255], np.uint8), dict(width=4)),
        ("s_w5", S("ab", "", "xyz"), dict(width=5)), ("s_left", S("ab", "", "xyz"),
                                                        dict(width=5, fill="-")),
        ("i_prec", ints, dict(precision=2)), ("f_both", floats, dict(scientific=True,
                                                                      shortest=True)),
        ("f_badfill", floats, dict(fill="x"))]:
        rec.run(f"as.{name}", lambda: tf.raw_ops.AsString(input=x, **kw))

    num_in = S("0", "-12", " 42 ", "3.5", "1e3", "-inf", "NaN", "0x1A", "+7", "1e400", "-1e-400",
               "12abc", "", "  ", ".5", "5.", "2147483648", "-2147483648", "9223372036854775807",
               "9223372036854775808", "0.1234567890123456789012345678901", "INF", "+nan", "1_0",
               "0x", "1e", "--1", "4294967295", "0X1f", "-0x10", "0x1p3", "infinity", "nan(1)",
               "+-1", "-0", "007", "1" * 40, "\n3\n", "1 2")
    rec.put("num.in", num_in)
    for t in [tf.float32, tf.float64, tf.int32, tf.int64, tf.uint32, tf.uint64]:
        for i in range(len(num_in)):
            rec.run(f"num.{t.name}.{i}", lambda: tf.raw_ops.StringToNumber(
                string_tensor=num_in[i:i + 1], out_type=t))
    hash_in = S(*([""] + ["".join(chr(97 + (7 * i + j) % 26) for j in range(n))
                          for i, n in enumerate([1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64,
                                                 65, 100, 127, 128, 129, 200, 256, 300, 1000])]
                        + ["héllo", b"\x00\xff\x80", "TensorFlow"]))
    rec.put("hash.in", hash_in)
    for buckets in [1, 10, 1000003, (1 << 63) - 1]:
        rec.run(f"hash.{buckets}", lambda: tf.raw_ops.StringToHashBucketFast(
            input=hash_in, num_buckets=buckets))
    rec.write()


# ------------------------------------------------------------------ ragged

def ragged_goldens():
    rec = Rec("ragged")

    def case(name, shape, values, default, partitions, types):
        rec.put(f"{name}.shape", shape)
        rec.put(f"{name}.values", values)
        rec.put(f"{name}.default", default)
        for k, p in enumerate(partitions):
            rec.put(f"{name}.p{k}", p)
        rec.put(f"{name}.types", S(*types))
        rec.run(name, lambda: tf.raw_ops.RaggedTensorToTensor(
            shape=shape, values=values, default_value=default, row_partition_tensors=partitions,
            row_partition_types=types))

    tv_values = np.array([5, 6, 7, 8, 9, 10], np.int64)
    rowids = np.array([0, 0, 0, 2, 2, 3], np.int64)
    fd = ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]
    case("tv_pad", np.array([-1, 5], np.int64), tv_values, np.int64(0),
         [np.int64(4), rowids], fd)
    case("tv_trunc", np.array([-1, 2], np.int64), tv_values, np.int64(-1),
         [np.int64(4), rowids], fd)
    case("tv_auto", np.array([-1, -1], np.int64), tv_values, np.int64(0),
         [np.int64(5), rowids], fd)
    case("tv_scalar_shape", np.int64(-1), tv_values, np.int64(0), [np.int64(4), rowids], fd)
    case("tv_rows", np.array([2, 4], np.int64), tv_values, np.int64(3),
         [np.int64(4), rowids], fd)
    case("tv_empty", np.array([-1, 3], np.int64), np.zeros([0], np.int64), np.int64(0),
         [np.int64(2), np.zeros([0], np.int64)], fd)
    case("tv_empty_auto", np.array([-1, -1], np.int64), np.zeros([0], np.int64), np.int64(0),
         [np.int64(2), np.zeros([0], np.int64)], fd)
    case("splits", np.array([-1, -1], np.int32), S("a", "b", "c", "d"), np.array(b"?", dtype=object),
         [np.array([0, 1, 1, 4], np.int32)], ["ROW_SPLITS"])
    case("splits_inner", np.array([3, 2, 2], np.int64),
         rng.standard_normal([5, 2]).astype(np.float32), np.array([7.0, 8.0], np.float32),
         [np.array([0, 3, 5], np.int64)], ["ROW_SPLITS"])
    case("splits_bcast_default", np.array([-1, -1, 3], np.int64),
         rng.standard_normal([3, 3]).astype(np.float32), np.array([-1.0], np.float32),
         [np.array([0, 0, 3], np.int64)], ["ROW_SPLITS"])
    case("two_level", np.array([-1, -1, -1], np.int64), np.arange(7, dtype=np.int32),
         np.int32(-9), [np.array([0, 2, 3], np.int64), np.array([0, 3, 3, 7], np.int64)],
         ["ROW_SPLITS", "ROW_SPLITS"])
    case("two_level_rowids", np.array([-1, 1, 2], np.int64), np.arange(7, dtype=np.int32),
         np.int32(-9), [np.int64(2), np.array([0, 0, 1], np.int64),
                        np.array([0, 0, 0, 2, 2, 2, 2], np.int64)],
         ["FIRST_DIM_SIZE", "VALUE_ROWIDS", "VALUE_ROWIDS"])
    case("bad_rank", np.array([-1, 2, 2], np.int64), tv_values, np.int64(0),
         [np.int64(4), rowids], fd)
    rec.write()


# ----------------------------------------------------------------- tables

def table_goldens():
    rec = Rec("tables")
    keys = S("apple", "banana", "cherry", "date")
    vals = np.array([10, 20, 30, 40], np.int64)
    queries = np.array([[b"banana", b"kiwi"], [b"date", b""]], dtype=object)
    rec.put("s2i.keys", keys)
    rec.put("s2i.values", vals)
    rec.put("s2i.queries", queries)

    def hash_table(kd, vd, name):
        return tf.raw_ops.HashTableV2(key_dtype=kd, value_dtype=vd, shared_name=name)

    h = hash_table(tf.string, tf.int64, "g_s2i")
    tf.raw_ops.InitializeTableV2(table_handle=h, keys=keys, values=vals)
    rec.run("s2i.find", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=h, keys=queries, default_value=np.int64(-1)))
    rec.run("s2i.find_full_default", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=h, keys=queries, default_value=np.array([[1, 2], [3, 4]], np.int64)))
    rec.run("s2i.size", lambda: tf.raw_ops.LookupTableSizeV2(table_handle=h))
    rec.run("s2i.reinit_same_count", lambda: tf.raw_ops.InitializeTableV2(
        table_handle=h, keys=S("w", "x", "y", "z"), values=vals))
    rec.run("s2i.find_after_reinit", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=h, keys=queries, default_value=np.int64(-1)))
    rec.run("s2i.reinit_other_count", lambda: tf.raw_ops.InitializeTableV2(
        table_handle=h, keys=S("w"), values=np.array([1], np.int64)))
    rec.run("s2i.bad_default", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=h, keys=queries, default_value=np.array([1, 2], np.int64)))

    i2s_keys = np.array([0, 1, 2, 7], np.int64)
    i2s_vals = S("zero", "one", "two", "seven")
    rec.put("i2s.keys", i2s_keys)
    rec.put("i2s.values", i2s_vals)
    q = np.array([7, 3, 0, -1, 2], np.int64)
    rec.put("i2s.queries", q)
    h2 = hash_table(tf.int64, tf.string, "g_i2s")
    tf.raw_ops.LookupTableImportV2(table_handle=h2, keys=i2s_keys, values=i2s_vals)
    rec.run("i2s.find", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=h2, keys=q, default_value="UNK"))
    rec.run("i2s.export", lambda: tf.raw_ops.LookupTableExportV2(
        table_handle=h2, Tkeys=tf.int64, Tvalues=tf.string))

    h3 = hash_table(tf.string, tf.float32, "g_dup")
    rec.run("dup.init", lambda: tf.raw_ops.InitializeTableV2(
        table_handle=h3, keys=S("a", "b", "a"), values=np.array([1, 2, 3], np.float32)))
    h3b = hash_table(tf.string, tf.float32, "g_dup_same")
    rec.run("dup_same.init", lambda: tf.raw_ops.InitializeTableV2(
        table_handle=h3b, keys=S("a", "b", "a"), values=np.array([1, 2, 1], np.float32)))
    rec.run("dup_same.size", lambda: tf.raw_ops.LookupTableSizeV2(table_handle=h3b))
    h4 = hash_table(tf.string, tf.int64, "g_uninit")
    rec.run("uninit.find", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=h4, keys=keys, default_value=np.int64(0)))
    rec.run("uninit.size", lambda: tf.raw_ops.LookupTableSizeV2(table_handle=h4))

    m = tf.raw_ops.MutableHashTableV2(key_dtype=tf.int64, value_dtype=tf.float32,
                                      shared_name="g_mut")
    mq = np.array([1, 2, 3, 4], np.int64)
    rec.put("mut.queries", mq)
    rec.run("mut.find_empty", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=m, keys=mq, default_value=np.float32(-1)))
    tf.raw_ops.LookupTableInsertV2(table_handle=m, keys=np.array([1, 2, 3], np.int64),
                                   values=np.array([0.5, 1.5, 2.5], np.float32))
    tf.raw_ops.LookupTableInsertV2(table_handle=m, keys=np.array([2], np.int64),
                                   values=np.array([9.0], np.float32))
    rec.run("mut.find_inserted", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=m, keys=mq, default_value=np.float32(-1)))
    tf.raw_ops.LookupTableRemoveV2(table_handle=m, keys=np.array([1, 4], np.int64))
    rec.run("mut.find_removed", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=m, keys=mq, default_value=np.float32(-1)))
    rec.run("mut.size", lambda: tf.raw_ops.LookupTableSizeV2(table_handle=m))
    tf.raw_ops.LookupTableImportV2(table_handle=m, keys=np.array([4], np.int64),
                                   values=np.array([4.5], np.float32))
    rec.run("mut.find_imported", lambda: tf.raw_ops.LookupTableFindV2(
        table_handle=m, keys=mq, default_value=np.float32(-1)))

    # Text files.
    vocab = os.path.join(OUT, "vocab.txt")
    with open(vocab, "w", newline="") as f:
        f.write("the\t7\t0.5\nmovie\t-3\t1.25\r\ngreat\t12\t2\nzebra\t0\t-1")
    for name, kd, vd, ki, vi, kw in [
        ("line_to_id", tf.string, tf.int64, -2, -1, {}),
        ("line_to_id_offset", tf.string, tf.int64, -2, -1, dict(offset=5)),
        ("col0_to_col1", tf.string, tf.int64, 0, 1, {}),
        ("col0_to_col1_i32_offset", tf.string, tf.int32, 0, 1, dict(offset=100)),
        ("col0_to_col2_float", tf.string, tf.float32, 0, 2, {}),
        ("id_to_col0", tf.int64, tf.string, -1, 0, {}),
        ("col1_to_line", tf.int64, tf.string, 1, -2, {}),
        ("vocab2", tf.string, tf.int64, -2, -1, dict(vocab_size=2)),
        ("vocab9", tf.string, tf.int64, -2, -1, dict(vocab_size=9)),
        ("col5", tf.string, tf.int64, 0, 5, {}),
        ("col0_as_int", tf.string, tf.int64, 1, 0, {}),
        ("space_delim", tf.string, tf.int64, 0, -1, dict(delimiter=" ")),
    ]:
        t = hash_table(kd, vd, "g_file_" + name)
        res = rec.run(f"file.{name}.init", lambda: tf.raw_ops.InitializeTableFromTextFileV2(
            table_handle=t, filename=vocab, key_index=ki, value_index=vi, **kw))
        if res is None and f"file.{name}.init.error" in rec.names:
            continue
        rec.run(f"file.{name}.export", lambda: tf.raw_ops.LookupTableExportV2(
            table_handle=t, Tkeys=kd, Tvalues=vd))
    empty_line = os.path.join(OUT, "vocab_empty_line.txt")
    with open(empty_line, "w") as f:
        f.write("a\n\nb\n")
    t = hash_table(tf.string, tf.int64, "g_file_empty_line")
    rec.run("file.empty_line.init", lambda: tf.raw_ops.InitializeTableFromTextFileV2(
        table_handle=t, filename=empty_line, key_index=-2, value_index=-1))
    rec.write()


# ------------------------------------------------------------- a SavedModel

TEXT_MODEL_VOCAB = ["", "[UNK]", "the", "movie", "was", "great", "i", "loved", "it",
                    "terrible", "boring", "and", "far", "too", "long", "not", "bad"]
TEXT_MODEL_INPUTS = ["This movie was GREAT, I loved it!", "terrible, boring and far too long",
                     "", "Not bad.<br />Not bad at all... the the the the the the the the",
                     "  ünïcode   WAS   fine?  "]


def save_model(module, name, signature, inputs):
    """Saves `module` under OUT/<name>/ and its TensorFlow outputs for
    `inputs` (a dict) as <name>_golden.rec."""
    import shutil
    model_dir = os.path.join(OUT, name)
    shutil.rmtree(model_dir, ignore_errors=True)
    tf.saved_model.save(module, model_dir, signatures={"serving_default": signature})
    loaded = tf.saved_model.load(model_dir)
    out = loaded.signatures["serving_default"](**{k: tf.constant(v) for k, v in inputs.items()})
    rec = Rec(name + "_golden")
    for k, v in inputs.items():
        rec.put(k, v)
    for k in sorted(out):
        rec.put(k, out[k])
    rec.write()
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(model_dir) for f in fs)
    print(f"{model_dir}: {size} bytes")


def text_model():
    """A TF2 SavedModel with TextVectorization's front end as sentiment_bilstm
    uses it: lower, strip punctuation, split, StaticHashTable lookup (HashTableV2
    + LookupTableImportV2 in the init op), ragged to dense; then an int64 ->
    string table and StringJoin."""
    punct = PATTERNS[0][0]

    class TextModel(tf.Module):
        def __init__(self):
            super().__init__()
            keys = tf.constant(TEXT_MODEL_VOCAB[2:])
            ids = tf.range(2, len(TEXT_MODEL_VOCAB), dtype=tf.int64)
            self.vocab = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(keys, ids), default_value=np.int64(1))
            self.names = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(
                    tf.range(0, 12, dtype=tf.int64),
                    tf.constant([f"label_{i}" for i in range(12)])),
                default_value="?")

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="text")])
        def vectorize(self, text):
            x = tf.strings.lower(text)
            x = tf.strings.regex_replace(x, "<br />", " ")
            x = tf.strings.regex_replace(x, punct, "")
            tokens = tf.strings.split(x)
            ids = tf.ragged.map_flat_values(self.vocab.lookup, tokens)
            dense = ids.to_tensor(default_value=0, shape=[None, 8])
            return {"ids": dense,
                    "labels": self.names.lookup(dense),
                    "cleaned": tf.strings.join([x, "|"], separator=""),
                    "vocab_size": self.vocab.size()}

    m = TextModel()
    save_model(m, "text_model", m.vectorize, {"text": S(*TEXT_MODEL_INPUTS)})


def asset_model():
    """A TF2 SavedModel whose table is initialized from a text-file asset
    (InitializeTableFromTextFileV2; TF2 passes the asset path through a
    resource variable assigned in the init op)."""
    import tempfile
    tmp = tempfile.mkdtemp()
    labels_path = os.path.join(tmp, "labels.txt")
    with open(labels_path, "w") as f:
        f.write("\n".join(f"label_{i}" for i in range(12)) + "\n")

    class AssetModel(tf.Module):
        def __init__(self):
            super().__init__()
            self.labels = tf.lookup.StaticHashTable(
                tf.lookup.TextFileInitializer(
                    labels_path, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, tf.string,
                    tf.lookup.TextFileIndex.WHOLE_LINE),
                default_value="?")

        @tf.function(input_signature=[tf.TensorSpec([None], tf.int64, name="ids")])
        def label(self, ids):
            return {"labels": self.labels.lookup(ids)}

    m = AssetModel()
    save_model(m, "asset_model", m.label, {"ids": np.array([0, 11, 12, -1, 3], np.int64)})
    os.remove(labels_path)
    os.rmdir(tmp)


def main():
    os.makedirs(OUT, exist_ok=True)
    regex_goldens()
    text_goldens()
    ragged_goldens()
    table_goldens()
    text_model()
    asset_model()


if __name__ == "__main__":
    main()
