import pytest

from factscope.core.bounded_cache import BoundedCache


def test_the_least_recently_used_entry_goes_first():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.held(["a", "x", "a"]) == {"a": 1} and cache.get("x") is None
    cache.put("c", 3)
    assert "b" not in cache and "a" in cache and "c" in cache and len(cache) == 2
    cache.put("a", 4)
    cache.put("d", 5)
    assert cache.held(["a", "c", "d"]) == {"a": 4, "d": 5}


def test_a_cache_holds_at_least_one_entry():
    with pytest.raises(ValueError):
        BoundedCache(0)


def test_a_bi_encoder_batch_larger_than_its_cache_is_encoded_whole(monkeypatch):
    from factscope.hf import encoders

    monkeypatch.setattr(encoders, "CACHED_EMBEDDINGS", 2)
    encoder = encoders.BiEncoder()
    texts = ["one cat", "two dogs", "three birds", "one cat"]
    vectors = encoder.encode(texts)
    assert vectors.shape[0] == 4 and len(encoder._cache) == 2
    assert (vectors[0] == vectors[3]).all()
    again = encoder.encode(["three birds", "one cat"])
    assert (again[0] == vectors[2]).all() and (again[1] == vectors[0]).all()
