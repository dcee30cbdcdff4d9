"""Custom ops from Python: smrt.load(..., custom_op_libraries=[...]) with the
C test library (tests/custom_ops/test_ops.c, whose path ctest passes in
SMRT_TEST_CUSTOM_OPS_LIBRARY) on examples/custom_op/model, checked against
NumPy; and a model's own log level (log_level=...), which silences the
warnings of that model alone."""
import logging
import os

import numpy as np
import pytest

import smrt
from conftest import SOURCE_DIR, ZOO

LIBRARY = os.environ.get("SMRT_TEST_CUSTOM_OPS_LIBRARY")
GELU_MODEL = SOURCE_DIR / "examples" / "custom_op" / "model"
needs_library = pytest.mark.skipif(not LIBRARY, reason="SMRT_TEST_CUSTOM_OPS_LIBRARY is not set "
                                   "(ctest sets it to the built tests/custom_ops library)")


def gelu_tanh(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


@needs_library
def test_a_model_runs_with_its_custom_op_library():
    model = smrt.load(GELU_MODEL, custom_op_libraries=[LIBRARY])
    x = np.linspace(-4, 4, 24, dtype=np.float32).reshape(6, 4)
    y = model.run("serving_default", x=x)["y"]
    assert y.dtype == np.float32 and y.shape == (6, 4)
    np.testing.assert_allclose(y, gelu_tanh(x), rtol=0, atol=1e-6)


@needs_library
def test_a_compute_error_names_the_node():
    model = smrt.load(GELU_MODEL, custom_op_libraries=[LIBRARY])
    x = np.array([[0, 1, np.nan, 2]], np.float32)
    with pytest.raises(smrt.Error) as e:
        model.run("serving_default", x=x)
    assert e.value.code == "INVALID_ARGUMENT"
    assert "(Addons>Gelu): Gelu of NaN at element 2" in e.value.message


def test_without_the_library_the_load_names_the_op():
    with pytest.raises(smrt.Error) as e:
        smrt.load(GELU_MODEL)
    assert e.value.code == "UNIMPLEMENTED"
    assert "Addons>Gelu" in e.value.message and "custom_op_libraries" in e.value.message


def test_a_library_that_does_not_open_is_named():
    with pytest.raises(smrt.Error) as e:
        smrt.load(GELU_MODEL, custom_op_libraries=["/nonexistent/libops.so"])
    assert e.value.code == "NOT_FOUND"
    assert "custom op library /nonexistent/libops.so does not load" in e.value.message


MLP = ZOO / "mlp_bn_dropout" / "saved_model"


def _smrt_warnings(caplog):
    return [r for r in caplog.records if r.name == "smrt" and r.levelno == logging.WARNING]


@pytest.mark.parametrize("level", ["ERROR", logging.ERROR])
def test_log_level_error_silences_the_warnings_of_a_model_that_falls_back(caplog, level):
    # float16 on the CPU falls back to float32 products, with a warning.
    before = smrt.get_log_level()
    smrt.set_log_level("WARNING")
    try:
        with caplog.at_level(logging.DEBUG, logger="smrt"):
            smrt.load(MLP, precision="float16", log_level=level)
            assert _smrt_warnings(caplog) == []
            smrt.load(MLP, precision="float16")
        records = _smrt_warnings(caplog)
        assert len(records) == 1
        assert "precision=float16 on the CPU" in records[0].getMessage()
        # The process's level is unchanged by the model's.
        assert smrt.get_log_level() == logging.WARNING
    finally:
        smrt.set_log_level(before)


def test_a_log_level_that_is_no_level_is_refused():
    with pytest.raises(ValueError):
        smrt.load(MLP, log_level="loud")
    assert "log_level" in smrt.load_option_keys()
