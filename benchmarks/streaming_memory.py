"""Peak memory of ``factscope check``, ``ground score`` and ``knowledge score`` against the number of records:
does a run stay in bounded memory?

For each size of ``--records`` the script writes that many synthetic check records to a JSONL file (short
questions, one- or two-sentence responses, one to three references of a few sentences, about 0.75 KB a record,
built from small word lists with ``--seed``), then runs ``factscope check INPUT -o OUTPUT --overwrite`` on it
as a subprocess, one fresh process per size, and reads that process's peak resident set size from the kernel
when it exits (``wait4``'s ``ru_maxrss``). While it runs, its resident set is sampled every
``--sample-seconds`` to show whether memory climbs with the records done. Each size also records the
wall-clock seconds of the whole process (model loading included), records per second, the input file's size,
and the output's rows and distinct ids (every record written exactly once).

A run that streams its records holds the same memory at any size, so the figure that matters is the difference
in peak RSS between the largest and the smallest size, compared with ``--limit-mb`` (MB: 10^6 bytes). The
checker defaults to ``similarity`` and the extractor to ``rules`` (offline and quick; the embedded
cross-encoder would take hours on 100,000 records on a few CPU cores); ``--extra-args`` passes further options
to ``factscope check``. Figures go to ``benchmarks/results/streaming_memory.json`` (see ``results_file``).

``--system ground`` writes the same records as a generic grounding dataset (question, references as contexts,
the first reference's sentences as gold facts) and their responses as a separate ``{id, response}`` file in
another order, and runs ``factscope ground score DATASET --responses FILE --extractor EXTRACTOR --presence
nli:CHECKER``: the responses are joined to the dataset by id. With ``--keyed`` the dataset is written in the
Truly Ground layout (one JSON object keyed by question id) with a metadata file keyed by the same ids, in the
responses' order (``--metadata FILE``). ``--system knowledge`` writes ``{id, query, knowledge}`` records (the
response as the knowledge) and a corpus of 200 reference paragraphs, and runs ``factscope knowledge score RECORDS
--corpus CORPUS --checker CHECKER`` (factuality and validity; relevance, coherence and the LM off); with
``--knowledge-lines`` the knowledge is written one text per line and its queries as JSONL (``--queries FILE``).

    HF_HUB_OFFLINE=1 python benchmarks/streaming_memory.py --records 10000 100000
    HF_HUB_OFFLINE=1 python benchmarks/streaming_memory.py --system ground --keyed --tiny-encoder \
        --extractor sentences --out benchmarks/results/streaming_memory_ground_keyed.json
    HF_HUB_OFFLINE=1 python benchmarks/streaming_memory.py --quick --out /tmp/streaming_memory.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from results_file import add_out_option, write_results

from factscope.core.text import split_sentences

SETTINGS = ("zero", "noisy", "accurate")
QUICK_SIZES = (200, 2000)
KIB = 1024
MB = 10**6

FIRST_NAMES = (
    "Amara", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hiroshi", "Ines", "Jonas", "Kavya",
    "Lukas", "Maren", "Nikolai", "Olga", "Pablo", "Quentin", "Rosa", "Sven", "Tomasz", "Ursula", "Viktor",
    "Wanda", "Xavier", "Yara", "Zoltan",
)  # fmt: skip
LAST_NAMES = (
    "Albrecht", "Bianchi", "Castellanos", "Dvorak", "Eriksen", "Fontaine", "Gallagher", "Horvath", "Ivanova",
    "Jansen", "Kowalski", "Lindqvist", "Moreau", "Novak", "Okafor", "Petrov", "Quintero", "Rossi",
    "Schneider", "Takahashi", "Urquhart", "Varga", "Wagner", "Yilmaz", "Zielinski",
)  # fmt: skip
PLACES = (
    ("Lyon", "France", "French"), ("Porto", "Portugal", "Portuguese"), ("Krakow", "Poland", "Polish"),
    ("Graz", "Austria", "Austrian"), ("Utrecht", "the Netherlands", "Dutch"),
    ("Bergen", "Norway", "Norwegian"),
    ("Seville", "Spain", "Spanish"), ("Turin", "Italy", "Italian"), ("Tartu", "Estonia", "Estonian"),
    ("Leipzig", "Germany", "German"), ("Brno", "Czechia", "Czech"), ("Uppsala", "Sweden", "Swedish"),
    ("Ghent", "Belgium", "Belgian"), ("Cork", "Ireland", "Irish"), ("Osaka", "Japan", "Japanese"),
    ("Recife", "Brazil", "Brazilian"), ("Pune", "India", "Indian"), ("Quebec City", "Canada", "Canadian"),
    ("Adelaide", "Australia", "Australian"), ("Izmir", "Turkey", "Turkish"),
)  # fmt: skip
RIVERS = ("Rhone", "Douro", "Vistula", "Mur", "Vecht", "Guadalquivir", "Po", "Emajogi", "Elbe", "Lee")
PROFESSIONS = (
    ("chemist", "organic synthesis"), ("physicist", "solid-state physics"), ("architect", "timber buildings"),
    ("economist", "labour markets"), ("botanist", "alpine plants"), ("engineer", "bridge design"),
    ("mathematician", "number theory"), ("historian", "medieval trade"), ("astronomer", "variable stars"),
    ("geologist", "volcanic rocks"),
)  # fmt: skip
PRIZES = ("Keller Medal", "Arden Prize", "Holm Award", "Vesta Medal", "Corvin Prize")
INDUSTRIES = (
    ("bicycle", "Vento touring frame"), ("software", "Ledger accounting suite"), ("food", "Sunfield oat bar"),
    ("optics", "Clearline microscope"), ("furniture", "Fold stool"), ("battery", "Kestrel cell"),
)  # fmt: skip
COMPANY_PARTS = ("Nord", "Alto", "Vela", "Brix", "Calder", "Mira", "Tarn", "Odo", "Fenn", "Lumo")
COMPANY_KINDS = ("Works", "Systems", "Labs", "Industries", "Group")
STRUCTURES = ("bridge", "tower", "concert hall", "library", "railway station")
FESTIVALS = ("jazz", "film", "lantern", "book", "harvest", "street theatre")
MONTHS = ("March", "May", "June", "August", "September", "October")
ABSTENTIONS = (
    "I'm sorry, but I don't have reliable information about that.",
    "I cannot answer that question with confidence.",
)

YEARS = frozenset({"born", "award_year", "founded", "year"})
"""Facts that are years: a wrong response shifts them by a few years, other numbers by a share of them."""

Facts = dict[str, Any]


@dataclass(frozen=True)
class Topic:
    """One kind of entity: how to draw its facts, and question, response and reference sentences about it."""

    name: str
    facts: Callable[[random.Random], Facts]
    numbers: tuple[str, ...]
    """Facts a wrong response may get wrong (integers)."""
    questions: tuple[str, ...]
    response: tuple[str, ...]
    reference: tuple[str, ...]


def with_article(word: str) -> str:
    """``word`` after "a" or "an", by its first letter."""
    return f"{'an' if word[0].lower() in 'aeiou' else 'a'} {word}"


def company_name(rng: random.Random) -> str:
    """A made-up company name such as "Altovela Systems"."""
    return f"{rng.choice(COMPANY_PARTS)}{rng.choice(COMPANY_PARTS).lower()} {rng.choice(COMPANY_KINDS)}"


def person(rng: random.Random) -> Facts:
    born = rng.randint(1820, 1930)
    city, country, adjective = rng.choice(PLACES)
    profession, field = rng.choice(PROFESSIONS)
    return {
        "name": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        "born": born,
        "died": born + rng.randint(55, 90),
        "city": city,
        "country": country,
        "a_adjective": with_article(adjective),
        "city2": rng.choice(PLACES)[0],
        "profession": profession,
        "field": field,
        "prize": rng.choice(PRIZES),
        "award_year": born + rng.randint(30, 50),
        "papers": rng.randint(20, 400),
        "books": rng.randint(1, 12),
    }


def city(rng: random.Random) -> Facts:
    name, country, _ = rng.choice(PLACES)
    founded = rng.randint(800, 1700)
    return {
        "city": name,
        "country": country,
        "population": rng.randint(80, 2500) * 1000,
        "river": rng.choice(RIVERS),
        "distance": rng.randint(20, 400),
        "city2": rng.choice(PLACES)[0],
        "founded": founded,
        "capital_year": founded + rng.randint(50, 600),
        "festival": rng.choice(FESTIVALS),
        "visitors": rng.randint(5, 400) * 1000,
        "month": rng.choice(MONTHS),
        "employees": rng.randint(2, 40) * 500,
        "company": company_name(rng),
    }


def company(rng: random.Random) -> Facts:
    industry, product = rng.choice(INDUSTRIES)
    founded = rng.randint(1850, 2010)
    return {
        "company": company_name(rng),
        "a_industry": with_article(industry),
        "product": product,
        "founded": founded,
        "founder": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        "city": rng.choice(PLACES)[0],
        "city2": rng.choice(PLACES)[0],
        "employees": rng.randint(40, 30000),
        "revenue": rng.randint(5, 9000),
        "year": rng.randint(2015, 2024),
        "product_year": founded + rng.randint(1, 12),
        "moved": founded + rng.randint(10, 40),
    }


def structure(rng: random.Random) -> Facts:
    place, country, _ = rng.choice(PLACES)
    kind = rng.choice(STRUCTURES)
    return {
        "structure": f"{rng.choice(LAST_NAMES)} {kind.title()}",
        "kind": kind,
        "a_kind": with_article(kind),
        "city": place,
        "country": country,
        "year": rng.randint(1850, 2020),
        "height": rng.randint(18, 320),
        "designer": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        "build_years": rng.randint(2, 12),
        "cost": rng.randint(3, 900),
        "visitors": rng.randint(10, 3000) * 1000,
    }


TOPICS = (
    Topic(
        "person",
        person,
        ("born", "award_year", "papers"),
        ("Who was {name}?", "When was {name} born?", "What is {name} known for?"),
        (
            "{name} was {a_adjective} {profession} born in {city} in {born}.",
            "{name} received the {prize} in {award_year} for work on {field}.",
            "{name} published {papers} papers on {field}.",
        ),
        (
            "{name} ({born}-{died}) was {a_adjective} {profession} known for work on {field}.",
            "Born in {city}, {country}, in {born}, {name} studied at the university of {city2}.",
            "In {award_year} the {prize} was awarded to {name} for research on {field}.",
            "Over a long career {name} wrote {papers} scientific papers and {books} books.",
            "{name} later moved to {city2}, where teaching continued until about {died}.",
        ),
    ),
    Topic(
        "city",
        city,
        ("population", "founded", "distance"),
        ("How many people live in {city}?", "When was {city} founded?", "Tell me about {city}."),
        (
            "{city} is a city in {country} with about {population:,} inhabitants.",
            "{city} was founded in {founded} on the {river} river.",
            "{city} lies {distance} kilometres from {city2}.",
        ),
        (
            "{city} is a city in {country} with a population of about {population:,} people.",
            "It lies on the {river} river, {distance} kilometres from {city2}.",
            "The city was founded in {founded} and became a regional capital in {capital_year}.",
            "Its largest employer is {company}, with about {employees:,} staff in the city.",
            "The annual {festival} festival draws around {visitors:,} visitors every {month}.",
        ),
    ),
    Topic(
        "company",
        company,
        ("founded", "employees", "revenue"),
        ("Who founded {company}?", "What does {company} make?", "How large is {company}?"),
        (
            "{company} is {a_industry} company founded by {founder} in {founded}.",
            "{company} employs about {employees:,} people.",
            "{company} reported revenue of {revenue} million euros in {year}.",
        ),
        (
            "{company} is {a_industry} company founded in {founded} by {founder} in {city}.",
            "It employs about {employees:,} people and had a revenue of {revenue} million euros in {year}.",
            "Its best-known product is the {product}, first sold in {product_year}.",
            "The company moved its headquarters to {city2} in {moved}.",
        ),
    ),
    Topic(
        "structure",
        structure,
        ("year", "height", "cost"),
        ("How tall is the {structure}?", "Who designed the {structure}?", "When was the {structure} built?"),
        (
            "The {structure} in {city} was completed in {year} and is {height} metres tall.",
            "The {structure} was designed by {designer}.",
            "Building the {structure} cost about {cost} million euros.",
        ),
        (
            "The {structure} is {a_kind} in {city}, {country}, completed in {year}.",
            "It is {height} metres tall and was designed by {designer}.",
            "Construction took {build_years} years and cost about {cost} million euros.",
            "About {visitors:,} people visit the {kind} each year.",
        ),
    ),
)


def paragraph(topic: Topic, facts: Facts, rng: random.Random) -> str:
    """A reference of three or more of the topic's sentences, the opening one first."""
    rest = rng.sample(topic.reference[1:], rng.randint(2, len(topic.reference) - 1))
    return " ".join(sentence.format(**facts) for sentence in (topic.reference[0], *rest))


def wrong(topic: Topic, facts: Facts, rng: random.Random) -> Facts:
    """The facts with one number changed, for responses that contradict their references."""
    key = rng.choice(topic.numbers)
    value = facts[key]
    change = rng.randint(1, 20) if key in YEARS else max(1, round(value * rng.uniform(0.05, 0.4)))
    return {**facts, key: value + rng.choice((-1, 1)) * change}


def record(number: int, rng: random.Random) -> dict[str, Any]:
    """One check record: a question, a response of one or two sentences, one to three references."""
    topic = rng.choice(TOPICS)
    facts = topic.facts(rng)
    setting = rng.choice(SETTINGS)
    if rng.random() < 0.03:
        response = rng.choice(ABSTENTIONS)
    else:
        said = wrong(topic, facts, rng) if rng.random() < 0.3 else facts
        response = " ".join(s.format(**said) for s in rng.sample(topic.response, rng.randint(1, 2)))
    references = [paragraph(topic, facts, rng)]
    for _ in range(rng.randint(0, 2)):
        other = topic if setting == "accurate" else rng.choice(TOPICS)
        references.append(paragraph(other, facts if other is topic else other.facts(rng), rng))
    return {
        "id": f"{setting}-{topic.name}-{number:06d}",
        "setting": setting,
        "question": rng.choice(topic.questions).format(**facts),
        "response": response,
        "references": references,
    }


def write_records(path: Path, n_records: int, seed: int) -> int:
    """Write ``n_records`` records to ``path`` as JSONL, one at a time; returns the file's size in bytes."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        for number in range(n_records):
            handle.write(json.dumps(record(number, rng), ensure_ascii=False) + "\n")
    return path.stat().st_size


def write_grounding(path: Path, responses: Path, n_records: int, seed: int, metadata: Path | None = None) -> int:
    """The records as a generic grounding dataset at ``path`` and their responses at ``responses``, the responses
    in another order (by a hash of the id); with ``metadata``, the dataset in the Truly Ground layout (one JSON
    object keyed by question id, an entry a line) and a metadata file keyed by the same ids there (``setting``,
    ``has_multi``), in the responses' order. Returns the files' size in bytes."""
    rng = random.Random(seed)
    answers: list[tuple[int, str]] = []
    metadata_rows: list[tuple[int, str]] = []
    with path.open("w", encoding="utf-8") as handle:
        handle.write("{\n" if metadata is not None else "")
        for number in range(n_records):
            made = record(number, rng)
            gold = split_sentences(made["references"][0])[:3]
            order = zlib.crc32(made["id"].encode())
            if metadata is None:
                example = {
                    "id": made["id"], "question": made["question"], "contexts": made["references"],
                    "gold_facts": gold, "setting": made["setting"],
                }  # fmt: skip
                handle.write(json.dumps(example, ensure_ascii=False) + "\n")
            else:
                entry = {"qId": made["id"], "qText": made["question"], "context_list": made["references"],
                         "atomic_texts": gold}  # fmt: skip
                comma = ",\n" if number else ""
                handle.write(f"{comma}{json.dumps(made['id'])}: {json.dumps(entry, ensure_ascii=False)}")
                fields = {"setting": made["setting"], "has_multi": len(made["references"]) > 1}
                metadata_rows.append((order, f"{json.dumps(made['id'])}: {json.dumps(fields)}"))
            row = json.dumps({"id": made["id"], "response": made["response"]}, ensure_ascii=False)
            answers.append((order, row))
        handle.write("\n}\n" if metadata is not None else "")
    answers.sort()
    with responses.open("w", encoding="utf-8") as handle:
        handle.writelines(row + "\n" for _, row in answers)
    size = path.stat().st_size + responses.stat().st_size
    if metadata is not None:
        metadata_rows.sort()
        metadata.write_text("{\n" + ",\n".join(row for _, row in metadata_rows) + "\n}\n", encoding="utf-8")
        size += metadata.stat().st_size
    return size


def write_knowledge(path: Path, corpus: Path, n_records: int, seed: int, queries: Path | None = None) -> int:
    """The records as knowledge records at ``path`` (the response is the knowledge) and a corpus of 200 reference
    paragraphs at ``corpus``; with ``queries``, the knowledge one text per line at ``path`` (CONNER's layout) and
    the ``{id, query}`` records it answers, line for line, at ``queries``. Returns the records' size in bytes."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        asked = queries.open("w", encoding="utf-8") if queries is not None else None
        for number in range(n_records):
            made = record(number, rng)
            if asked is None:
                knowledge = {"id": made["id"], "query": made["question"], "knowledge": made["response"]}
                handle.write(json.dumps(knowledge, ensure_ascii=False) + "\n")
            else:
                handle.write(" ".join(made["response"].split()) + "\n")
                asked.write(json.dumps({"id": made["id"], "query": made["question"]}, ensure_ascii=False) + "\n")
        if asked is not None:
            asked.close()
    passages = random.Random(seed + 1)
    with corpus.open("w", encoding="utf-8") as handle:
        for number in range(200):
            made = record(number, passages)
            handle.write(json.dumps({"id": f"p{number}", "text": made["references"][0]}) + "\n")
    return path.stat().st_size + (queries.stat().st_size if queries is not None else 0)


def system_command(system: str, n_records: int, folder: Path, args: argparse.Namespace) -> tuple[list[str], int]:
    """The inputs of ``system`` for ``n_records`` written to ``folder``, the command that runs it, and the input
    size in bytes."""
    source = folder / f"{system}_records_{n_records}.jsonl"
    output = folder / f"{system}_results_{n_records}.jsonl"
    common = ["-o", str(output), "--overwrite", *shlex.split(args.extra_args)]
    if system == "ground":
        responses = folder / f"ground_responses_{n_records}.jsonl"
        metadata = folder / f"ground_metadata_{n_records}.json" if args.keyed else None
        source = source.with_suffix(".json") if args.keyed else source
        size = write_grounding(source, responses, n_records, args.seed, metadata)
        command = [
            "ground", "score", str(source), "--responses", str(responses),
            *(["--metadata", str(metadata)] if metadata is not None else []), "--extractor", args.extractor,
            "--presence", args.presence or f"nli:{args.checker}", *common,
        ]  # fmt: skip
    elif system == "knowledge":
        corpus = folder / "knowledge_corpus.jsonl"
        queries = folder / f"knowledge_queries_{n_records}.jsonl" if args.knowledge_lines else None
        source = source.with_suffix(".txt") if args.knowledge_lines else source
        size = write_knowledge(source, corpus, n_records, args.seed, queries)
        command = [
            "knowledge", "score", str(source), *(["--queries", str(queries)] if queries is not None else []),
            "--corpus", str(corpus), "--checker", args.checker, "--relevance-model", "none",
            "--coherence-model", "none", "--lm", "none", *common,
        ]  # fmt: skip
    else:
        size = write_records(source, n_records, args.seed)
        command = ["check", str(source), "--checker", args.checker, "--extractor", args.extractor, *common]
    return [sys.executable, "-m", "factscope", *command], size


def resident_mb(pid: int) -> float | None:
    """The process's current resident set (VmRSS) in MB, or None where /proc does not say."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * KIB / MB
    except (OSError, ValueError):
        pass
    return None


def peak_mb(usage: Any) -> float:
    """``ru_maxrss`` in MB (the kernel gives KiB on Linux, bytes on macOS)."""
    scale = 1 if sys.platform == "darwin" else KIB
    return float(usage.ru_maxrss * scale / MB)


def run_measured(command: list[str], log: Path, env: dict[str, str], sample_seconds: float) -> dict[str, Any]:
    """Run ``command`` to its end; its exit code, wall seconds, peak RSS and sampled RSS over time."""
    timeline: list[list[float]] = []
    with log.open("w", encoding="utf-8") as handle:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, env=env)
        next_sample = started
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            now = time.perf_counter()
            if pid == process.pid:
                break
            if now >= next_sample:
                rss = resident_mb(process.pid)
                if rss is not None:
                    timeline.append([round(now - started, 1), round(rss, 1)])
                next_sample = now + sample_seconds
            time.sleep(0.05)
    process.returncode = os.waitstatus_to_exitcode(status)
    return {
        "exit_code": process.returncode,
        "wall_seconds": round(now - started, 2),
        "peak_rss_mb": round(peak_mb(usage), 1),
        "rss_timeline": timeline,
    }


def output_rows(path: Path) -> tuple[int, int]:
    """Rows of the results file and distinct ids among them."""
    rows, ids = 0, set()
    if path.exists():
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    rows += 1
                    ids.add(json.loads(line).get("id"))
    return rows, len(ids)


def build_tiny_checker(folder: Path) -> Path:
    """A randomly initialised 2-layer BERT NLI classifier (hidden size 32) on the packaged MiniLM's tokenizer,
    saved to ``folder``: a real model on the real checking path that costs almost nothing, so a run's memory,
    not a model's speed, is what is measured. Its labels mean nothing."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from factscope.hf.embedded import minilm_path

    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_path()))
    tokenizer.save_pretrained(folder)
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=512, num_labels=3, id2label=labels,
        label2id={name: index for index, name in labels.items()},
    )  # fmt: skip
    BertForSequenceClassification(config).save_pretrained(folder)
    return folder


def build_tiny_encoder(folder: Path) -> Path:
    """A randomly initialised 2-layer BERT (hidden size 32) with mean pooling on the packaged MiniLM's tokenizer,
    saved to ``folder`` as a sentence-transformers model: ``ground score --presence bi:FOLDER`` at little model
    cost. Its embeddings mean nothing."""
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import AutoTokenizer, BertConfig, BertModel

    from factscope.hf.embedded import minilm_path

    torch.manual_seed(0)
    base = folder / "base"
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_path()))
    tokenizer.save_pretrained(base)
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=512,
    )  # fmt: skip
    BertModel(config).save_pretrained(base)
    transformer = models.Transformer(str(base))
    pooling = models.Pooling(transformer.get_word_embedding_dimension())
    SentenceTransformer(modules=[transformer, pooling]).save(str(folder / "encoder"))
    return folder / "encoder"


def measure_size(n_records: int, folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Generate ``n_records`` records, run the system on them in a fresh process and return that process's
    figures."""
    command, size = system_command(args.system, n_records, folder, args)
    output = Path(command[command.index("-o") + 1])
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    log = folder / f"{args.system}_{n_records}.log"
    print(f"{n_records} records ({size / MB:.1f} MB): {shlex.join(command)}", flush=True)
    measured = run_measured(command, log, env, args.sample_seconds)
    if measured["exit_code"] != 0:
        tail = log.read_text(encoding="utf-8")[-3000:]
        raise SystemExit(
            f"factscope {args.system} exited with {measured['exit_code']} on {n_records} records:\n{tail}"
        )
    rows, distinct = output_rows(output)
    return {
        "records": n_records,
        "input_mb": round(size / MB, 2),
        "bytes_per_record": round(size / n_records),
        **measured,
        "records_per_second": round(n_records / measured["wall_seconds"], 2),
        "output_rows": rows,
        "distinct_ids": distinct,
        "every_record_once": rows == distinct == n_records,
    }


def summarise(sizes: list[dict[str, Any]], limit_mb: float) -> dict[str, Any]:
    """Peak RSS difference between the largest and the smallest size, its slope, and the marginal speed."""
    smallest, largest = sizes[0], sizes[-1]
    difference = largest["peak_rss_mb"] - smallest["peak_rss_mb"]
    more_records = largest["records"] - smallest["records"]
    more_seconds = largest["wall_seconds"] - smallest["wall_seconds"]
    return {
        "peak_rss_difference_mb": round(difference, 1),
        "mb_per_1000_records": round(1000 * difference / more_records, 3) if more_records else None,
        "limit_mb": limit_mb,
        "under_limit": difference < limit_mb,
        "marginal_records_per_second": round(more_records / more_seconds, 2) if more_seconds > 0 else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--records", type=int, nargs="+", default=[10000, 100000],
        help="record counts, one run each (default: 10000 100000)",
    )  # fmt: skip
    parser.add_argument(
        "--system", choices=("check", "ground", "knowledge"), default="check",
        help="the command measured: check, ground score or knowledge score (default check)",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="smoke run on 200 and 2000 records")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated records (default 0)")
    parser.add_argument(
        "--checker", default="similarity", help="factscope check --checker (default similarity)"
    )
    parser.add_argument("--extractor", default="rules", help="factscope check --extractor (default rules)")
    parser.add_argument(
        "--tiny-checker",
        action="store_true",
        help="check with a tiny random 2-layer BERT NLI model built in the work folder (nli:FOLDER) instead of "
        "--checker: the whole checking path at little cost, for runs of 100,000 records on a few cores",
    )
    parser.add_argument(
        "--presence", help="ground score --presence (default nli:CHECKER, the checker of --checker)"
    )
    parser.add_argument(
        "--tiny-encoder",
        action="store_true",
        help="with --system ground: judge presence with a tiny random sentence-transformers model built in the "
        "work folder (--presence bi:FOLDER)",
    )
    parser.add_argument(
        "--keyed",
        action="store_true",
        help="with --system ground: write the dataset in the Truly Ground layout (a JSON object keyed by question "
        "id) with a metadata file, both joined by id (--metadata, --responses)",
    )
    parser.add_argument(
        "--knowledge-lines",
        action="store_true",
        help="with --system knowledge: write the knowledge one text per line and its queries as JSONL, paired "
        "line for line (--queries)",
    )
    parser.add_argument(
        "--extra-args",
        default="",
        help='further options for factscope check, one string: --extra-args="--batch-size 64"',
    )
    parser.add_argument(
        "--limit-mb", type=float, default=100.0, help="allowed peak RSS difference, MB (default 100)"
    )
    parser.add_argument(
        "--sample-seconds", type=float, default=5.0, help="interval of the RSS samples over a run (default 5)"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        help="keep the records, results and logs here (default: a temporary folder, removed)",
    )
    add_out_option(parser)
    args = parser.parse_args()
    counts = sorted(set(QUICK_SIZES if args.quick else args.records))
    if counts[0] < 1 or len(counts) < 2:
        parser.error("--records needs at least two different positive counts")
    with tempfile.TemporaryDirectory(prefix="streaming_memory_") as temporary:
        folder = args.workdir or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        if args.tiny_checker:
            args.checker = f"nli:{build_tiny_checker(folder / 'tiny-nli')}"
        if args.tiny_encoder:
            args.presence = f"bi:{build_tiny_encoder(folder / 'tiny-bi')}"
        sizes = [measure_size(n, folder, args) for n in counts]
    print(
        f"{'records':>9} {'input MB':>9} {'peak RSS MB':>12} {'seconds':>9} {'records/s':>10} "
        f"{'rows once':>10}"
    )
    for size in sizes:
        print(
            f"{size['records']:>9} {size['input_mb']:>9.1f} {size['peak_rss_mb']:>12.1f} "
            f"{size['wall_seconds']:>9.1f} {size['records_per_second']:>10.1f} "
            f"{size['every_record_once']!s:>10}"
        )
    summary = summarise(sizes, args.limit_mb)
    verdict = "under" if summary["under_limit"] else "NOT under"
    print(
        f"peak RSS difference {summary['peak_rss_difference_mb']:.1f} MB "
        f"between {counts[0]} and {counts[-1]} records: "
        f"{verdict} the {args.limit_mb:g} MB limit"
    )
    checker = "tiny random 2-layer BERT NLI (nli:FOLDER)" if args.tiny_checker else args.checker
    presence = "tiny random 2-layer BERT bi-encoder (bi:FOLDER)" if args.tiny_encoder else args.presence
    layout = {"ground": "keyed" if args.keyed else "jsonl", "knowledge": "lines" if args.knowledge_lines else "jsonl"}
    figures = {
        "system": args.system, "layout": layout.get(args.system, "jsonl"), "checker": checker,
        "presence": presence if args.system == "ground" else None, "extractor": args.extractor, "sizes": sizes,
        **summary,
    }  # fmt: skip
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
