# Inputs and parameters of build_site: each analysis's declared outputs under
# tables/, figures/, check/, changes/ and gate/ (in rule order), and per reported file the caption,
# report subcategory and caption parameters its rule declares, so the site shows
# what `snakemake --report` shows and a new kind's page needs no site code.
import inspect

from snakemake.iocontainers import Wildcards

SITE_FOLDERS = ("tables", "figures", "check", "changes", "gate")
SITE_FILES = [
    str(p)
    for sub in ("assets", "templates")
    for p in sorted((Path(workflow.basedir) / "scripts/rederive/site" / sub).iterdir())
    if p.is_file()
]
# Rule parameters that are bookkeeping, not caption text.
NOT_CAPTION_PARAMS = ("library_version", "source_digest")


def site_outputs(name):
    """The analysis's files the site shows, in the order the rules declare them
    (of an analysis an earlier run built, those on disk)."""
    files = analysis_outputs(name, SITE_FOLDERS)
    if name in BUILD:
        return files
    return [f for f in files if Path(f).is_file()]


def site_names():
    """This run's analyses, then those earlier runs built (earlier_analyses)."""
    return list(BUILD) + sorted(earlier_analyses())


def _caption_params(rule_, name):
    """The rule's parameters as the caption template sees them: plain values and
    functions of the wildcards alone, evaluated for this analysis."""
    wildcards = Wildcards(fromdict={"analysis": name})
    values = {}
    for key, value in rule_.params.items():
        if key in NOT_CAPTION_PARAMS:
            continue
        if callable(value):
            if len(inspect.signature(value).parameters) != 1:
                continue
            value = value(wildcards)
        if value is None or isinstance(value, (str, int, float, bool)):
            values[key] = value
    return values


def _caption_path(caption):
    """The caption file, absolute: the working directory may be elsewhere (--directory)."""
    path = (
        caption.get_path_or_uri(secret_free=True)
        if hasattr(caption, "get_path_or_uri")
        else caption
    )
    return str(Path(path).resolve())


def site_reports(name):
    reports = {}
    for rule_ in analysis_rules(name):
        for out in rule_.output:
            flag = getattr(out, "flags", {}).get("report")
            if flag is None:
                continue
            path = Path(str(out.apply_wildcards({"analysis": name}))).as_posix()
            reports[path] = {
                "caption": _caption_path(flag.caption) if flag.caption else None,
                "subcategory": flag.subcategory,
                "params": _caption_params(rule_, name),
            }
    return reports


def site_analyses(wildcards):
    """Params function: per analysis, what its page and index row show; an
    analysis an earlier run built says so, with its state and settings."""
    out = []
    earlier = earlier_analyses()
    for name in site_names():
        w = Wildcards(fromdict={"analysis": name})
        entry = {
            "name": name,
            "kind": kind_of(name),
            "headline": headline_of(name),
            "label": label(w),
            "simulated": is_simulated(w),
            "data_note": data_note(w),
            "outputs": site_outputs(name),
            "reports": site_reports(name),
        }
        if name in earlier:
            entry["earlier"] = earlier_record(earlier[name])
        out.append(entry)
    return out


def earlier_record(earlier):
    """What the site shows of an analysis an earlier run built."""
    manifest = earlier.entry.manifest
    files = dict(manifest.get("inputs", {}))
    for run in manifest.get("runs", {}).values():
        files.update(run.get("files", {}))
    return {
        "note": earlier.note(),
        "state": earlier.state,
        "kind": earlier.kind,
        "root": earlier.raw_dir or "",
        "files": dict(sorted(files.items())),
        "options": {k: v for k, v in earlier.settings.items() if k not in ("kind",)},
    }


def site_inputs(wildcards):
    return [path for name in site_names() for path in site_outputs(name)]


def site_captions(wildcards):
    captions = {
        r["caption"]
        for name in site_names()
        for r in site_reports(name).values()
        if r["caption"]
    }
    return sorted(captions)
