"""A BERT text preprocessor as users export it for TF Hub-style encoders (issue 35): a tf.Module
with tensorflow_text.BertTokenizer (a vocab file asset, lower_case=True: CaseFoldUTF8,
NormalizeUTF8 NFD, accents stripped by StaticRegexReplace, RegexSplitWithOffsets,
WordpieceTokenizeWithOffsets on a HashTableV2), merged to one wordpiece row per string, trimmed,
[CLS]/[SEP] added with plain ragged ops (concat, to_tensor) and padded to 32 as input_word_ids /
input_mask / input_type_ids. (text.combine_segments and text.pad_model_inputs make the same
tensors but add ~100 KB of ragged validation to the graph: the committed model stays < 300 KB.)

tensorflow_text is imported inside the builder only: the other zoo families build without it
(run this one with /work/venv-text/bin/python -P, which has tensorflow-text 2.21; 2.21.0 does not
import, see tests/generators/kernel_goldens/tf_text.py for 2.21.1 on PYTHONPATH)."""

import os

import numpy as np

from zoo.common import Case, ZooModel

SEQ_LENGTH = 32

# A few hundred wordpieces: specials, letters and their suffix forms, frequent English words and
# subwords, the CJK characters of the test strings (each its own token), punctuation.
_WORDS = """the of and to in is was for on that with as by at from it this be are an or his
had not but which have has were they one all their new after first can also more other its
about two her been time used may some so would into when there only most these up out people
many then over who world such three year between through made city during however state
during movie great loved it hello how are you today weather good bad play playing played
run running runs token tokenizer text model preprocess bert word piece cafe naive resume
school student teacher learn learning quick brown fox jump jumped lazy dog over""".split()
_SUBWORDS = """##s ##ed ##ing ##er ##ly ##ness ##able ##ion ##al ##e ##y ##a ##o ##i ##t ##n
##r ##l ##d ##en ##es ##ize ##izer ##ment ##ful ##less ##est ##ity ##ive""".split()
_CJK = list("你好世界中文日本語東京한국어")
_PUNCT = list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~¿¡。、")


def _vocab():
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)]
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + letters + ["##" + c for c in letters]
    for w in _WORDS + _SUBWORDS + _CJK + _PUNCT:
        if w not in words:
            words.append(w)
    return words


TEXTS = [
    "Hello, World! How are you today?",
    "Café naïve RÉSUMÉ Ångström",
    "你好世界 and 東京 text",
    "The quick brown fox jumped over the lazy dog.",
    "",
    "unknownwordzzz qwxj! tokenizer preprocessing",
    "MiXeD CaSe TeXt with numbers 12345 and symbols #@$",
    "한국어 ¿Qué tal? ¡Muy bien! Straße ﬁne",
    "tabs\tand\nnewlines\r\n  spaces   everywhere",
    "a very long sentence " * 6,
]


def _bert_preprocess(export_dir):
    import tensorflow as tf
    import tensorflow_text as text  # registers the TF Text ops for export and reload

    vocab = _vocab()
    vocab_path = os.path.join(os.path.dirname(export_dir), "vocab.txt")
    with open(vocab_path, "w", encoding="utf-8") as f:
        f.write("\n".join(vocab) + "\n")
    cls_id, sep_id = vocab.index("[CLS]"), vocab.index("[SEP]")

    class BertPreprocess(tf.Module):
        def __init__(self):
            super().__init__()
            self.tokenizer = text.BertTokenizer(vocab_path, lower_case=True,
                                                token_out_type=tf.int64)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="text")])
        def __call__(self, sentences):
            # [batch, words, wordpieces] -> [batch, wordpieces], trimmed so [CLS] and [SEP] fit.
            pieces = self.tokenizer.tokenize(sentences).merge_dims(-2, -1)
            pieces = pieces[:, :SEQ_LENGTH - 2]
            n = pieces.nrows()
            cls = tf.fill([n, 1], tf.constant(cls_id, tf.int64))
            sep = tf.fill([n, 1], tf.constant(sep_id, tf.int64))
            ids = tf.concat([cls, pieces, sep], axis=1).to_tensor(0, shape=[None, SEQ_LENGTH])
            mask = tf.cast(ids != 0, tf.int32)  # [PAD] is 0 and nothing else is
            return {"input_word_ids": tf.cast(ids, tf.int32), "input_mask": mask,
                    "input_type_ids": tf.zeros_like(mask)}

    m = BertPreprocess()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.__call__})
    os.remove(vocab_path)  # the export holds its own copy under assets/
    texts = np.array([t.encode() for t in TEXTS], dtype=object)
    return [Case("b10", "serving_default", {"text": texts}),
            Case("b1", "serving_default", {"text": texts[1:2]}),
            Case("b1_empty", "serving_default", {"text": np.array([b""], dtype=object)})]


def models():
    return [
        ZooModel("bert_text_preprocess", _bert_preprocess, commit=True,
                 exporter="tf.saved_model.save",
                 note="tensorflow_text BertTokenizer (lower_case): CaseFoldUTF8, NormalizeUTF8, "
                      "RegexSplitWithOffsets, WordpieceTokenizeWithOffsets; trim, [CLS]/[SEP], "
                      "pad to 32"),
    ]
