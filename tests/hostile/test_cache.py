"""The build cache trusts nothing it finds (lowering/cache.py): an entry damaged in any way (not
JSON, the wrong shape, nested past the parser's depth, for another key, a PTX that does not have
the recorded hash, a missing or oversized file) is rebuilt with a CacheWarning, never a raw
AttributeError/KeyError/ValueError/RecursionError; a kernel name that is no identifier is refused
before any path is formed from it."""

from __future__ import annotations

import json
import warnings

import pytest

from paths import REPO
from phobos_tools.lowering import cache as cache_mod
from phobos_tools.lowering.cache import (BuildFailed, CacheWarning, KernelNameError, build_cached,
                                         build_cached_source, cache_dir, load_kernel, manifest_problem)

pytestmark = pytest.mark.slow

ROW_SUMS = REPO / "examples" / "row_sums.ph"
GELU = REPO / "examples" / "gelu.ph"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache directory and a counter of the builds that really ran."""
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    builds = []
    real = cache_mod.build_source

    def counting(*a, **kw):
        builds.append(a[3] if len(a) > 3 else kw.get("arch"))
        return real(*a, **kw)
    monkeypatch.setattr(cache_mod, "build_source", counting)
    return builds


def _entry(kernel: str = "row_sums"):
    [record] = list(cache_dir().rglob(f"{kernel}.json"))
    return record, record.with_suffix(".ptx")


def _fresh():
    """The cached (PTX, manifest) of row_sums, built once, and its entry's files."""
    ptx, manifest = build_cached(ROW_SUMS, "row_sums")
    record, ptx_file = _entry()
    return ptx, manifest, record, ptx_file


def _rebuilt_with_warning(builds, ptx, manifest, why: str):
    before = len(builds)
    with pytest.warns(CacheWarning, match=why):
        got = build_cached(ROW_SUMS, "row_sums")
    assert got == (ptx, manifest)
    assert len(builds) == before + 1
    # the entry is whole again: the next call takes it, silently, without a build
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert build_cached(ROW_SUMS, "row_sums") == (ptx, manifest)
    assert len(builds) == before + 1


def test_a_valid_entry_is_used_without_a_build_or_a_warning(cache):
    ptx, manifest, _, _ = _fresh()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert build_cached(ROW_SUMS, "row_sums") == (ptx, manifest)
    assert len(cache) == 1
    assert manifest_problem(manifest, "row_sums", "sm_90") is None


@pytest.mark.parametrize("text", [
    "{damaged",                                   # not JSON
    "",                                           # empty (a write cut short)
    "[1, 2]", "null", '"row_sums"', "17",         # JSON, not an object
    "[" * 100_000 + "]" * 100_000,                # nested past the parser's recursion limit
    '{"cache": 1}',                               # a record without its key
])
def test_a_record_that_is_no_record_is_rebuilt(cache, text):
    ptx, manifest, record, _ = _fresh()
    record.write_text(text)
    _rebuilt_with_warning(cache, ptx, manifest, "rebuilding")


def test_a_record_that_is_not_utf8_is_rebuilt(cache):
    ptx, manifest, record, _ = _fresh()
    record.write_bytes(b'{"cache": 1, "key": "\xff\xfe"}')
    _rebuilt_with_warning(cache, ptx, manifest, "unreadable")


def test_an_entry_of_the_previous_format_a_bare_manifest_is_rebuilt(cache):
    ptx, manifest, record, _ = _fresh()
    record.write_text(json.dumps(manifest))
    _rebuilt_with_warning(cache, ptx, manifest, "not a record of this version")


def _damage_manifest(record, change):
    data = json.loads(record.read_text())
    change(data["manifest"])
    record.write_text(json.dumps(data))


def _set(key, value):
    return lambda m: m.__setitem__(key, value)


@pytest.mark.parametrize("change,why", [
    (lambda m: m.pop("entry"), "lacks entry"),                           # was KeyError
    (lambda m: m.pop("params"), "lacks params"),
    (_set("block", "abc"), "block size"),                                # was ValueError (int("abc"))
    (_set("block", True), "block size"),
    (_set("block", 0), "block size"),
    (_set("dynamic_shared_bytes", -1), "shared size"),
    (_set("version", 2), "version"),
    (_set("entry", "other_kernel"), "entry"),
    (_set("entry", "../../evil"), "entry"),
    (_set("target", "sm_75"), "target"),
    (_set("ptx_version", None), "PTX version"),
    (_set("params", "W"), "parameter list"),                             # was AttributeError
    (_set("params", [None]), "bad parameter"),
    (lambda m: m["params"][0].pop("dtype"), "bad parameter"),            # was KeyError
    (lambda m: m["params"][0].__setitem__("dtype", "complex128"), "bad parameter"),
    (lambda m: m["params"][0].__setitem__("kind", "pointer"), "bad parameter"),
    (lambda m: m["params"][0].__setitem__("shape", "N"), "tensor parameter"),
    (lambda m: m["params"][0].__setitem__("shape", [0]), "tensor parameter"),
    (lambda m: m["params"][0].__setitem__("shape", ["NOT_AN_EXTENT"]), "tensor parameter"),
    (lambda m: m["params"].append(dict(m["params"][0])), "bad parameter"),   # a name twice
    (_set("extents", "MN"), "extents"),
    (_set("extents", [1]), "extents"),
    (_set("aligned", {"Q": 4}), "alignment"),
    (_set("aligned", []), "alignment"),
    (_set("resources", {"registers": "many"}), "resources"),
    (_set("defines", ["N"]), "defines"),
    (_set("surprise", 1), "unknown keys"),
    (lambda m: m.clear(), "lacks"),
])
def test_a_manifest_of_the_wrong_shape_is_rebuilt(cache, change, why):
    ptx, manifest, record, _ = _fresh()
    _damage_manifest(record, change)
    _rebuilt_with_warning(cache, ptx, manifest, why)


def test_the_manifest_s_key_must_be_the_one_asked_for(cache):
    # an entry moved or copied under another key (another source, -D value, target or compiler)
    ptx, manifest, record, _ = _fresh()
    data = json.loads(record.read_text())
    for field, value in (("source_sha256", "0" * 64), ("defines", [["N", "4"]]), ("arch", "sm_80"),
                         ("compiler", "an older compiler"), ("kernel", "other")):
        damaged = dict(data, key=dict(data["key"], **{field: value}))
        record.write_text(json.dumps(damaged))
        _rebuilt_with_warning(cache, ptx, manifest, "for another source, kernel, -D value, target or compiler")


@pytest.mark.parametrize("damage", [
    lambda p: p.write_text(p.read_text().replace("ret;", "trap;")),     # tampered
    lambda p: p.write_text(p.read_text()[:100]),                         # cut short
    lambda p: p.write_bytes(b""),
    lambda p: p.write_bytes(b"\xff" * 64),                               # not even text
])
def test_a_ptx_without_the_recorded_hash_is_rebuilt(cache, damage):
    ptx, manifest, _, ptx_file = _fresh()
    damage(ptx_file)
    _rebuilt_with_warning(cache, ptx, manifest, "recorded hash")


def test_a_non_utf8_ptx_with_a_matching_hash_is_rebuilt(cache):
    ptx, manifest, record, ptx_file = _fresh()
    ptx_file.write_bytes(b"\xff\xfe")
    data = json.loads(record.read_text())
    data["ptx_sha256"] = cache_mod._sha256(b"\xff\xfe")
    record.write_text(json.dumps(data))
    _rebuilt_with_warning(cache, ptx, manifest, "not UTF-8")


@pytest.mark.parametrize("which", ["record", "ptx"])
def test_a_missing_half_of_an_entry_is_rebuilt(cache, which):
    ptx, manifest, record, ptx_file = _fresh()
    (record if which == "record" else ptx_file).unlink()
    _rebuilt_with_warning(cache, ptx, manifest, "missing")


def test_a_directory_in_place_of_a_file_is_rebuilt_or_costs_only_a_build(cache):
    ptx, manifest, record, _ = _fresh()
    record.unlink()
    record.mkdir()
    with pytest.warns(CacheWarning, match="missing"):
        assert build_cached(ROW_SUMS, "row_sums") == (ptx, manifest)    # cannot replace it: built each time


def test_an_oversized_file_is_not_read(cache, monkeypatch):
    ptx, manifest, _, ptx_file = _fresh()
    with open(ptx_file, "r+b") as f:
        f.truncate(cache_mod.MAX_ENTRY_BYTES + 1)            # sparse: no disk used
    reads = []
    real = type(ptx_file).read_bytes
    monkeypatch.setattr(type(ptx_file), "read_bytes", lambda self: reads.append(self.name) or real(self))
    _rebuilt_with_warning(cache, ptx, manifest, "over 64 MiB")
    assert reads.count(ptx_file.name) == 1                  # only the valid one of the last call


@pytest.mark.parametrize("name", ["/abs/evil", "../x", "a/b", "..", "", "1x", "x.y", "x\x00", "é", "k ",
                                  "row_sums/../row_sums"])
def test_a_kernel_name_that_is_no_identifier_is_refused_before_any_path(cache, tmp_path, name):
    with pytest.raises(KernelNameError, match="is not a kernel name") as e:
        load_kernel(ROW_SUMS, name)
    assert isinstance(e.value, BuildFailed) and isinstance(e.value, ValueError)
    with pytest.raises(KernelNameError):
        build_cached_source(ROW_SUMS.read_text(), str(ROW_SUMS), name)
    assert cache == [] and not cache_dir().exists()


@pytest.mark.parametrize("name", [None, 3, b"row_sums"])
def test_a_kernel_name_that_is_no_string_is_refused(cache, name):
    with pytest.raises(KernelNameError):
        build_cached(ROW_SUMS, name)
    assert cache == []


def test_entries_of_two_kernels_and_two_targets_do_not_mix(cache):
    a = build_cached(ROW_SUMS, "row_sums")
    b = build_cached(GELU, "gelu")
    c = build_cached(GELU, "gelu", arch="sm_80")
    assert c[1]["target"] == "sm_80" and b[1]["target"] == "sm_90"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert build_cached(ROW_SUMS, "row_sums") == a and build_cached(GELU, "gelu") == b
        assert build_cached(GELU, "gelu", arch="sm_80") == c
    assert len(cache) == 3
