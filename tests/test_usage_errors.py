"""A command line click cannot take is refused as every other bad input is: one `tco: error:`
line naming the help to read, exit status 2 (click's own refusal is three lines: the usage, a
hint and the error); a group named without a command still shows its help."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from refusals import one_error

from tco.cli import cli


@pytest.mark.parametrize(("args", "message"), [
    (["job", "--cards", "abc"],
     ("Invalid value for '--cards': 'abc' is not a valid integer (ASCII digits 0-9); "
      "see 'tco job --help'")),
    (["compare", "--bogus"], "No such option '--bogus'; see 'tco compare --help'"),
    (["--bogus"], "No such option '--bogus'; see 'tco --help'"),
    (["montecarlo", "--draws", "１２"],
     ("Invalid value for '--draws': '１２' is not a valid integer (ASCII digits 0-9); "
      "see 'tco montecarlo --help'")),
    (["report", "--seed", "1_000"],
     ("Invalid value for '--seed': '1_000' is not a valid integer (ASCII digits 0-9); "
      "see 'tco report --help'")),
    (["job", "--model-params", "nan"],
     ("Invalid value for '--model-params': 'nan' is not a number (ASCII digits, e.g. 70e9 "
      "or 0.85); see 'tco job --help'")),
    (["montecarlo", "--seed"], "Option '--seed' requires an argument; see 'tco montecarlo --help'"),
    (["catalog", "list", "--format"],
     "Option '--format' requires an argument; see 'tco catalog list --help'"),
    (["compare", ""], ("Invalid value for '[SCENARIO]': an empty path; give a file name; "
                       "see 'tco compare --help'")),
    (["montecarlo", "-o", ""], ("Invalid value for '--output' / '-o': an empty path; give a "
                                "file name; see 'tco montecarlo --help'")),
    (["montecarlo", "--draw", "3"],
     "No such option '--draw' (did you mean '--draws'?); see 'tco montecarlo --help'"),
    (["nosuchcmd"], "No such command 'nosuchcmd'; see 'tco --help'"),
    (["catalog", "show"], "Missing argument 'IDENT'; see 'tco catalog show --help'"),
    (["whatif"], "Missing option '--set'; see 'tco whatif --help'"),
    (["report"], "give at least one of --xlsx, --html or --pdf; see 'tco report --help'"),
    (["job", "--model-params", "70e9", "--card", "h100-sxm"],
     "Missing option '--tokens' (or --serve for a serving workload); see 'tco job --help'"),
])
def test_a_bad_command_line_is_one_line(args, message):
    # prog_name: the name the installed script runs as (CliRunner's own is 'cli')
    assert one_error(CliRunner().invoke(cli, args, prog_name="tco")) == message


@pytest.mark.parametrize("args", [[], ["catalog"]])
def test_a_group_alone_shows_its_help(args):
    result = CliRunner().invoke(cli, args, prog_name="tco")
    assert "Usage: tco" in result.output and "tco: error:" not in result.output
