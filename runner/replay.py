"""Record and replay at the model bridge (issue 24, docs/replay.md).

A batch run with ``--record`` or ``--replay[=strict|new]`` holds a :class:`CassetteBatch` in a context variable. Each
unit-run opens a :class:`Tape` when its agent starts (``sandbox.launch_agent``); the agent's base URL and, later,
the judge's are pointed at a :class:`~evalens.runner.model_proxy.ModelProxy` of that tape. The tape decides
per request: answer from the cassette, go live, or refuse (strict replay, first divergence). When the batch ends
every tape writes its cassette (``evals/cassettes/<unit>-<run>.json``) and each report case says how its verdict
came about (``CaseReplay``), worded for every face by ``replay_label`` (``core/models/cassette.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import re
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalens.core.models.cassette import (
    CaseReplay,
    Cassette,
    CassetteExchange,
    CassetteResponse,
    Mode,
)
from evalens.core.regular_files import LinkRefused, read_regular, write_text_atomic
from evalens.runner.canonical import (
    canonical_request,
    env_secrets,
    recanonical,
    redact,
    redact_value,
    short_diff,
    without_cli_tool_wording,
)
from evalens.runner.git_repo import changed_names, git, repository_of
from evalens.runner.model_proxy import Answer, ModelProxy, error_answer

if TYPE_CHECKING:
    from evalens.core.models.uaaps import EvalReport

RUN_FOLDER = re.compile(r"claude-eval-[A-Za-z0-9]{6}\b")
"""The folder `claude plugin eval` makes for each agent run (random): a request names its own run's, and its
response (a tool call's path) must name the replaying run's, not the recorded one's."""
RUN_FOLDER_HELD = "claude-eval-<run>"


def _run_folder(body: bytes) -> str | None:
    found = RUN_FOLDER.search(body.decode("utf-8", "replace"))
    return found.group(0) if found else None


_BATCH: contextvars.ContextVar[CassetteBatch | None] = contextvars.ContextVar(
    "evalens_replay_batch", default=None
)
_TAPE: contextvars.ContextVar[Tape | None] = contextvars.ContextVar("evalens_replay_tape", default=None)
# the tapes one agent attempt opened (agent_retry.run_retrying asks whether one of them refused a request)
_ATTEMPT: contextvars.ContextVar[list[Tape] | None] = contextvars.ContextVar(
    "evalens_replay_attempt", default=None
)


def _slug(text: str, limit: int = 120) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:limit]


def cassette_name(
    unit: str, run: int, engine: str | None = None, model: str | None = None, arm: str | None = None
) -> str:
    """The cassette file of a unit-run: the unit's name made safe for a file name, the run's index, then the
    engine, the agent model (``default``: the CLI's own) and the ``--arms`` arm. Matrix cells and arms run the
    same units of the same package into the same folder; without these parts each cell's or arm's recording
    overwrote the one before, and the others' replays then diverged (issue 44). Without an engine, the name
    cassettes had before (``<unit>-<run>.json``): :meth:`CassetteBatch.open` still reads one of those when the new
    name is missing."""
    name = f"{_slug(unit) or 'unit'}-{run}"
    if engine is not None:
        name += f".{_slug(engine, 40) or 'engine'}.{_slug(model or '', 60) or 'default'}"
        if arm:
            name += f".{_slug(arm, 60) or 'arm'}"
    return name + ".json"


@dataclass(slots=True)
class Tape:
    """The exchanges of one unit-run: those recorded before (replay) and those of this run, in order."""

    batch: CassetteBatch
    unit: str
    run: int
    engine: str | None
    literals: dict[str, str] = field(default_factory=dict)  # volatile text (the sandbox folder) → placeholder
    cli: str | None = None  # the engine CLI's version of this run
    untrusted: str | None = None  # why the cassette may not answer (--replay-base: the change wrote it)
    recorded_cli: str | None = None  # ... and of the cassette's recording
    recorded: list[CassetteExchange] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    exchanges: list[CassetteExchange] = field(default_factory=list)
    live: int = 0
    diverged: str | None = None
    going_live: bool = False
    proxies: dict[tuple[str, str], ModelProxy] = field(default_factory=dict)
    source: Path | None = None  # the cassette the replay read (a legacy name's, or None: ``path``)

    @property
    def path(self) -> Path:
        return self.batch.folder / cassette_name(
            self.unit, self.run, self.engine, self.batch.model, self.batch.arm
        )

    @property
    def legacy_path(self) -> Path:
        """Where a cassette recorded before names carried the engine, model and arm lies."""
        return self.batch.folder / cassette_name(self.unit, self.run)

    @property
    def mode(self) -> Mode:
        return self.batch.mode

    def _canonical(self, body: bytes) -> Any:
        return canonical_request(body, literals=self.literals, secrets=self.batch.secrets)

    def _placeheld(self, text: str) -> str:
        """A response with this run's sandbox folder written as its placeholder (a tool call's path)."""
        for literal, placeholder in sorted(self.literals.items(), key=lambda kv: len(kv[0]), reverse=True):
            text = text.replace(literal, placeholder)
        return text

    def _here(self, text: str) -> str:
        """A recorded response with the placeholders written as this run's sandbox folder."""
        for literal, placeholder in self.literals.items():  # the path as given, then its slug, win
            text = text.replace(placeholder, literal)
        return text

    def _held_for(self, body: bytes) -> Callable[[str], str]:
        """:meth:`_placeheld` for the response to ``body``, with the eval runner's run folder it names held too."""
        folder = _run_folder(body)
        if folder is None:
            return self._placeheld
        return lambda text: self._placeheld(text).replace(folder, RUN_FOLDER_HELD)

    def _here_for(self, body: bytes) -> Callable[[str], str]:
        """:meth:`_here` for the answer to ``body``, the run folder it names put back."""
        folder = _run_folder(body)
        if folder is None:
            return self._here
        return lambda text: self._here(text).replace(RUN_FOLDER_HELD, folder)

    def decide(self, source: str, method: str, target: str, body: bytes) -> Answer | None:
        """Answer from the cassette, refuse (strict divergence), or None: forward live and record."""
        if self.mode == "record" or self.going_live:
            return None
        if method != "POST":  # preconnect checks and model lists are not part of a conversation
            return Answer(200, "application/json", b"{}" if method != "HEAD" else b"")
        canonical = self._canonical(body)
        index = len(self.exchanges) + 1
        # on another CLI version, the CLI's own tool wording is not the run's (canonical.without_cli_tool_wording)
        across = self.cli_changed is not None
        offered = without_cli_tool_wording(canonical) if across else canonical
        for i, old in enumerate(self.recorded):
            if (
                i not in self.used
                and old.source == source
                and old.path == target
                and (
                    old.request == canonical or (across and without_cli_tool_wording(old.request) == offered)
                )
            ):
                self.used.add(i)
                self.exchanges.append(old.model_copy(update={"index": index}))
                return _answer_of(old.response, self._here_for(body))
        nearest = next(
            (old for i, old in enumerate(self.recorded) if i not in self.used and old.source == source), None
        )
        where = f"{(self.source or self.path).name}"
        if self.untrusted is not None:
            why = f"request {index} ({source}) is not answered from {where}: {self.untrusted}"
        elif nearest is None:
            why = f"request {index} ({source}) is not in the cassette {where}: the recording had no more requests"
        else:
            recorded = without_cli_tool_wording(nearest.request) if across else nearest.request
            why = (
                f"request {index} ({source}) differs from recorded request {nearest.index} of {where}:\n"
                + short_diff(recorded, offered)
            )
        if self.diverged is None:
            self.diverged = why
        if self.mode == "new":
            self.going_live = True
            return None
        return error_answer(409, f"evalens strict replay: {why}")

    def recorded_live(
        self, source: str, method: str, target: str, body: bytes, status: int, content_type: str, raw: bytes
    ) -> None:
        """Keep a live exchange (POSTs only: the rest is not conversation)."""
        if method != "POST":
            return
        self.live += 1
        secrets = self.batch.secrets
        held = self._held_for(body)
        text = held(raw.decode("utf-8", "replace"))
        if "text/event-stream" in content_type:
            raw_events = raw.decode("utf-8", "replace").replace("\r\n", "\n").split("\n\n")
            events = placehold_events([e for e in raw_events if e.strip()], held)
            response = CassetteResponse(
                status=status, content_type=content_type, events=[redact(e, secrets) for e in events]
            )
        else:
            try:
                value: Any = redact_value(json.loads(text), secrets)
            except json.JSONDecodeError:
                value = redact(text, secrets)
            response = CassetteResponse(status=status, content_type=content_type, body=value)
        self.exchanges.append(
            CassetteExchange(
                index=len(self.exchanges) + 1,
                source=source,  # type: ignore[arg-type]
                method=method,
                path=target,
                request=self._canonical(body),
                response=response,
            )
        )

    async def proxy(self, upstream: str, source: str) -> ModelProxy:
        """This tape's proxy for ``upstream`` (started on first use)."""
        key = (source, upstream)
        if key not in self.proxies:
            self.proxies[key] = await ModelProxy(upstream, source, tape=self).start()
        return self.proxies[key]

    async def stop(self, source: str | None = None) -> None:
        for key in [k for k in self.proxies if source is None or k[0] == source]:
            await self.proxies.pop(key).stop()

    def note(self) -> CaseReplay:
        return CaseReplay(
            mode=self.mode,
            replayed=len(self.exchanges) > self.live,
            requests=len(self.exchanges),
            live_requests=self.live,
            diverged=self.diverged,
            cli_changed=self.cli_changed,
            untrusted=self.untrusted,
            cassettes=[self.batch.relative(self.path if self.live or self.source is None else self.source)],
        )

    @property
    def cli_changed(self) -> str | None:
        """How the recording's CLI and this run's differ, when a replay answered from another version."""
        if self.mode == "record" or not self.recorded or not self.cli or self.recorded_cli == self.cli:
            return None
        return f"recorded with {self.recorded_cli or 'an unrecorded CLI version'}, replayed on {self.cli}"

    def write(self) -> None:
        """Write the cassette when this run recorded something (strict replay never writes)."""
        if self.mode == "strict" or (self.mode == "new" and not self.live):
            return
        shared: dict[str, Any] = {}
        exchanges = [e.model_copy(update={"request": pack(e.request, shared)}) for e in self.exchanges]
        cassette = Cassette(
            unit=self.unit, run=self.run, engine=self.engine, cli=self.cli, exchanges=exchanges, shared=shared
        )
        data = cassette.model_dump(mode="json")
        data["digest"] = cassette_digest(data)
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        # never through a link: a committed evals/cassettes/<unit>-1.json.tmp -> ~/.bashrc was written (#42)
        write_text_atomic(self.path, text, below=self.batch.root)


def _delta(event: str) -> tuple[tuple[Any, ...] | None, tuple[str, ...], str, Any]:
    """An SSE event's streamed-text piece: (what it continues, where its text is, event name, data), or no key."""
    name, data_lines = "", []
    for line in event.split("\n"):
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data_lines.append(line[5:].lstrip())
    try:
        data = json.loads("\n".join(data_lines)) if data_lines else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        return None, (), name, data
    delta = data.get("delta")
    loc: tuple[str, ...] = ()
    if isinstance(delta, str):
        loc = ("delta",)
    elif isinstance(delta, dict):
        loc = next(
            (("delta", f) for f in ("partial_json", "text", "thinking") if isinstance(delta.get(f), str)), ()
        )
    if not loc:
        return None, (), name, data
    ids = tuple(data.get(k) for k in ("type", "index", "output_index", "item_id", "content_index"))
    return (name, *ids, loc), loc, name, data


def _text_at(data: dict[str, Any], loc: tuple[str, ...]) -> str:
    node: Any = data
    for key in loc:
        node = node[key]
    return str(node)


def placehold_events(events: list[str], sub: Callable[[str], str]) -> list[str]:
    """``sub`` applied to a stream's events. A provider streams a tool call's arguments (or text) in pieces that
    may split a path anywhere, so a run of pieces whose joined text ``sub`` changes becomes one piece first."""
    out: list[str] = []
    i = 0
    while i < len(events):
        key, loc, name, data = _delta(events[i])
        j = i + 1
        while key is not None and j < len(events) and _delta(events[j])[0] == key:
            j += 1
        if key is None or j == i + 1:
            out.append(sub(events[i]))
            i += 1
            continue
        whole = "".join(_text_at(_delta(e)[3], loc) for e in events[i:j])
        if sub(whole) == whole:
            out.extend(sub(e) for e in events[i:j])
        else:
            node = data
            for k in loc[:-1]:
                node = node[k]
            node[loc[-1]] = sub(whole)
            out.append((f"event: {name}\n" if name else "") + "data: " + json.dumps(data, ensure_ascii=False))
        i = j
    return out


def _answer_of(response: CassetteResponse, here: Callable[[str], str]) -> Answer:
    """The recorded response as this run's answer (``here`` puts the run's sandbox folder back in)."""
    if response.events is not None:
        return Answer(response.status, response.content_type, events=[here(e) for e in response.events])
    body = response.body
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return Answer(response.status, response.content_type, here(text).encode("utf-8"))


@dataclass(slots=True)
class CassetteBatch:
    """The cassette settings of one batch and its unit-runs' tapes."""

    mode: Mode
    folder: Path  # evals/cassettes of the package
    root: Path  # the package root (cassettes are named relative to it)
    secrets: list[str] = field(default_factory=list)
    tapes: dict[tuple[str, int], Tape] = field(default_factory=dict)
    base: str | None = None  # --replay-base
    edited: frozenset[Path] = frozenset()  # cassettes the change added or edited since ``base`` (resolved)
    base_problem: str | None = None  # why the cassettes could not be compared with ``base``: none is trusted
    model: str | None = (
        None  # the agent model the batch asked for (None: the CLI's default), in cassette names
    )
    arm: str | None = None  # the batch's --arms arm, in cassette names

    def untrusted(self, path: Path) -> str | None:
        """Why the cassette at ``path`` may not answer (the change itself wrote it), else None."""
        if self.base is None:
            return None
        rel = self.relative(path)
        if self.base_problem is not None:
            return f"no cassette is trusted: {self.base_problem}"
        if path.resolve() in self.edited:
            return (
                f"{rel} was added or edited since {self.base}: a cassette the change itself wrote never "
                "answers (docs/ci.md)"
            )
        return None

    def relative(self, path: Path) -> str:
        with contextlib.suppress(ValueError):
            return path.relative_to(self.root).as_posix()
        return str(path)

    async def open(
        self, unit: str, run: int, engine: str | None, literals: dict[str, str], cli: str | None = None
    ) -> Tape:
        """The tape of a unit-run, fresh (a retried attempt starts its tape again)."""
        old = self.tapes.get((unit, run))
        if old is not None:
            await old.stop()
        tape = Tape(self, unit, run, engine, literals, cli)
        source = tape.path
        if self.mode != "record" and not source.exists() and not self.arm:
            # a cassette named before names carried the engine and model answers when it was this engine's
            # (its requests carry the model and the installed skills: another model's or arm's diverges)
            legacy = tape.legacy_path
            if legacy.is_file() and await asyncio.to_thread(cassette_engine, legacy) in (engine, None):
                source = legacy
        tape.untrusted = self.untrusted(source)
        if self.mode != "record" and tape.untrusted is None:
            tape.recorded, tape.recorded_cli, edited = await asyncio.to_thread(read_cassette, source)
            if edited is not None:  # never answers: strict replay is then ERROR naming it, `new` runs live
                tape.untrusted = f"{self.relative(source)}: {edited}"
        tape.source = source
        self.tapes[(unit, run)] = tape
        return tape

    def notes(self, unit: str) -> CaseReplay | None:
        """The unit's replay note over all its runs (None when none of its runs had a tape)."""
        tapes = [t for (u, _r), t in sorted(self.tapes.items()) if u == unit]
        if not tapes:
            return None
        notes = [t.note() for t in tapes]
        return CaseReplay(
            mode=self.mode,
            replayed=any(n.replayed for n in notes),
            requests=sum(n.requests for n in notes),
            live_requests=sum(n.live_requests for n in notes),
            diverged=next((n.diverged for n in notes if n.diverged), None),
            cli_changed=next((n.cli_changed for n in notes if n.cli_changed), None),
            untrusted=next((n.untrusted for n in notes if n.untrusted), None),
            cassettes=[c for n in notes for c in n.cassettes],
        )


SHARE_MIN_CHARS = 1024  # a request part at least this long (as JSON) is written once per cassette


def _shared(value: Any, shared: dict[str, Any]) -> Any:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    if len(text) < SHARE_MIN_CHARS:
        return value
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    shared.setdefault(key, value)
    return {"$shared": key}


def pack(request: Any, shared: dict[str, Any]) -> Any:
    """A canonical request with its large parts (each top-level value, each item of a top-level list: a tool, a
    system block, a message) replaced by references into ``shared``: a cassette holds each once."""
    if not isinstance(request, dict):
        return request
    return {
        k: [_shared(item, shared) for item in v] if isinstance(v, list) else _shared(v, shared)
        for k, v in request.items()
    }


def unpack(request: Any, shared: dict[str, Any]) -> Any:
    """The canonical request :func:`pack` was given back (a reference to nothing stays as it is: no match)."""

    def one(value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"$shared"}:
            return shared.get(str(value["$shared"]), value)
        return value

    if not isinstance(request, dict):
        return request
    return {k: [one(i) for i in v] if isinstance(v, list) else one(v) for k, v in request.items()}


def load_cassette(path: Path) -> list[CassetteExchange]:
    """The recorded exchanges of a cassette, requests whole again (none when the file is missing or
    unreadable: every request then differs, which strict replay reports)."""
    return load_cassette_cli(path)[0]


def cassette_engine(path: Path) -> str | None:
    """The engine a cassette says it was recorded with (None: unreadable or not said)."""
    try:
        data = json.loads(read_regular(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    engine = data.get("engine") if isinstance(data, dict) else None
    return engine if isinstance(engine, str) else None


def cassette_digest(data: dict[str, Any]) -> str:
    """The digest a cassette carries: SHA-256 of every field but the digest, as canonical JSON (sorted keys, no
    spaces), so the file's layout may change and its content may not."""
    body = {k: v for k, v in data.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_cassette_cli(path: Path) -> tuple[list[CassetteExchange], str | None]:
    """The recorded exchanges of a cassette, each request under today's canonical rules, and the CLI version
    it was recorded with."""
    exchanges, cli, _edited = read_cassette(path)
    return exchanges, cli


def read_cassette(path: Path) -> tuple[list[CassetteExchange], str | None, str | None]:
    """:func:`load_cassette_cli`, and why the cassette may not answer when its digest no longer matches its
    content (edited after it was recorded); none then, since an edited recording is no recording."""
    try:
        data = json.loads(read_regular(path).decode("utf-8"))
        cassette = Cassette.model_validate(data)
    except (OSError, ValueError, RecursionError):  # a hostile cassette nested too deeply is unreadable too
        return [], None, None
    if cassette.digest is not None and cassette.digest != cassette_digest(data):
        return (
            [],
            cassette.cli,
            "it was edited after it was recorded (its digest no longer matches its content)",
        )
    exchanges = [
        e.model_copy(update={"request": recanonical(unpack(e.request, cassette.shared))})
        for e in cassette.exchanges
    ]
    return exchanges, cassette.cli, None


@dataclass(slots=True, frozen=True)
class ReplaySettings:
    """What ``--record`` / ``--replay[=strict|new]`` asked for."""

    mode: Mode
    root: Path  # the package root; cassettes go to ``<root>/evals/cassettes``
    scope: str | None = None  # a subfolder: the eval file of ``evalens run`` (unit ids repeat across files)
    key_env: tuple[
        str, ...
    ] = ()  # the run's own key variables (judge_key_env, agent_key_env): redacted by value
    base: str | None = None  # --replay-base: only cassettes as they are at this git ref answer
    model: str | None = (
        None  # the agent model asked for (None: the CLI's default): part of each cassette name
    )
    arm: str | None = None  # --arms: the arm this batch runs: part of each cassette name

    @property
    def folder(self) -> Path:
        base = self.root / "evals" / "cassettes"
        return base / self.scope if self.scope else base


def file_scope(file: Path, root: Path) -> str:
    """The cassette subfolder of an eval file: its path under the root without the suffix, ``/`` as ``-``
    (``evals/evals.json`` → ``evals-evals``), so two files' unit ``1`` never share a cassette."""
    try:
        rel = file.resolve().relative_to(root.resolve())
    except ValueError:
        rel = Path(file.name)
    return re.sub(r"[^A-Za-z0-9._-]+", "-", rel.with_suffix("").as_posix()).strip("-.") or "file"


def settings_of(request: Any, root: Path, file: Path | None = None) -> ReplaySettings | None:
    """The cassette settings of a run request (``record`` / ``replay`` of ``AgentRunLimits``), or None; with
    ``file`` (``evalens run``), its cassettes go to that file's subfolder. The key variables the request names
    (``judge_key_env``, ``agent_key_env``) are redacted by value like the providers' own."""
    mode: Mode | None = request.replay or ("record" if request.record else None)
    if mode is None:
        return None
    names = [
        *(getattr(request, "judge_key_env", None) or ()),
        *(getattr(request, "agent_key_env", None) or ()),
    ]
    scope = file_scope(file, root) if file is not None else None
    base = getattr(request, "replay_base", None) if mode != "record" else None
    model = getattr(request, "agent_model", None) or getattr(request, "model", None)
    arm = getattr(request, "arm", None)
    return ReplaySettings(
        mode,
        root,
        scope,
        tuple(dict.fromkeys(names)),
        base,
        model if isinstance(model, str) else None,
        arm if isinstance(arm, str) else None,
    )


@asynccontextmanager
async def cassettes(settings: ReplaySettings | None) -> AsyncIterator[None]:
    """Hold the batch's tapes while the batch runs; at its end stop every proxy and write the cassettes."""
    if settings is None:
        yield
        return
    batch = CassetteBatch(settings.mode, settings.folder, settings.root, env_secrets(extra=settings.key_env))
    batch.model, batch.arm = settings.model, settings.arm
    if settings.base:
        batch.base = settings.base
        batch.edited, batch.base_problem = await asyncio.to_thread(
            edited_since, settings.folder, settings.base
        )
    token = _BATCH.set(batch)
    try:
        yield
    finally:
        _BATCH.reset(token)
        for tape in batch.tapes.values():
            await tape.stop()
            try:
                await asyncio.to_thread(tape.write)
            except LinkRefused as exc:  # the repository's own link: the run stands, its cassette is not kept
                print(f"warning: cassette not written: {exc.strerror}", file=sys.stderr)


def edited_since(folder: Path, base: str) -> tuple[frozenset[Path], str | None]:
    """The files under ``folder`` that differ from git ref ``base`` (changed, added, untracked or ignored), as
    resolved paths, and why they could not be listed (then no cassette is trusted). Blocking: runs git, with
    the repository named explicitly, hooks and filter drivers off (:mod:`evalens.runner.git_repo`)."""

    top = repository_of(folder if folder.exists() else folder.parent)
    if top is None:
        return frozenset(), f"{folder} is in no git repository, so nothing can be compared with {base}"
    try:
        rel = folder.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return frozenset(), f"{folder} is outside its repository {top}"
    known = git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{base}^{{commit}}")
    if known.returncode != 0:
        return frozenset(), f"git ref {base} is unknown here (fetch it, e.g. with fetch-depth: 0)"
    changed = changed_names(top, known.stdout.strip(), rel)
    extra = git(top, "ls-files", "--others", "-z", "--", rel)
    if changed.returncode != 0 or extra.returncode != 0:
        return (
            frozenset(),
            f"git could not compare {rel} with {base}: {(changed.stderr or extra.stderr)[:200]}",
        )
    names = [n for n in (changed.stdout + extra.stdout).split("\0") if n]
    return frozenset((top / n).resolve() for n in names), None


def _sandbox_literals(root: Path) -> dict[str, str]:
    """The sandbox folder as the agent may write it: the path, its real path, and the path as a file-name slug
    (Claude Code names its project folder after the working directory)."""
    paths = [str(root)]
    with contextlib.suppress(OSError):
        if str(root.resolve()) != paths[0]:
            paths.append(str(root.resolve()))
    literals = {p: "<sandbox>" for p in paths}
    literals.update({re.sub(r"[^A-Za-z0-9]", "-", p): "<sandbox-slug>" for p in paths})
    return literals


async def open_tape(
    unit: str, run: int, engine: str | None, sandbox_root: Path, cli: str | None = None
) -> Tape | None:
    """The tape of the unit-run about to start (None outside a recording or replaying batch). It stays the
    current tape of the caller's task, so the unit's judge calls after the agent land on it too."""
    batch = _BATCH.get()
    if batch is None:
        return None
    literals = await asyncio.to_thread(_sandbox_literals, sandbox_root)
    tape = await batch.open(unit, run, engine, literals, cli)
    _TAPE.set(tape)
    opened = _ATTEMPT.get()
    if opened is not None:
        opened.append(tape)
    return tape


@contextlib.contextmanager
def watch_attempt() -> Iterator[list[Tape]]:
    """The tapes the attempt run inside this block opens (a list shared with any task it starts, whose
    context is a copy of this one)."""
    opened: list[Tape] = []
    token = _ATTEMPT.set(opened)
    try:
        yield opened
    finally:
        _ATTEMPT.reset(token)


def refusal(tapes: list[Tape]) -> str | None:
    """Why one of ``tapes`` refused a request (strict replay: the first divergence, or a cassette
    ``--replay-base`` does not trust), else None. The refusal is an HTTP 409, which a provider uses for a
    transient conflict; this one is deterministic (the same request meets the same cassette), so an attempt
    that met it is never run again."""
    return next((t.diverged for t in tapes if t.mode == "strict" and t.diverged), None)


async def judge_base_url(upstream: str) -> str | None:
    """The base URL a judge call uses while a tape is current: its proxy in front of ``upstream``."""
    tape = _TAPE.get()
    if tape is None:
        return None
    return (await tape.proxy(upstream, "judge")).url


def run_note(unit: str, run: int) -> CaseReplay | None:
    """How one unit-run's requests were answered, for its run record (None outside a recording or replaying
    batch, or when the run never started its agent). ``unit`` is the tape's name (a baseline's has ``[side]``)."""
    batch = _BATCH.get()
    tape = batch.tapes.get((unit, run)) if batch is not None else None
    return tape.note() if tape is not None else None


def carry(outcome: Any) -> Any:
    """Give a finished batch's results the replay notes its report's cases got, so the lens and the Test
    Explorer mark a replayed verdict as the report does."""
    report = getattr(outcome, "report", None)
    if report is not None:
        notes = {c.name: c.replay for c in report.cases if c.replay is not None}
        for result in outcome.results:
            result.replay = notes.get(result.name, result.replay)
    return outcome


def annotate(report: EvalReport) -> None:
    """Mark each report case whose runs had tapes with how its verdict came about (a live recording says
    ``mode: record, replayed: false``)."""
    batch = _BATCH.get()
    if batch is None:
        return
    for case in report.cases:
        note = batch.notes(case.name)
        if note is not None:
            case.replay = note
