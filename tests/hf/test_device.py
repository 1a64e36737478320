import pytest
import torch

from factscope.core.errors import ConfigError
from factscope.hf.device import resolve_device


def test_auto_picks_cuda_only_when_a_gpu_is_visible():
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("cpu") == "cpu"


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")
def test_cuda_without_a_gpu_is_a_clear_error():
    with pytest.raises(ConfigError, match="`device='cpu'`"):
        resolve_device("cuda")


def test_unknown_device_is_refused():
    with pytest.raises(ConfigError):
        resolve_device("tpu")
