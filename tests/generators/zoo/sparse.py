"""Sparse features (issue 35): a tf.Module that parses serialized tf.Example protos with
VarLenFeatures (ids with weights, and tags) and pools embeddings as a recommender or CTR model
does: tf.nn.safe_embedding_lookup_sparse with combiner "mean" and "sqrtn" (weighted and not),
tf.nn.embedding_lookup_sparse "sum", lookups in a sharded table, a multi-hot sparse x dense
product (sparse_dense_matmul), tf.sparse.concat/add/reduce_sum and tf.sparse.to_dense. Graph
ops: ParseExampleV2, SparseReshape, SparseFillEmptyRows, SparseSegmentMean/SqrtN/Sum,
SegmentSum, SparseTensorDenseMatMul, SparseToDense, SparseConcat, SparseAdd, SparseReduceSum,
and for the sharded table DynamicPartition and ParallelDynamicStitch."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for, seed_everything

VOCAB = 12
DIM = 4


def _examples(rng, batch):
    import tensorflow as tf

    examples = []
    for b in range(batch):
        # Some examples have no ids (safe_embedding_lookup_sparse gives them the default row), a
        # negative id (pruned) or a weight of 0 (pruned from the weighted lookup).
        n = int(rng.integers(0, 6)) if b != 1 else 0
        ids = rng.integers(0, VOCAB, n).tolist()
        if b == 2 and n:
            ids[0] = -1
        weights = np.round(rng.random(n) * 2, 3).tolist()
        if b == 3 and n:
            weights[-1] = 0.0
        tags = [t.encode() for t in rng.choice(["a", "bb", "ccc", "dd"], int(rng.integers(0, 3)))]
        feature = {
            "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=ids)),
            "weights": tf.train.Feature(float_list=tf.train.FloatList(value=weights)),
            "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=tags)),
        }
        examples.append(tf.train.Example(
            features=tf.train.Features(feature=feature)).SerializeToString())
    return np.array(examples, dtype=object)


def _embedding_module(export_dir):
    import tensorflow as tf

    seed_everything("sparse_embedding")
    rng = rng_for("sparse_embedding/weights")

    class SparseFeatures(tf.Module):
        def __init__(self):
            super().__init__()
            self.table = tf.Variable(rng.standard_normal((VOCAB, DIM)).astype(np.float32))
            self.dense = tf.Variable(rng.standard_normal((VOCAB, 3)).astype(np.float32))
            # A table sharded in two, as partitioned variables are: lookups go through
            # DynamicPartition and ParallelDynamicStitch.
            self.shards = [tf.Variable(rng.standard_normal((VOCAB // 2, DIM)).astype(np.float32))
                           for _ in range(2)]

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="examples")])
        def __call__(self, examples):
            f = tf.io.parse_example(examples, {
                "ids": tf.io.VarLenFeature(tf.int64),
                "weights": tf.io.VarLenFeature(tf.float32),
                "tags": tf.io.VarLenFeature(tf.string),
            })
            ids, weights = f["ids"], f["weights"]
            mean = tf.nn.safe_embedding_lookup_sparse(self.table, ids, combiner="mean")
            sqrtn = tf.nn.safe_embedding_lookup_sparse(self.table, ids, combiner="sqrtn")
            weighted = tf.nn.safe_embedding_lookup_sparse(self.table, ids, weights,
                                                          combiner="sqrtn")
            # A 2-D [batch, 1, DIM] lookup: safe_embedding_lookup_sparse reshapes through
            # SparseReshape.
            ids3 = tf.sparse.expand_dims(ids, 1)
            mean3 = tf.nn.safe_embedding_lookup_sparse(self.table, ids3, combiner="mean")
            # Multi-hot: ids as the columns of a [batch, VOCAB] sparse matrix of weights.
            valid = tf.sparse.retain(weights, ids.values >= 0)
            cols = tf.boolean_mask(ids.values, ids.values >= 0)
            multi_hot = tf.SparseTensor(
                tf.stack([valid.indices[:, 0], cols], axis=1), valid.values,
                tf.stack([ids.dense_shape[0], tf.constant(VOCAB, tf.int64)]))
            logits = tf.sparse.sparse_dense_matmul(multi_hot, self.dense)
            return {
                "mean": mean,
                "sqrtn": sqrtn,
                "weighted_sqrtn": weighted,
                "mean_3d": mean3,
                "logits": logits,
                "ids_dense": tf.sparse.to_dense(ids, default_value=-7),
                "tags_dense": tf.sparse.to_dense(f["tags"], default_value=b"<none>"),
                "sum_nonempty": tf.nn.embedding_lookup_sparse(
                    self.table, tf.sparse.retain(ids, ids.values >= 0), None, combiner="sum"),
                "sharded_mean": tf.nn.safe_embedding_lookup_sparse(self.shards, ids,
                                                                   combiner="mean"),
                # SparseConcat and SparseAdd of features with the same entries.
                "ids_twice": tf.sparse.to_dense(tf.sparse.concat(1, [ids, ids])),
                "ids_plus_weights": tf.sparse.to_dense(
                    tf.sparse.add(weights, tf.cast(ids, tf.float32))),
                "weight_sum": tf.sparse.reduce_sum(weights, axis=1),
            }

    m = SparseFeatures()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.__call__})
    rng = rng_for("sparse_embedding/inputs")
    return [Case(f"b{b}", "serving_default", {"examples": _examples(rng, b)}) for b in (1, 6)]


def models():
    return [
        ZooModel("sparse_embedding", _embedding_module, commit=True,
                 exporter="tf.saved_model.save",
                 note="tf.Example VarLenFeatures, safe_embedding_lookup_sparse mean/sqrtn "
                      "(one table and two shards), sparse_dense_matmul, "
                      "sparse.concat/add/reduce_sum, sparse.to_dense"),
    ]
