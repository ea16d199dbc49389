"""The published folder's Croissant metadata (`croissant.json`, issue 35.3): the dataset, each of
its tables as a file and a record set whose fields are the table's columns, and the
responsible-AI fields (Croissant RAI 1.0) stating how the ratings were collected.

Plain data in, a JSON-LD document out: the study's protocol (`publish.Protocol`), the tables as
published (name -> (file name, frame)) and each file's bytes (for its checksum). No response
text goes into it: only names, types and the protocol's own words.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from annotate.domain.exports.publish import Protocol

CONFORMS_TO = ["http://mlcommons.org/croissant/1.0", "http://mlcommons.org/croissant/RAI/1.0"]
CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "dct": "http://purl.org/dc/terms/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "equivalentProperty": "cr:equivalentProperty",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
"""Croissant 1.0's JSON-LD context (the specification's own, as `mlcroissant` writes it)."""
LICENSE_URLS = {
    "cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
    "cc-by-sa-4.0": "https://creativecommons.org/licenses/by-sa/4.0/",
    "cc-by-nc-4.0": "https://creativecommons.org/licenses/by-nc/4.0/",
    "cc0-1.0": "https://creativecommons.org/publicdomain/zero/1.0/",
    "mit": "https://opensource.org/licenses/MIT",
}
PARQUET = "application/x-parquet"


def _data_type(values: pd.Series) -> str:
    kind = values.dtype.kind
    if kind == "b" or str(values.dtype) == "boolean":
        return "sc:Boolean"
    if kind in "iu":
        return "sc:Integer"
    if kind == "f":
        return "sc:Float"
    return "sc:Text"


def _is_messages(values: pd.Series) -> bool:
    """A column of message lists (the conversational preference format)."""
    first = values.dropna().head(1).tolist()
    return bool(first) and isinstance(first[0], list | tuple)


def _field(table: str, file_name: str, column: str, values: pd.Series) -> dict[str, Any]:
    source = {"fileObject": {"@id": file_name}, "extract": {"column": column}}
    field: dict[str, Any] = {"@type": "cr:Field", "@id": f"{table}/{column}", "name": column}
    if not _is_messages(values):
        return field | {"dataType": _data_type(values), "source": source}
    return field | {
        "repeated": True,
        "subField": [
            {
                "@type": "cr:Field",
                "@id": f"{table}/{column}/{part}",
                "name": part,
                "dataType": "sc:Text",
                "source": source | {"transform": {"jsonPath": part}},
            }
            for part in ("role", "content")
        ],
    }


def _record_set(
    table: str, file_name: str, frame: pd.DataFrame, notes: Mapping[str, str]
) -> dict[str, Any]:
    fields = []
    for column in frame.columns:
        field = _field(table, file_name, str(column), frame[column])
        if str(column) in notes:
            field["description"] = notes[str(column)]
        fields.append(field)
    return {"@type": "cr:RecordSet", "@id": table, "name": table, "field": fields}


def _file_object(file_name: str, data: bytes) -> dict[str, Any]:
    return {
        "@type": "cr:FileObject",
        "@id": file_name,
        "name": file_name,
        "contentUrl": file_name,
        "encodingFormat": PARQUET,
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def rai_fields(protocol: Protocol) -> dict[str, Any]:
    """The responsible-AI fields: how the data were collected and annotated, by whom, what is
    and is not in them, and what they are for."""
    people = protocol.n_annotators - protocol.n_simulated
    pool = f"{protocol.n_annotators} annotator accounts ({people} people"
    pool += f", {protocol.n_simulated} simulated: made-up ratings)" if protocol.n_simulated else ")"
    return {
        "rai:dataCollection": "Human ratings of the pairs of a preference benchmark collected "
        "with prb-annotate: each annotator scored both responses of a pair, shown blinded as A "
        "and B, on every question of the study's questionnaire.",
        "rai:dataCollectionType": ["Manual Human Curated", "Experiments"],
        "rai:dataAnnotationProtocol": [
            f"Scale {protocol.scale_min} to {protocol.scale_max}; {protocol.overlap} "
            "annotator(s) wanted per pair; the side of the benchmark's chosen response drawn "
            "per annotator and pair; the labels (chosen, rejected) never shown."
        ],
        "rai:dataAnnotationPlatform": ["prb-annotate"],
        "rai:annotationsPerItem": str(protocol.overlap),
        "rai:annotatorDemographics": [
            f"{pool}; no demographic data are published. Annotators are named by a keyed "
            "pseudonym per study."
        ],
        "rai:personalSensitiveInformation": [
            "Annotators by pseudonym only (not their account or platform id); free-text fields "
            "left out unless the admin disclosed them; times to the minute."
        ],
        "rai:dataPreprocessingProtocol": [
            "Gold pairs (quality-control items) are left out; pairs an admin excluded from the "
            "analysis are marked `excluded` in the ratings and left out of the preference table."
        ],
        "rai:dataAnnotationAnalysis": [
            "The validation report (report.json) beside this file: agreement, equivalence "
            "tests on general quality and the target question, human accuracy."
        ],
        "rai:dataUseCases": [
            "Validating a preference benchmark's labels; training or evaluating reward models "
            "on the pairs whose human majority agrees with the label (preference table)."
        ],
        "rai:dataBiases": [
            "The annotator pool is small and not sampled from a population; the benchmark's "
            "own pairs, personas and domains bound what the ratings cover."
        ],
        "rai:dataLimitations": [
            "A pair's verdict rests on few annotators; a pair nobody rated has no verdict."
        ],
        "rai:dataSocialImpact": "Helps check that a benchmark's labels reflect people's "
        "judgement before models are trained or ranked on them.",
        "rai:dataReleaseMaintenancePlan": "Published once per study by its researchers; a "
        "participant's erasure is recorded in the card and the folder published again.",
    }


def croissant_document(
    protocol: Protocol,
    tables: Mapping[str, tuple[str, pd.DataFrame]],
    files: Mapping[str, bytes],
    notes: Mapping[str, Mapping[str, str]],
    published: str,
) -> dict[str, Any]:
    """The Croissant JSON-LD of the published folder: `tables` maps each record set's name to
    its file and frame as published, `files` the file names to their bytes, `notes` a table's
    column -> what it holds, `published` the date (ISO) the folder is written."""
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": f"Human validation of {protocol.study}",
        "description": "Human ratings of a preference benchmark's pairs, the validation report "
        "computed from them, and the pairs in TRL's preference format with each pair's human "
        "verdict.",
        "license": LICENSE_URLS.get(protocol.license, protocol.license),
        "url": "https://huggingface.co/datasets",
        "version": "1.0.0",
        "datePublished": published,
        "citeAs": f"Human validation of {protocol.study}, collected with prb-annotate.",
        "keywords": ["human evaluation", "reward modeling", "preference"],
        "isLiveDataset": False,
        "distribution": [_file_object(name, files[name]) for name, _ in tables.values()],
        "recordSet": [
            _record_set(table, name, frame, notes.get(table, {}))
            for table, (name, frame) in tables.items()
        ],
        **rai_fields(protocol),
    }


def croissant_json(document: Mapping[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
