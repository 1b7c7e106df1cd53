"""`ragkit serve`'s numeric options: each range, default and environment variable, and bad
values refused by the command line (exit status 2) before anything is opened."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from ragkit._cli.serve_command import serve_cmd

COUNTS = {
    "workers": 1,
    "max_k": 100,
    "max_query_length": 2000,
    "max_concurrency": 64,
    "pool_size": 8,
}
ENVVARS = {"workers": "RAGKIT_SERVE_WORKERS", "pool_size": "RAGKIT_SERVE_POOL_SIZE"}
SECONDS = {"request_timeout": 60.0, "header_timeout": 10.0, "body_timeout": 10.0}


def option(name: str) -> click.Option:
    (found,) = [p for p in serve_cmd.params if p.name == name]
    assert isinstance(found, click.Option)
    return found


@pytest.mark.parametrize("name, default", COUNTS.items())
def test_counts_are_whole_numbers_from_one(name: str, default: int) -> None:
    opt = option(name)
    assert isinstance(opt.type, click.IntRange) and (opt.type.min, opt.type.max) == (1, None)
    assert opt.default == default and opt.show_default is True and opt.help
    assert opt.envvar == ENVVARS.get(name)


@pytest.mark.parametrize("name, default", SECONDS.items())
def test_timeouts_are_seconds_above_zero(name: str, default: float) -> None:
    opt = option(name)
    assert isinstance(opt.type, click.FloatRange) and opt.type.min == 0 and opt.type.min_open
    assert opt.default == default and opt.show_default is True and opt.help
    assert opt.help.startswith("Seconds")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--max-k", "0"], "--max-k"),
        (["--workers", "0"], "--workers"),
        (["--pool-size", "0"], "--pool-size"),
        (["--max-concurrency", "-3"], "--max-concurrency"),
        (["--body-timeout", "0"], "--body-timeout"),
        (["--request-timeout", "soon"], "--request-timeout"),
    ],
)
def test_bad_values_are_refused_naming_the_option(tmp_path, args: list[str], fragment: str) -> None:
    result = CliRunner().invoke(serve_cmd, [str(tmp_path / "nowhere"), *args])
    assert result.exit_code == 2 and fragment in result.output
