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


@pytest.mark.parametrize(("setting", "message"), [
    ("finance.decision_basis=pre_tax",
     ("--set 'finance.decision_basis=pre_tax': finance.decision_basis is a choice ('pre_tax' or "
     "'after_tax') written in the scenario file, not a number; --set changes the model's "
     "numeric inputs only: edit the file to compare")),
    ("finance.decision_basis=1",
     ("--set: no input 'finance.decision_basis': finance.decision_basis is a choice ('pre_tax' "
     "or 'after_tax') written in the scenario file, not a number; --set changes the model's "
     "numeric inputs only: edit the file to compare")),
    ("candidates.b200.card=mi300x",
     ("--set 'candidates.b200.card=mi300x': candidates.b200.card is text written in the "
     "scenario file, not a number; --set changes the model's numeric inputs only: edit the "
     "file to compare")),
    ("workloads.w.runs_per_year=+1",
     ("--set 'workloads.w.runs_per_year=+1': '+1' would set the value 1, not add it; write "
      "+1% for a change in percent, a multiplier such as x1.1, or the value itself (1)")),
    ("utilization=+",
     ("--set 'utilization=+': VALUE '+' must be a number (0.12), a change in percent "
      "(-15%, +10%) or a multiplier (x0.9)")),
    ("utilization=high",
     ("--set 'utilization=high': VALUE 'high' must be a number (0.12), a change in percent "
     "(-15%, +10%) or a multiplier (x0.9)")),
])
def test_a_what_if_of_a_field_that_holds_no_number_says_so(setting, message):
    """`--set finance.decision_basis=pre_tax` was told that its value must be a number, as if
    a number would do; a field of the scenario that holds a choice or text is named as such."""
    result = CliRunner().invoke(cli, ["whatif", "--set", setting], prog_name="tco")
    assert one_error(result) == message


def test_a_zero_typed_as_minus_zero_is_zero():
    """`--set cost_of_delay_per_week=-0` was shown (and written to JSON) as -0."""
    import json
    import math

    result = CliRunner().invoke(cli, ["whatif", "--set", "cost_of_delay_per_week=-0",
                                      "--format", "json"], prog_name="tco")
    assert result.exit_code == 0, result.output
    change = json.loads(result.output)["inputs"][0]
    assert change["path"] == "cost_of_delay_per_week" and change["after"] == 0
    assert math.copysign(1, change["after"]) == 1
