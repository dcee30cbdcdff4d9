"""The smrt Python module on committed models: TensorFlow's numbers, no
copies of suitable inputs, concurrent runs, errors with their messages, and
smrt's warnings on the logging logger "smrt"."""
import json
import logging
import threading

import numpy as np
import pytest

import smrt
from conftest import (DIGITS, GOLDENS, SHARED_MODELS, ZOO, assert_near_tf, case_inputs,
                      read_tensor, zoo_cases, zoo_tolerance)


def test_signatures_describe_inputs_and_outputs(digits):
    assert list(digits.signatures) == ["serving_default"]
    sig = digits.signatures["serving_default"]
    assert sig.method_name == "tensorflow/serving/predict"
    assert sig.inputs["pixels"].dtype == "float32"
    assert sig.inputs["pixels"].shape == (None, 64)
    assert sig.outputs["probabilities"].shape == (None, 10)
    assert sig.inputs["pixels"].tensor_name.endswith(":0")


def test_digits_match_tensorflow(digits):
    x = np.load(DIGITS / "samples" / "inputs.npy")
    want = np.load(DIGITS / "samples" / "expected_probabilities.npy")
    out = digits.run("serving_default", pixels=x)
    assert list(out) == ["probabilities"]
    assert_near_tf(out["probabilities"], want, "digits")
    # The same through a dict, for names that are not Python identifiers.
    assert_near_tf(digits.run("serving_default", {"pixels": x})["probabilities"], want, "dict")


@pytest.mark.parametrize("name,saved_model,case,manifest", zoo_cases(),
                         ids=[f"{m}-{c.name}" for m, _, c, _ in zoo_cases()])
def test_zoo_case_matches_tensorflow(name, saved_model, case, manifest):
    model = smrt.load(saved_model, signatures=[manifest["signature"]])
    out = model.run(manifest["signature"], case_inputs(case, manifest))
    tolerance = zoo_tolerance(name)
    for spec in manifest["outputs"]:
        assert_near_tf(out[spec["name"]], read_tensor(case / "outputs", spec),
                       f"{name} {case.name} {spec['name']}", tolerance)


def test_golden_half_plus_two():
    model_dir = SHARED_MODELS / "tf-serving" / "saved_model_half_plus_two_cpu" / "00000123"
    if not model_dir.is_dir():
        pytest.skip(f"{model_dir} is missing (set SMRT_SHARED_DIR)")
    golden = GOLDENS / "tf-serving__saved_model_half_plus_two_cpu__00000123" / "serving_default"
    x = np.load(golden / "inputs" / "x.npy")
    out = smrt.load(model_dir, signatures="serving_default").run("serving_default", x=x)
    assert_near_tf(out["y"], np.load(golden / "outputs" / "y.npy"), "half_plus_two")


def test_lists_are_converted_to_the_declared_dtype(digits):
    x = np.load(DIGITS / "samples" / "inputs.npy")
    from_list = digits.run("serving_default", pixels=x[:2].tolist())["probabilities"]
    np.testing.assert_allclose(from_list, digits.run("serving_default", pixels=x[:2])["probabilities"])


def test_strings_in_and_out_as_bytes_or_str():
    model = smrt.load(ZOO / "text_vectorization" / "saved_model", signatures="serving_default")
    as_bytes = model.run("serving_default", text=np.array([[b"great acting"], [b"awful"]], object))
    as_str = model.run("serving_default", text=np.array([["great acting"], ["awful"]]))
    np.testing.assert_array_equal(as_bytes["logits"], as_str["logits"])


def test_suitable_inputs_are_not_copied():
    x = np.ones((4, 64), np.float32)
    address, is_view = smrt._smrt._input_tensor(x)
    assert is_view and address == x.ctypes.data
    read_only = x.copy()
    read_only.setflags(write=False)
    assert smrt._smrt._input_tensor(read_only) == (read_only.ctypes.data, True)
    # Strided, Fortran-order and byte-swapped arrays are copied.
    for copied in (np.ones((4, 128), np.float32)[:, ::2], np.asfortranarray(np.ones((4, 64), np.float32)),
                   np.ones((4, 64), ">f4")):
        address, is_view = smrt._smrt._input_tensor(copied)
        assert not is_view and address != copied.ctypes.data


def test_copied_inputs_give_the_same_answer(digits):
    x = np.load(DIGITS / "samples" / "inputs.npy")
    want = digits.run("serving_default", pixels=x)["probabilities"]
    swapped = x.astype(">f4")
    np.testing.assert_array_equal(digits.run("serving_default", pixels=swapped)["probabilities"], want)
    wide = np.zeros((8, 128), np.float32)
    wide[:, ::2] = x
    np.testing.assert_array_equal(digits.run("serving_default", pixels=wide[:, ::2])["probabilities"],
                                  want)


def test_outputs_share_smrts_buffers(digits):
    out = digits.run("serving_default", pixels=np.zeros((2, 64), np.float32))["probabilities"]
    assert not out.flags.owndata and out.base is not None
    assert out.flags.c_contiguous and out.flags.writeable


def test_concurrent_runs_from_threads(digits):
    x = np.load(DIGITS / "samples" / "inputs.npy")
    want = np.load(DIGITS / "samples" / "expected_probabilities.npy")
    errors = []

    def worker(i):
        try:
            for _ in range(25):
                rows = x[i % 8:i % 8 + 1]
                got = digits.run("serving_default", pixels=rows)["probabilities"]
                assert_near_tf(got, want[i % 8:i % 8 + 1], f"thread {i}")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_load_from_memory_gives_the_same_answers():
    files = {str(p.relative_to(DIGITS)): p.read_bytes() for p in DIGITS.rglob("*")
             if p.is_file() and "samples" not in p.parts}
    model = smrt.load_from_memory(files)
    assert model.dir.startswith("mem://")
    x = np.load(DIGITS / "samples" / "inputs.npy")
    assert_near_tf(model.run("serving_default", pixels=x)["probabilities"],
                   np.load(DIGITS / "samples" / "expected_probabilities.npy"), "from memory")
    del files["variables/variables.index"]
    with pytest.raises(smrt.Error) as e:
        smrt.load_from_memory(files).run("serving_default", pixels=x)
    assert e.value.code in ("NOT_FOUND", "FAILED_PRECONDITION", "INVALID_ARGUMENT")


def test_load_errors():
    with pytest.raises(smrt.Error) as e:
        smrt.load("/no/such/model")
    assert e.value.code == "NOT_FOUND"
    assert "/no/such/model" in e.value.message and str(e.value) == e.value.message
    with pytest.raises(smrt.Error) as e:
        smrt.load(DIGITS, signatures=["predict"])
    assert e.value.code == "NOT_FOUND" and "no signature 'predict'" in str(e.value)
    assert "serving_default" in str(e.value)
    with pytest.raises(smrt.Error) as e:
        smrt.load(DIGITS, intra_op_thread=2)
    assert e.value.code == "INVALID_ARGUMENT"
    assert "unknown load option 'intra_op_thread'" in str(e.value)
    for key in smrt.load_option_keys():
        assert key in str(e.value)
    assert isinstance(e.value, RuntimeError)


def test_run_errors(digits):
    x = np.zeros((2, 64), np.float32)
    cases = [
        (lambda: digits.run("predict", pixels=x), "NOT_FOUND", "no signature 'predict'"),
        (lambda: digits.run("serving_default", image=x), "INVALID_ARGUMENT", "has no input 'image'"),
        (lambda: digits.run("serving_default"), "INVALID_ARGUMENT", "input 'pixels' is missing"),
        (lambda: digits.run("serving_default", pixels=x.astype(np.float64)), "INVALID_ARGUMENT",
         "must be DT_FLOAT (float32), got DT_DOUBLE"),
        (lambda: digits.run("serving_default", pixels=np.zeros((2, 63), np.float32)),
         "INVALID_ARGUMENT", "dim 1 must be 64"),
        (lambda: digits.run("serving_default", pixels=np.zeros((2, 64), np.float32)[None]),
         "INVALID_ARGUMENT", "must have rank 2"),
    ]
    for call, code, text in cases:
        with pytest.raises(smrt.Error) as e:
            call()
        assert e.value.code == code, e.value
        assert text in e.value.message, e.value


def test_an_input_named_inputs_is_a_keyword_like_any_other():
    # tf1_predict_classify's classify signature takes an input called "inputs".
    model = smrt.load(ZOO / "tf1_predict_classify" / "saved_model", tags=("serve",),
                      signatures="classify")
    case = ZOO / "tf1_predict_classify" / "cases" / "classify_b1"
    manifest = json.loads((case / "manifest.json").read_text())
    examples = case_inputs(case, manifest)["inputs"]
    by_keyword = model.run("classify", inputs=examples)
    by_dict = model.run("classify", {"inputs": examples})
    np.testing.assert_array_equal(by_keyword["scores"], by_dict["scores"])
    np.testing.assert_array_equal(by_keyword["classes"], by_dict["classes"])
    assert by_keyword["classes"].dtype == object and isinstance(by_keyword["classes"].flat[0], bytes)


def test_memory_stats_follow_the_tensors_the_model_holds():
    model = smrt.load(DIGITS, memory_limit_bytes=1 << 30)
    loaded = model.memory_stats()
    assert loaded["bytes_in_use"] > 0 and loaded["limit_bytes"] == 1 << 30
    out = model.run("serving_default", pixels=np.zeros((8, 64), np.float32))["probabilities"]
    held = model.memory_stats()
    assert held["bytes_in_use"] >= loaded["bytes_in_use"] + out.nbytes
    assert held["allocation_count"] > loaded["allocation_count"]
    del out  # the array shares smrt's buffer: freeing it frees the tensor
    assert model.memory_stats()["bytes_in_use"] == loaded["bytes_in_use"]
    model.reset_peak_memory()
    assert model.memory_stats()["peak_bytes_in_use"] == loaded["bytes_in_use"]


def test_bad_inputs_raise_smrt_error():
    """Every input that cannot become the declared dtype is a smrt.Error, not a
    NumPy exception or a silent wrap."""
    model = smrt.load(ZOO / "tf1_while" / "saved_model")  # n: int32 scalar, x: float32 (3, 4)
    x = np.zeros((3, 4), np.float32)
    cases = [
        (dict(n=2 ** 40, x=x), "out of range"),         # wrapped to 0 before
        (dict(n=1e300, x=x), "out of range"),
        (dict(n=float("nan"), x=x), "nan or inf"),
        (dict(n=2.5, x=x), "not an integer"),
        (dict(n=3, x=[[1, 2], [3]]), "cannot be converted"),  # ragged
        (dict(n="\ud800", x=x), "cannot be converted"),       # a lone surrogate
    ]
    for feeds, text in cases:
        with pytest.raises(smrt.Error) as e:
            model.run("serving_default", **feeds)
        assert e.value.code == "INVALID_ARGUMENT", e.value
        assert text in e.value.message, e.value
    # In range, exact: converted.
    out = model.run("serving_default", n=4, x=np.ones((3, 4), np.float32))
    assert set(out) == set(model.signatures["serving_default"].outputs)


def test_timeout_and_cancellation():
    model = smrt.load(ZOO / "tf1_while" / "saved_model", max_while_iterations=0)
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(smrt.Error) as e:
        model.run("serving_default", n=2_000_000_000, x=x, timeout=0.1)
    assert e.value.code == "DEADLINE_EXCEEDED", e.value
    cancel = smrt.Cancellation()
    errors = []

    def call():
        try:
            model.run("serving_default", n=2_000_000_000, x=x, cancellation=cancel)
        except smrt.Error as err:
            errors.append(err)

    t = threading.Thread(target=call)
    t.start()
    t.join(0.05)
    cancel.cancel()
    t.join()
    assert cancel.cancelled
    assert [err.code for err in errors] == ["CANCELLED"]
    with pytest.raises(smrt.Error) as e:
        model.run("serving_default", n=1, x=x, timeout=-1)
    assert e.value.code == "INVALID_ARGUMENT"
    assert model.run("serving_default", n=4, x=x, timeout=60)


@pytest.fixture
def log_level():
    """Restores smrt's log level after the test."""
    before = smrt.get_log_level()
    yield
    smrt.set_log_level(before)


def _unwritable_cache_dir(tmp_path, monkeypatch):
    """A cache_dir under a regular file: each kernel choice smrt measures for
    digits' dense layers and stores there is a warning, logged during run()."""
    monkeypatch.delenv("SMRT_CPU_KERNELS", raising=False)  # "measure" stores choices
    (tmp_path / "file").write_bytes(b"")
    return str(tmp_path / "file" / "cache")


def _smrt_records(caplog):
    return [r for r in caplog.records if r.name == "smrt"]


def test_warnings_go_to_the_smrt_logger(caplog, tmp_path, monkeypatch, log_level):
    cache_dir = _unwritable_cache_dir(tmp_path, monkeypatch)
    x = np.zeros((1, 64), np.float32)
    smrt.set_log_level("warning")
    assert smrt.get_log_level() == logging.WARNING
    with caplog.at_level(logging.DEBUG, logger="smrt"):
        smrt.load(DIGITS, cache_dir=cache_dir).run("serving_default", pixels=x)
    records = _smrt_records(caplog)
    assert records, "a tuning cache that cannot be written is a warning"
    assert {r.levelno for r in records} == {logging.WARNING}
    assert records[0].getMessage().startswith(f"cannot write tuning cache {cache_dir}/")

    caplog.clear()
    smrt.set_log_level("ERROR")
    assert smrt.get_log_level() == logging.ERROR
    with caplog.at_level(logging.DEBUG, logger="smrt"):
        smrt.load(DIGITS, cache_dir=cache_dir).run("serving_default", pixels=x)
    assert _smrt_records(caplog) == []


def test_messages_from_runs_in_threads_do_not_deadlock(caplog, tmp_path, monkeypatch, log_level):
    # Each thread's run() releases the GIL and logs; the sink takes the GIL
    # back, while the main thread changes the level and other threads log.
    cache_dir = _unwritable_cache_dir(tmp_path, monkeypatch)
    smrt.set_log_level("WARNING")
    x = np.zeros((1, 64), np.float32)
    errors = []

    def worker():
        try:
            smrt.load(DIGITS, cache_dir=cache_dir).run("serving_default", pixels=x)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    with caplog.at_level(logging.WARNING, logger="smrt"):
        threads = [threading.Thread(target=worker) for _ in range(6)]
        for t in threads:
            t.start()
        for _ in range(100):
            smrt.set_log_level("WARNING")
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads), "a thread logging from run() hangs"
    assert errors == []
    # Kernel choices are measured once per process, so which runs measure
    # (and fail to write the cache) depends on timing: at least one does.
    records = _smrt_records(caplog)
    assert records, "a run that measured logged"
    assert all(r.getMessage().startswith("cannot write tuning cache") for r in records)


def test_set_log_level_takes_names_and_logging_levels(log_level):
    for level, want in [("debug", logging.DEBUG), ("Info", logging.INFO), ("warn", logging.WARNING),
                        (logging.ERROR, logging.ERROR), (logging.INFO, logging.INFO),
                        (25, logging.INFO), (0, logging.DEBUG), (logging.CRITICAL, logging.ERROR)]:
        smrt.set_log_level(level)
        assert smrt.get_log_level() == want, level
    with pytest.raises(ValueError, match="'loud' is not one of DEBUG, INFO, WARNING, ERROR"):
        smrt.set_log_level("loud")
    with pytest.raises(TypeError):
        smrt.set_log_level(2.5)


def test_quantize_writes_a_file_that_load_runs_in_int8(tmp_path):
    """smrt.quantize as `smrt quantize`: the committed calibration and validation
    samples of mlp_bn_dropout (tests/data/quantization), 16 per call; then the
    int8 load answers near the float32 one (docs/precision.md: 2.4e-2)."""
    data = ZOO.parent / "quantization" / "mlp_bn_dropout"
    model = ZOO / "mlp_bn_dropout" / "saved_model"
    cal = np.load(data / "calibration" / "features.npy")
    val = np.load(data / "validation" / "features.npy")
    out = tmp_path / "mlp.int8.json"
    report = smrt.quantize(model, [{"features": cal[i:i + 16]} for i in range(0, len(cal), 16)],
                           out, validation=[{"features": val[i:i + 16]}
                                            for i in range(0, len(val), 16)])
    assert report["signature"] == "serving_default"
    assert report["calibration_runs"] == (len(cal) + 15) // 16
    assert report["nodes_recorded"] == 3
    assert out.exists()
    if report["nodes_int8"] == 0:
        pytest.skip("this build has no int8 kernels")
    assert report["nodes_int8"] == 3
    assert 0 < report["max_relative_error"] < 7e-2
    assert report["top1_agreement"]["output_0"] >= 0.95
    f32 = smrt.load(model).run("serving_default", features=val[:16])["output_0"]
    i8 = smrt.load(model, quantization=str(out)).run("serving_default",
                                                     features=val[:16])["output_0"]
    assert 0 < np.max(np.abs(i8 - f32)) < 7e-2 * np.max(np.abs(f32))

    # A QAT export's own ranges, no calibration; errors are smrt.Error.
    qat = smrt.quantize(ZOO / "fake_quant_module" / "saved_model", None, tmp_path / "qat.json",
                        from_fake_quant=True)
    assert qat["calibration_runs"] == 0 and qat["nodes_recorded"] == 1
    with pytest.raises(smrt.Error) as e:
        smrt.quantize(model, [], tmp_path / "none.json")
    assert e.value.code == "INVALID_ARGUMENT"
    with pytest.raises(smrt.Error, match="must be a dict"):
        smrt.quantize(model, [cal], tmp_path / "none.json")
