"""smrt against TensorFlow itself on the committed zoo models (not against
stored goldens): skipped where TensorFlow is not installed."""
import numpy as np
import pytest

import smrt
from conftest import assert_near_tf, case_inputs, zoo_cases, zoo_tolerance

tf = pytest.importorskip("tensorflow")


def first_cases():
    seen, out = set(), []
    for name, saved_model, case, manifest in zoo_cases():
        if name not in seen:
            seen.add(name)
            out.append((name, saved_model, case, manifest))
    return out


@pytest.mark.parametrize("name,saved_model,case,manifest", first_cases(),
                         ids=[c[0] for c in first_cases()])
def test_matches_tensorflow(name, saved_model, case, manifest):
    inputs = case_inputs(case, manifest)
    key = manifest["signature"]
    fn = tf.saved_model.load(str(saved_model)).signatures[key]
    want = fn(**{k: tf.constant(v) for k, v in inputs.items()})
    got = smrt.load(saved_model, signatures=key).run(key, inputs)
    assert sorted(got) == sorted(want)
    for out_name, value in want.items():
        value = value.numpy()
        if value.dtype == object:
            np.testing.assert_array_equal(got[out_name], value)
        else:
            assert_near_tf(got[out_name], value, f"{name} {out_name}", zoo_tolerance(name))
