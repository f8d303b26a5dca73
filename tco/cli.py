"""The `tco` command line: each command parses, makes one library call, and prints.

Errors a user can fix (`TcoError`) become one line on stderr and exit status 2, never a
traceback. Heavy libraries (openpyxl, matplotlib, jinja2) are imported only by the commands
that need them, so quick commands start fast.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

# numpy's BLAS starts a thread per core when numpy is imported (tens of milliseconds of every
# command on a busy machine); tco does no linear algebra, so the command asks for one thread
# unless the user chose otherwise. Set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .analysis.common import BREAKEVEN_METRICS
from .errors import OutputError, TcoError, printable
from .version import __version__

FORMATS = ("table", "json", "csv")


def catalog_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--catalog", "catalogs", multiple=True, type=_FILE,
        help="Quote file layered over the shipped catalog (YAML, CSV or xlsx); repeatable, "
             "later files win.",
    )(fn)


def format_option(*choices: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        return click.option("--format", "fmt", type=click.Choice(choices), default=choices[0],
                            show_default=True, help="Output format.")(fn)
    return deco


def scenario_argument(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.argument("scenario", required=False, type=_FILE)(fn)


def emit(text: str, output: str | None = None) -> None:
    """Print, or write to --output (tco.fsio.write_output)."""
    if output:
        from .fsio import write_output

        write_output(output, text)
    else:
        echo_out(text)


def echo_out(text: str) -> None:
    """Print `text` on standard output. A write that fails there (a full disk, `> /dev/full`),
    or a standard output that is closed (`>&-`), is one message naming standard output, not a
    traceback or a silent success; a reader that went away (`| head`) stops quietly
    (_Group)."""
    import sys

    if sys.stdout is None:
        raise OutputError("cannot write: it is closed", file="standard output")
    try:
        click.echo(text, nl=False)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise unwritable_stdout(exc) from None


def unwritable_stdout(exc: OSError) -> OutputError:
    """The error of a write to standard output that failed; standard output is pointed at
    the null device first, so that what stays buffered does not fail again as Python exits (a
    second message)."""
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's runner)
        pass
    return OutputError(f"cannot write: {exc.strerror or exc}", file="standard output")


def warn(*messages: str) -> None:
    """One line on stderr for each message; none stops the command."""
    for message in messages:
        click.echo(f"tco: warning: {printable(message, breaks=None)}", err=True)


def check_files(outputs: dict[str, str | None], scenarios: dict[str, str | None],
                catalogs: tuple[str, ...] = ()) -> None:
    """Before any work: every output can be written, and none is a file the command reads or
    another output. tco.fsio.check_outputs holds the rule; this lists the files by role."""
    if not any(outputs.values()):
        return
    from .fsio import check_outputs
    from .resources import example_scenario, pricing_dir

    inputs: list[tuple[str, str | Path | None]] = list(scenarios.items())
    inputs += [("--catalog", c) for c in catalogs]
    inputs += [("the built-in example scenario", example_scenario())]
    inputs += [("the shipped catalog", p) for p in sorted(pricing_dir().iterdir())]
    check_outputs(outputs.items(), inputs)


def load(scenario: str | None, catalogs: tuple[str, ...]) -> tuple[Any, Any]:
    """The scenario (a file; the built-in example without one) and the catalog, through the
    Python API (tco.api): the CLI and a notebook read them the same way."""
    from . import api

    return api.load(Path(scenario) if scenario else None, catalogs)


def _ascii_whole(kind: click.ParamType, value: Any, param: Any, ctx: Any) -> None:
    """Refuse a whole number not written in ASCII digits: Python's int() also takes ٣, １２ and
    1_000, which tco refuses everywhere else (tco.numtext)."""
    import re

    if isinstance(value, str) and not re.fullmatch(r"\s*[-+]?[0-9]+\s*", value):
        kind.fail(f"{value!r} is not a valid integer (ASCII digits 0-9)", param, ctx)


class _Whole(click.types.IntParamType):
    """A whole number written in ASCII digits."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        _ascii_whole(self, value, param, ctx)
        return super().convert(value, param, ctx)


class _WholeRange(click.IntRange):
    """A whole number written in ASCII digits, within click's range."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        _ascii_whole(self, value, param, ctx)
        return super().convert(value, param, ctx)


class _Number(click.ParamType):
    """A number as tco reads one in its files (tco.numtext: 70e9, 0.85, .5; not nan, inf,
    1_000 or other scripts' digits)."""

    name = "number"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        import math

        from .numtext import number_from_text

        if isinstance(value, float):
            return value
        x = number_from_text(str(value))
        if x is None or not math.isfinite(x):
            self.fail(f"{value!r} is not a number (ASCII digits, e.g. 70e9 or 0.85)", param,
                      ctx)
        return x


NUMBER = _Number()


class _File(click.Path):
    """A file path, never empty: an empty one (`-o ''`, `tco compare ''`) would otherwise read
    as not given, printing instead of writing, or reading the built-in example."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False)

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("an empty path; give a file name", param, ctx)
        return super().convert(value, param, ctx)


_FILE = _File()


class _Group(click.Group):
    """Turns a user error anywhere below into one message on stderr and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TcoError as exc:
            click.echo(f"tco: error: {exc.render()}", err=True)
            ctx.exit(2)
        except click.UsageError as exc:  # a command's own options (`tco job --cards abc`)
            _usage_error(exc, ctx)
        except BrokenPipeError:
            ctx.exit(0)

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:  # tco's own options (`tco --bogus`)
            _usage_error(exc, exc.ctx)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """The help or version text click writes while it reads the command line, before any
        command runs, failing on standard output (`tco --help > /dev/full`): the one message
        echo_out gives, exit status 2."""
        import sys

        try:
            return super().main(*args, **kwargs)
        except BrokenPipeError:
            sys.exit(0)
        except OSError as exc:
            click.echo(f"tco: error: {unwritable_stdout(exc).render()}", err=True)
            sys.exit(2)


# click 8.2 and later raise this for a group named without a command; it shows the help
_HELP_FOR_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _usage_error(exc: click.UsageError, ctx: click.Context | None) -> NoReturn:
    """A command line click cannot take, as every other refusal: one line on stderr, naming
    the help to read, and exit status 2 (click's own is usage, a hint and the error: three)."""
    if isinstance(exc, _HELP_FOR_NO_ARGS):  # `tco` or `tco catalog` alone: click's help
        raise exc
    where = (exc.ctx or ctx)
    path = where.command_path if where is not None else ""
    if exc.ctx is None and ctx is not None and ctx.invoked_subcommand:
        # an option's value missing (`tco montecarlo --seed`): click names no command, but
        # the command being read is the one whose help says what the option takes
        path = f"{ctx.command_path} {ctx.invoked_subcommand}"
    helped = f"; see '{path} --help'" if path else ""
    message = (_no_such_option(exc) if isinstance(exc, click.NoSuchOption)
               else exc.format_message())
    click.echo(f"tco: error: {message.rstrip('.')}{helped}", err=True)
    raise SystemExit(2)


def _no_such_option(exc: click.NoSuchOption) -> str:
    """An unknown option, worded by tco from the option and click's close matches (click's
    own words have changed between the versions the project allows)."""
    close = " or ".join(repr(p) for p in exc.possibilities or [])
    return f"No such option {exc.option_name!r}" + (f" (did you mean {close}?)" if close else "")


@click.group(cls=_Group,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="tco")
def cli() -> None:
    """Total cost of ownership of AI training accelerators.

    Every command works on the built-in example scenario when no SCENARIO file is given.

    Output files (-o/--output, --xlsx, --html, --pdf) are written whole or not at all; an
    existing file keeps its mode, a new one follows the umask. A device or pipe (/dev/null,
    /dev/stdout, a FIFO) is written into, never replaced. An output that is one of the
    command's input files or another of its outputs is refused before anything runs.

    \b
    Example:
      tco compare
      tco job --model-params 70e9 --tokens 2e12 --card h100-sxm --cards 1024
    """


# --- catalog ---------------------------------------------------------------------------------


@cli.group("catalog", cls=_Group)
def catalog_group() -> None:
    """List and show catalog figures, each with its source and date."""


@catalog_group.command("list")
@click.option("--section", type=click.Choice(["accelerators", "platforms", "stacks", "regions",
                                              "cooling", "cloud", "regional-cloud", "api",
                                              "profiles"]),
              default="accelerators", show_default=True,
              help="The records to list (api: per-token API prices, for `api_options`; "
                   "regional-cloud: cloud prices of one region; profiles: buyer profiles, for "
                   "`profile:`).")
@catalog_option
@format_option("table", "json", "csv")
def catalog_list(section: str, catalogs: tuple[str, ...], fmt: str) -> None:
    """List catalog records with their key figures.

    \b
    Example:
      tco catalog list
      tco catalog list --section platforms --catalog my-quotes.csv
    """
    from .catalog import load_catalog
    from .exporters.catalog_view import catalog_listing

    echo_out(catalog_listing(load_catalog(catalogs), section, fmt))


@catalog_group.command("show")
@click.argument("ident")
@catalog_option
@format_option("table", "json")
def catalog_show(ident: str, catalogs: tuple[str, ...], fmt: str) -> None:
    """Show every figure of one record (card, platform, stack, region, ...) with its source.

    \b
    Example:
      tco catalog show mi300x
    """
    from .catalog import load_catalog
    from .exporters.catalog_view import catalog_record

    echo_out(catalog_record(load_catalog(catalogs), ident, fmt))


# --- scenario files --------------------------------------------------------------------------


@cli.command()
@click.argument("files", nargs=-1, required=True, type=_FILE)
@click.option("--card", help="Catalog id of the card the benchmark ran on (serving).")
@click.option("--cards", type=_WholeRange(1, 1_000_000), help="Cards that ran it.")
@click.option("--tp", type=_WholeRange(1, 1024), help="Tensor-parallel degree (default: "
              "every card in one replica).")
@click.option("--precision", type=click.Choice(["bf16", "fp16", "fp8", "int8", "fp4"]),
              help="Precision the model was served at.")
@click.option("--engine", help="Engine and version, e.g. 'vLLM 0.9' (else the file's).")
@click.option("--measured-on", help="Date of the run, e.g. 2026-11-20 (else the file's).")
@click.option("--prompt-tokens", type=NUMBER, help="Mean prompt tokens per request, in place "
              "of the file's (needed when it does not say: an MLPerf summary).")
@click.option("--output-tokens", type=NUMBER, help="Mean output tokens per request, in place "
              "of the file's (needed when it does not say).")
@click.option("--scenario", "scenario", type=_FILE, help="A scenario "
              "whose serving workload the benchmark served: gives the efficiency it implies.")
@click.option("--workload", help="That serving workload's id (when the scenario has several).")
@catalog_option
@format_option("yaml", "json")
@click.option("--output", "-o", type=_FILE, help="Write to a file.")
def ingest(files: tuple[str, ...], card: str | None, cards: int | None, tp: int | None,
           precision: str | None, engine: str | None, measured_on: str | None,
           prompt_tokens: float | None, output_tokens: float | None, scenario: str | None,
           workload: str | None, catalogs: tuple[str, ...], fmt: str, output: str | None
           ) -> None:
    """Read your own benchmark results as evidence: vLLM `bench serve` / benchmark_serving.py
    JSON, SGLang bench_serving JSON lines, genai-perf or AIPerf JSON exports, an MLPerf
    mlperf_log_summary.txt, or a training CSV (card, cards, precision, params, tokens_per_s or
    step_time_s and global_batch_tokens). Prints a `benchmarks:` section to paste into a
    scenario: there the measured efficiency replaces the catalog's for that card and precision
    (docs/methodology.md section 18); with --scenario, also the efficiency each file implies.

    \b
    Example:
      tco ingest bench.json --card h20 --cards 8 --precision fp8 --engine "vLLM 0.9"
      tco ingest bench.json --card h20 --cards 8 --precision fp8 --scenario serve.yaml
      tco ingest train-runs.csv --format json
    """
    from .exporters.ingest_view import ingest_text
    from .measured import ingest as read_all

    check_files({"--output": output}, {"SCENARIO": scenario, **{f"FILE {f}": f for f in files}},
                catalogs)
    loaded, catalog = load(scenario, catalogs)
    work = None
    if scenario:
        from .measured import _workload
        from .scenario import Benchmark

        work = _scenario_workload(loaded, workload, _workload, Benchmark)
    entries = read_all(list(files), catalog, card=card, cards=cards, precision=precision, tp=tp,
                       engine=engine, measured_on=measured_on, prompt_tokens=prompt_tokens,
                       output_tokens=output_tokens, workload=work)
    emit(ingest_text(entries, fmt), output)


def _scenario_workload(loaded: Any, wid: str | None, pick: Any, bench: Any) -> Any:
    """The serving workload of `--scenario` the benchmark served (its model)."""
    from .measured import BenchmarkError

    try:
        return pick(loaded.scenario, bench(serving={}, workload=wid))
    except BenchmarkError as exc:
        raise TcoError(exc.message.replace("(workload:", "(--workload:"),
                       file=loaded.file, field="--workload") from None



@cli.command()
@click.argument("scenario", type=_FILE)
@catalog_option
def validate(scenario: str, catalogs: tuple[str, ...]) -> None:
    """Check a scenario file against the catalog without computing anything.

    \b
    Example:
      tco validate my-scenario.yaml
    """
    from .engine import resolve_scenario

    loaded, catalog = load(scenario, catalogs)
    resolved = resolve_scenario(loaded, catalog)
    echo_out(f"{printable(scenario)}: ok ({len(loaded.scenario.workloads)} workload(s), "
             f"{len(resolved.candidates)} candidate(s), {len(resolved.inputs)} inputs)\n")


@cli.command()
@click.argument("path", type=_FILE)
@click.option("--example", type=click.Choice(["train", "train-and-serve", "cn"]),
              default="train", show_default=True,
              help="train: pre-train a 70B model on eight kinds of card (the built-in "
              "example); train-and-serve: train and serve it, on one cluster or with a "
              "per-token API; cn: a Chinese procurement package in CNY with a quote file.")
@click.option("--force", is_flag=True, help="Overwrite existing files.")
def init(path: str, example: str, force: bool) -> None:
    """Write a commented starter scenario to PATH, and scenario.schema.json beside it (the
    starter's first line points editors at it). The cn example also writes its quotes beside
    it, as NAME.quotes.csv for PATH NAME.yaml.

    \b
    Example:
      tco init my-scenario.yaml
      tco init serving.yaml --example train-and-serve
      tco init cn.yaml --example cn
    """
    from .fsio import check_writable, is_stream, write_outputs

    check_writable(path)  # as the user wrote it: `new/` names a directory, not a file `new`
    files = _starter_plan(path, example, force)
    write_outputs([(f.path, f.text) for f in files])  # all or none
    quotes = "".join(f" --catalog {f.path}" for f in files if f.role == "quote file")
    hint = "" if is_stream(path) else f"; edit, then run: tco compare {path}{quotes}"
    click.echo(f"wrote {', '.join(str(f.path) for f in files)}{hint}", err=True)


def _starter_plan(path: str, example: str, force: bool) -> list[Any]:
    """The files `tco init` writes, checked before any is written: an existing scenario or
    quote file is kept unless --force; an existing scenario.schema.json is refreshed when tco
    wrote it, kept (with a warning) when it is another file. Written into a stream
    (/dev/stdout), the scenario goes alone."""
    from .fsio import is_stream
    from .starters import is_our_schema, starter_files

    target = Path(path)
    stream = is_stream(target)
    files = starter_files(example, target, companions=not stream)
    if stream and len(starter_files(example, target)) > 1:
        warn(f"{path} is not a regular file: the scenario only (run `tco init` with a file "
             "name for its schema and quotes)")
    keep = []
    for f in files:
        if f.role == "schema" and f.path.is_file() and not force:
            if not is_our_schema(f.path.read_text(encoding="utf-8", errors="replace")):
                warn(f"{f.path} exists and is not tco's scenario schema: left as it is")
                continue
        elif f.path.exists() and not force and not (stream and f.role == "PATH"):
            raise TcoError("file exists; use --force to overwrite", file=str(f.path))
        keep.append(f)
    check_files({f.role: str(f.path) for f in keep}, {})
    return keep


@cli.command()
@click.option("--output", "-o", type=_FILE, help="Write to a file.")
@click.option("--quote", is_flag=True,
              help="The schema of quote files (--catalog) instead of scenario files.")
def schema(output: str | None, quote: bool) -> None:
    """Print the JSON Schema of scenario files, or of quote files (for editors and tools).

    \b
    Example:
      tco schema -o scenario.schema.json
      tco schema --quote -o quote.schema.json
    """
    if quote:
        from .quote_schema import schema_text
    else:
        from .scenario_schema import schema_text

    check_files({"--output": output}, {})
    emit(schema_text(), output)


# --- results ---------------------------------------------------------------------------------


@cli.command()
@click.option("--model-params", type=NUMBER, required=True, help="Model parameters, e.g. 70e9.")
@click.option("--active-params", type=NUMBER, help="Active parameters per token (MoE).")
@click.option("--tokens", type=NUMBER, help="Training tokens, e.g. 2e12 (not with --serve).")
@click.option("--card", required=True, help="Accelerator id (see `tco catalog list`).")
@click.option("--cards", type=_Whole(), help="Number of accelerators (required for a training run; "
              "with --serve, omitted: sized to the peak's traffic).")
@click.option("--precision", type=click.Choice(["fp64", "fp32", "tf32", "bf16", "fp16", "fp8",
                                                "int8", "fp4"]),
              default="bf16", show_default=True)
@click.option("--mfu", type=NUMBER, help="Model FLOPs utilization (0-1); default from catalog.")
@click.option("--seq-len", type=NUMBER, help="Training: sequence length in tokens (default: "
              "assumptions.seq_len_tokens).")
@click.option("--batch-tokens", type=NUMBER, help="Training: global batch in tokens, e.g. 16e6 "
              "(default: assumptions.global_batch_tokens).")
@click.option("--experts", type=_Whole(), help="Training a mixture of experts: routed experts per "
              "layer (default: inferred from --model-params and --active-params).")
@click.option("--experts-per-token", type=_Whole(), help="Training a mixture of experts: routed "
              "experts each token goes to (default: assumptions.experts_per_token, 8).")
@click.option("--layout", "layout_text", metavar="DEGREE=N,...",
              help="Pin parallel degrees, e.g. tp=8,pp=4 (tp, pp, vp, cp, ep, recompute, "
              "zero3, zero2, hsdp); "
              "the search chooses the rest. A serving job takes tp only.")
@click.option("--region", default="us", show_default=True, help="Electricity region id.")
@click.option("--currency", type=click.Choice(["USD", "CNY", "EUR"]), default="USD",
              show_default=True)
@click.option("--serve", is_flag=True, help="Serve the model instead of training it: give the "
              "traffic and request shape below (docs/methodology.md section 18).")
@click.option("--input-tokens-per-day", type=NUMBER, help="Serving: prompt tokens per day.")
@click.option("--output-tokens-per-day", type=NUMBER, help="Serving: output tokens per day.")
@click.option("--prompt-tokens", type=NUMBER, help="Serving: prompt tokens per request.")
@click.option("--output-tokens", type=NUMBER, help="Serving: output tokens per request.")
@click.option("--peak-to-average", type=NUMBER, help="Serving: peak traffic over the average "
              "(default 1).")
@click.option("--ttft-ms", type=NUMBER, help="Serving objective: time to first token, ms.")
@click.option("--tpot-ms", type=NUMBER, help="Serving objective: time per output token, ms.")
@catalog_option
@format_option("table", "json")
def job(model_params: float, active_params: float | None, tokens: float | None, card: str,
        cards: int | None, precision: str, mfu: float | None, seq_len: float | None,
        batch_tokens: float | None, experts: int | None, experts_per_token: int | None,
        layout_text: str | None, region: str, currency: str, serve: bool,
        catalogs: tuple[str, ...], fmt: str,
        **serving: float | None) -> None:
    """Quick per-job estimate without a scenario file: a training run, or with --serve a
    serving workload (tokens per second per card, cards at the peak, cost per million
    tokens).

    \b
    Example:
      tco job --model-params 70e9 --tokens 2e12 --card h100-sxm --cards 1024 --format json
      tco job --model-params 70e9 --tokens 2e12 --card h100-sxm --cards 1024 --layout tp=8,pp=4
      tco job --model-params 405e9 --tokens 15.6e12 --card h100-sxm --cards 16384 \\
        --seq-len 8192 --batch-tokens 16e6
      tco job --serve --model-params 70e9 --precision fp8 --card h200-sxm --cards 16 \\
        --input-tokens-per-day 2e9 --output-tokens-per-day 5e8 --prompt-tokens 2000 \\
        --output-tokens 500 --ttft-ms 2000 --tpot-ms 50
    """
    from .catalog import load_catalog
    from .engine import compute
    from .exporters.data import job_dict, job_table, to_json
    from .scenario import quick_job

    serve_fields = _serve_fields(serve, tokens, serving)
    if cards is None and not serve:
        raise click.UsageError("Missing option '--cards' (a serving job, --serve, may omit it: "
                               "it is then sized to the peak)")
    shape = {k: v for k, v in (("seq_len_tokens", seq_len), ("global_batch_tokens", batch_tokens),
                               ("experts", experts), ("experts_per_token", experts_per_token))
             if v is not None}
    if serve and shape:
        raise click.UsageError(f"{_JOB_OPTIONS[next(iter(shape))]} is for a training run, not "
                               "--serve")
    moe = active_params is not None and active_params < model_params
    for key, given in (("--experts", (experts or 0) > 0),
                       ("--experts-per-token", experts_per_token is not None)):
        if given and not moe:
            raise click.UsageError(f"{key}: routed experts are for a mixture of experts; "
                                   "expected --active-params below --model-params as well")
    pins = _layout_option(layout_text, serve)
    try:
        loaded = quick_job(model_params=model_params, active_params=active_params,
                           tokens=tokens, card=card, cards=cards, precision=precision, mfu=mfu,
                           region=region, currency=currency, serve=serve_fields, layout=pins,
                           training=shape)
        result = compute(loaded, load_catalog(catalogs))
    except TcoError as exc:  # name the option, not the scenario path it was turned into
        if exc.file == "command line" and exc.field:
            key = exc.field.rsplit(".", 1)[-1]
            exc.file, exc.field = None, (f"--layout {key}" if ".layout." in exc.field
                                         else _JOB_OPTIONS.get(key, exc.field))
        raise
    c = result.candidate(card)  # the cluster described, not the rent option generated beside it
    echo_out(to_json(job_dict(result, c)) if fmt == "json" else job_table(result, c))


_JOB_OPTIONS = {"card": "--card", "id": "--card",  # the option's id is the card
                "cards": "--cards", "params": "--model-params",
                "active_params": "--active-params", "tokens": "--tokens", "mfu": "--mfu",
                "region": "--region", "precision": "--precision",
                "seq_len_tokens": "--seq-len", "global_batch_tokens": "--batch-tokens",
                "experts": "--experts", "experts_per_token": "--experts-per-token",
                **{k: "--" + k.replace("_", "-") for k in (
                    "input_tokens_per_day", "output_tokens_per_day", "prompt_tokens",
                    "output_tokens", "peak_to_average", "ttft_ms", "tpot_ms")}}
_SERVE_NEEDS = ("input_tokens_per_day", "output_tokens_per_day", "prompt_tokens",
                "output_tokens")


_DEGREES = ("tp", "pp", "vp", "cp", "ep", "recompute", "zero3", "zero2", "hsdp")


def _layout_option(text: str | None, serve: bool) -> dict[str, int] | None:
    """`--layout tp=8,pp=4` as pinned degrees; a malformed one is a usage error naming it."""
    if text is None:
        return None
    example = "expected DEGREE=N[,DEGREE=N...], e.g. --layout tp=8,pp=4"
    pins: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        key, eq, value = part.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not eq or not key or not value:
            raise click.UsageError(f"--layout: '{part}' is not DEGREE=N; {example}")
        if key not in _DEGREES:
            raise click.UsageError(f"--layout: unknown degree '{key}'; expected one of "
                                   f"{', '.join(_DEGREES)}")
        if key in pins:
            raise click.UsageError(f"--layout: {key} is given twice")
        flag = key in ("recompute", "zero3", "zero2", "hsdp")
        if not value.isdigit() or not int(not flag) <= int(value) <= (1 if flag else 4096):
            want = "0 or 1" if flag else "a whole number from 1 to 4096"
            raise click.UsageError(f"--layout: {key}={value}; expected {want}")
        pins[key] = int(value)
    if serve and set(pins) - {"tp"}:
        raise click.UsageError("--layout: a serving job is laid out by its tensor-parallel "
                               "degree only; expected tp=N")
    return pins


def _serve_fields(serve: bool, tokens: float | None, serving: dict[str, float | None]
                  ) -> dict[str, float] | None:
    """The serving workload's fields from the options, or None for a training run; a missing
    or misplaced option is a usage error naming it."""
    given = {k: v for k, v in serving.items() if v is not None}
    if not serve:
        if given:
            raise click.UsageError(f"--{next(iter(given)).replace('_', '-')} is for a serving "
                                   "workload: add --serve")
        if tokens is None:
            raise click.UsageError("Missing option '--tokens' (or --serve for a serving "
                                   "workload)")
        return None
    if tokens is not None:
        raise click.UsageError("--tokens is for a training run; --serve takes the traffic "
                               "(--input-tokens-per-day, --output-tokens-per-day)")
    missing = [k for k in _SERVE_NEEDS if k not in given]
    if missing:
        raise click.UsageError("--serve needs " + ", ".join(
            "--" + k.replace("_", "-") for k in missing))
    return given


@cli.command()
@scenario_argument
@catalog_option
@format_option(*FORMATS)
@click.option("--output", "-o", type=_FILE, help="Write to a file.")
def compare(scenario: str | None, catalogs: tuple[str, ...], fmt: str, output: str | None
            ) -> None:
    """All candidates side by side: cheapest first, infeasible last with the reason.

    \b
    Example:
      tco compare
      tco compare my-scenario.yaml --format json
    """
    from . import api
    from .exporters.data import compare_csv, compare_dict, compare_table, to_json

    check_files({"--output": output}, {"SCENARIO": scenario}, catalogs)
    result = api.compare(Path(scenario) if scenario else None, catalogs).result
    text = {"json": lambda: to_json(compare_dict(result)), "csv": lambda: compare_csv(result),
            "table": lambda: compare_table(result)}[fmt]()
    emit(text, output)


@cli.command()
@scenario_argument
@click.option("--xlsx", type=_FILE, help="Write the procurement workbook.")
@click.option("--html", type=_FILE, help="Write the HTML report.")
@click.option("--pdf", type=_FILE, help="Write the report as PDF.")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True,
              help="Language of the workbook and the HTML/PDF report.")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True,
              help="Paper size of the printed report and PDF.")
@click.option("--draws", type=_Whole(), default=20000, show_default=True,
              help="Monte Carlo draws shown in the report and workbook (0 to skip).")
@click.option("--seed", type=_Whole(), default=1, show_default=True, help="Monte Carlo seed.")
@click.option("--swing", default="20%", show_default=True,
              help="Sensitivity swing for the tornado chart.")
@catalog_option
def report(scenario: str | None, xlsx: str | None, html: str | None, pdf: str | None, lang: str,
           paper: str, draws: int, seed: int, swing: str, catalogs: tuple[str, ...]) -> None:
    """Write the procurement workbook and/or the proposal report (HTML, PDF).

    \b
    Example:
      tco report --xlsx tco.xlsx --html tco.html
      tco report my-scenario.yaml --html report.zh.html --lang zh
    """
    from .analysis import each_report_analysis
    from .dates import output_date
    from .engine import compute
    from .exporters.report_files import ReportFiles, write_report_files
    from .gcpause import keep_until_exit, paused_gc

    if not (xlsx or html or pdf):
        raise click.UsageError("give at least one of --xlsx, --html or --pdf")
    from .analysis.common import DRAWS_OR_NONE, check_whole, parse_swing
    from .analysis.montecarlo import check_seed

    parse_swing(swing)  # the analyses' own checks, before any work (report_analyses again)
    if check_whole(draws, "--draws", 0, DRAWS_OR_NONE):
        check_seed(seed)
    check_files({"--xlsx": xlsx, "--html": html, "--pdf": pdf}, {"SCENARIO": scenario},
                catalogs)
    day = output_date()  # read once, before any work: one date for every file written
    loaded, catalog = load(scenario, catalogs)
    with paused_gc():  # frozen before the collector resumes: no collection walks the model
        result = compute(loaded, catalog)
        keep_until_exit()
    write_report_files(
        result, ReportFiles(xlsx, html, pdf, lang=lang, paper=paper, day=day),
        analyses=lambda: each_report_analysis(loaded, catalog, draws=draws, seed=seed,
                                              swing=swing, result=result),
        wrote=lambda path: click.echo(f"wrote {path}", err=True))
    mc = result.analyses.get("montecarlo")
    warn(*[w.text for w in getattr(mc, "warnings", [])])


# --- analyses --------------------------------------------------------------------------------


def output_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--output", "-o", type=_FILE,
                        help="Write to a file.")(fn)


def _render(fmt: str, views: dict[str, Callable[[], str]], output: str | None) -> None:
    emit(views[fmt](), output)


def _progress(total: int, label: str) -> Any:
    """A progress bar on stderr when stdout is a terminal; otherwise (a file, a pipe, or
    closed: `>&-` with -o) nothing."""
    import contextlib
    import sys

    if sys.stdout is None or not sys.stdout.isatty():
        return contextlib.nullcontext(None)
    return click.progressbar(length=total, label=label, file=sys.stderr)


@cli.command()
@scenario_argument
@click.option("--set", "settings", multiple=True, required=True, metavar="PATH=VALUE",
              help="Change one input: PATH is its dotted path (facility.electricity_price_"
                   "per_kwh, candidates.mi300x.card_price); VALUE is absolute (0.12), relative "
                   "(-15%, +10%) or a multiplier (x0.9). Repeatable.")
@catalog_option
@format_option(*FORMATS)
@output_option
def whatif(scenario: str | None, settings: tuple[str, ...], catalogs: tuple[str, ...], fmt: str,
           output: str | None) -> None:
    """Baseline and changed results side by side, the change attributed line by line.

    The scenario's baseline is kept between runs (in $TCO_CACHE_DIR, else ~/.cache/tco, a
    folder only you may write; set TCO_NO_CACHE=1 to turn this off) while its files and the
    catalog are unchanged.

    \b
    Example:
      tco whatif --set facility.electricity_price_per_kwh=0.12
      tco whatif my-scenario.yaml --set candidates.mi300x.card_price=-15% --set utilization=x0.9
    """
    from .analysis.whatif import whatif_from
    from .exporters import analysis_view as view

    check_files({"--output": output}, {"SCENARIO": scenario}, catalogs)
    from .snapshot import baseline_and_recompute

    result, long_way = baseline_and_recompute(scenario, catalogs, warn)
    c = whatif_from(result, settings, long_way)
    _render(fmt, {"table": lambda: view.comparison_table(c),
                  "json": lambda: view.comparison_json(c),
                  "csv": lambda: view.comparison_csv(c)}, output)


@cli.command()
@click.argument("scenario_a", type=_FILE)
@click.argument("scenario_b", type=_FILE)
@catalog_option
@format_option(*FORMATS)
@output_option
def diff(scenario_a: str, scenario_b: str, catalogs: tuple[str, ...], fmt: str,
         output: str | None) -> None:
    """What changes from SCENARIO_A to SCENARIO_B, per candidate (matched by id), line by line.

    \b
    Example:
      tco diff current.yaml proposed.yaml
    """
    from .analysis.whatif import diff as run
    from .catalog import load_catalog
    from .exporters import analysis_view as view
    from .scenario import load_scenario

    check_files({"--output": output}, {"SCENARIO_A": scenario_a, "SCENARIO_B": scenario_b},
                catalogs)
    c = run(load_scenario(scenario_a), load_scenario(scenario_b), load_catalog(catalogs))
    _render(fmt, {"table": lambda: view.comparison_table(c),
                  "json": lambda: view.comparison_json(c),
                  "csv": lambda: view.comparison_csv(c)}, output)


_METRIC = click.option("--metric", type=click.Choice(["npv_tco", "cost_per_job",
                                                     "cost_per_million_output_tokens"]),
                       default="npv_tco", show_default=True,
                       help="NPV of TCO, the cost of one run of the primary workload, or the "
                       "first serving workload's cost per million output tokens.")


@cli.command()
@scenario_argument
@click.option("--swing", default="20%", show_default=True,
              help="How far each input moves down and up.")
@click.option("--range", "use_range", is_flag=True,
              help="Move each input across its catalog low..high range instead of the swing.")
@_METRIC
@click.option("--top", type=_WholeRange(1), default=10, show_default=True,
              help="Inputs per candidate in the table.")
@catalog_option
@format_option(*FORMATS)
@output_option
def sensitivity(scenario: str | None, swing: str, use_range: bool, metric: str, top: int,
                catalogs: tuple[str, ...], fmt: str, output: str | None) -> None:
    """Tornado data: every numeric input moved down and up, ranked by its effect.

    \b
    Example:
      tco sensitivity
      tco sensitivity my-scenario.yaml --swing 10% --metric cost_per_job
      tco sensitivity --range --format csv
    """
    from .analysis.common import parse_swing
    from .analysis.sensitivity import sensitivity as run
    from .exporters import analysis_view as view

    check_files({"--output": output}, {"SCENARIO": scenario}, catalogs)
    s = run(*load(scenario, catalogs), swing=parse_swing(swing),
            mode="range" if use_range else "swing", metric=metric)
    _render(fmt, {"table": lambda: view.sensitivity_table(s, top),
                  "json": lambda: to_json(view.sensitivity_dict(s)),
                  "csv": lambda: view.sensitivity_csv(s)}, output)


@cli.command()
@scenario_argument
@click.option("--vary", "path", required=True, metavar="PATH",
              help="The input to vary, by its dotted path.")
@click.option("--candidate", required=True,
              help="Candidate, portfolio or per-token API option id A.")
@click.option("--vs", "versus", required=True,
              help="Candidate, portfolio or per-token API option id B.")
@click.option("--metric", type=click.Choice(BREAKEVEN_METRICS), default=None,
              help="NPV of TCO before or after income tax, the cost of one run of the primary "
              "workload, or the first serving workload's cost per million output tokens. "
              "Default: the NPV the options are ranked on (finance.decision_basis: after "
              "income tax where the scenario has a tax rate).")
@catalog_option
@format_option(*FORMATS)
@output_option
def breakeven(scenario: str | None, path: str, candidate: str, versus: str,
              metric: str | None, catalogs: tuple[str, ...], fmt: str, output: str | None) -> None:
    """The value of PATH at which candidates A and B cost the same.

    \b
    Example:
      tco breakeven --vary candidates.mi300x.card_price --candidate mi300x --vs b200
      tco breakeven --vary utilization --candidate b200 --vs gaudi3 --metric cost_per_job
    """
    from .analysis.breakeven import breakeven as run
    from .exporters import analysis_view as view

    check_files({"--output": output}, {"SCENARIO": scenario}, catalogs)
    b = run(*load(scenario, catalogs), path, candidate, versus, metric)
    _render(fmt, {"table": lambda: view.breakeven_table(b),
                  "json": lambda: to_json(view.breakeven_dict(b)),
                  "csv": lambda: view.breakeven_csv(b)}, output)


@cli.command()
@scenario_argument
@click.option("--draws", type=_WholeRange(1), default=100000, show_default=True,
              help="Number of draws.")
@click.option("--seed", type=_Whole(), default=1, show_default=True,
              help="Random seed; the same seed gives the same output.")
@click.option("--metric", type=click.Choice(["cost_per_job", "cost_per_million_output_tokens"]),
              default="cost_per_job", show_default=True,
              help="Beside the NPV of TCO: the cost of one run of the primary workload, or the "
              "first serving workload's cost per million output tokens.")
@catalog_option
@format_option(*FORMATS)
@output_option
def montecarlo(scenario: str | None, draws: int, seed: int, metric: str,
               catalogs: tuple[str, ...], fmt: str, output: str | None) -> None:
    """P10/P50/P90 of TCO and cost per run (or per million output tokens), and how often each
    candidate is the cheapest.

    Inputs are drawn from their catalog ranges (split triangular: mode and median at the
    typical value, between low and high; the model's own error on each run's time to train
    lognormal between its P10 and P90) or from the scenario's `distributions:`. Starts from
    the scenario's kept baseline, as `tco whatif` does.

    \b
    Example:
      tco montecarlo --draws 100000 --seed 7
      tco montecarlo my-scenario.yaml --format json
      tco montecarlo train-and-serve.yaml --metric cost_per_million_output_tokens
    """
    from .analysis.montecarlo import montecarlo as run
    from .exporters import analysis_view as view

    check_files({"--output": output}, {"SCENARIO": scenario}, catalogs)
    from .snapshot import baseline_and_recompute

    result, _ = baseline_and_recompute(scenario, catalogs, warn)
    with _progress(draws, "Monte Carlo") as bar:
        mc = run(result, draws=draws, seed=seed,
                 progress=bar.update if bar is not None else None, metric=metric)
    _render(fmt, {"table": lambda: view.montecarlo_table(mc),
                  "json": lambda: to_json(view.montecarlo_dict(mc)),
                  "csv": lambda: view.montecarlo_csv(mc)}, output)
    if output or fmt != "table":  # the table shows them; say them where they may go unseen
        warn(*[w.text for w in mc.warnings])


def to_json(data: Any) -> str:
    from .exporters.data import to_json as dump

    return dump(data)


def main() -> None:
    """Console-script entry point. A closed standard output (`tco compare >&-`) is held open
    on the null device, so that no file the command opens takes its place; a command that
    prints is then refused (echo_out)."""
    import sys

    if sys.stdout is None:
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            if fd != 1:
                os.dup2(fd, 1)
                os.close(fd)
        except OSError:
            pass
    cli(prog_name="tco")
