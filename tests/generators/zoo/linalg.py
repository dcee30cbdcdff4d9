"""A tf.Module a user would export for Gaussian-process regression with a whitening front end
(issue 35): the kernel matrix's diagonal gets the noise with tf.linalg.set_diag / diag_part
(MatrixSetDiagV3, MatrixDiagPartV3), Cholesky and cholesky_solve / triangular_solve
(MatrixTriangularSolve) give the posterior mean and variance, slogdet (LogMatrixDeterminant) and
the Cholesky diagonal the log marginal likelihood; the inputs are ZCA-whitened through eigh
(SelfAdjointEigV2) and tf.linalg.diag (MatrixDiagV3), and inv / det / solve (MatrixInverse,
MatrixDeterminant, MatrixSolve) report the batch covariance's conditioning."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for


def _gaussian_process(export_dir):
    import tensorflow as tf

    class GaussianProcess(tf.Module):
        def __init__(self):
            super().__init__()
            rng = rng_for("gp_linalg/weights")
            self.x_train = tf.Variable(rng.standard_normal((16, 3)).astype(np.float32))
            self.y_train = tf.Variable(rng.standard_normal((16, 1)).astype(np.float32))
            self.log_lengthscale = tf.Variable(np.float32(0.2))
            self.noise = tf.Variable(np.float32(0.1))

        def _rbf(self, a, b):
            d = a[:, None, :] - b[None, :, :]
            return tf.exp(-0.5 * tf.reduce_sum(d * d, -1) / tf.exp(2 * self.log_lengthscale))

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
        def __call__(self, x):
            # ZCA whitening with the batch covariance (plus the identity, so it is never singular).
            n = tf.cast(tf.shape(x)[0], tf.float32)
            xc = x - tf.reduce_mean(x, 0, keepdims=True)
            cov = tf.matmul(xc, xc, transpose_a=True) / n + tf.eye(3)
            e, v = tf.linalg.eigh(cov)
            zca = tf.matmul(v, tf.matmul(tf.linalg.diag(tf.math.rsqrt(e)), v, transpose_b=True))
            white = tf.matmul(xc, zca)
            cond = tf.linalg.det(cov) * tf.linalg.det(tf.linalg.inv(cov))
            solved = tf.linalg.solve(cov, tf.transpose(xc))
            # GP posterior on the raw inputs.
            k = self._rbf(self.x_train, self.x_train)
            k = tf.linalg.set_diag(k, tf.linalg.diag_part(k) + self.noise)
            chol = tf.linalg.cholesky(k)
            alpha = tf.linalg.cholesky_solve(chol, self.y_train)
            ks = self._rbf(x, self.x_train)
            mean = tf.matmul(ks, alpha)[:, 0]
            w = tf.linalg.triangular_solve(chol, tf.transpose(ks), lower=True)
            var = 1.0 + self.noise - tf.reduce_sum(w * w, 0)
            sign, logdet = tf.linalg.slogdet(k)
            log_ml = (-0.5 * tf.reduce_sum(self.y_train * alpha)
                      - tf.reduce_sum(tf.math.log(tf.linalg.diag_part(chol)))
                      - 8.0 * np.log(2 * np.pi).astype(np.float32))
            return {"mean": mean, "var": var, "white": white, "cond": cond,
                    "solved": tf.transpose(solved), "log_ml": log_ml,
                    "logdet": sign * logdet}

    m = GaussianProcess()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.__call__})
    rng = rng_for("gp_linalg/inputs")
    return [Case(f"b{b}", "serving_default",
                 {"x": rng.standard_normal((b, 3)).astype(np.float32)}) for b in (1, 7)]


def models():
    return [
        ZooModel("gp_linalg", _gaussian_process, commit=True, exporter="tf.saved_model.save",
                 note="Cholesky, MatrixTriangularSolve, LogMatrixDeterminant, SelfAdjointEigV2, "
                      "MatrixInverse, MatrixDeterminant, MatrixSolve, MatrixDiagV3, "
                      "MatrixDiagPartV3, MatrixSetDiagV3"),
    ]
