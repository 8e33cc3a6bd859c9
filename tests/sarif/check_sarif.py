#!/usr/bin/env python3
"""`skillc check --format sarif` against the SARIF 2.1.0 object model, with `jsonschema`.

The official schema (sarif-schema-2.1.0.json, OASIS) is published on GitHub and oasis-open.org,
which this project's machines cannot reach, and no registry package here carries it. So this
test writes down, from the specification, the objects skillc emits: for each, the property
names SARIF 2.1.0 defines (no other may appear: the official schema closes these objects with
`additionalProperties: false`), the required ones, the enums and the minimums. Every fixture
workspace's log must validate, warnings and errors alike.
Usage: check_sarif.py SKILLC FIXTURES_DIR
"""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema


def closed(properties, required=()):
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


ANY = {}
PROPERTY_BAG = {"type": "object"}
MESSAGE = {"type": "object", "properties": {"text": {"type": "string"}, "markdown": {"type": "string"},
                                            "id": {"type": "string"}, "arguments": {"type": "array"},
                                            "properties": PROPERTY_BAG},
           "anyOf": [{"required": ["text"]}, {"required": ["id"]}], "additionalProperties": False}
REGION = closed({
    "startLine": {"type": "integer", "minimum": 1}, "startColumn": {"type": "integer", "minimum": 1},
    "endLine": {"type": "integer", "minimum": 1}, "endColumn": {"type": "integer", "minimum": 1},
    "charOffset": {"type": "integer", "minimum": -1}, "charLength": {"type": "integer", "minimum": 0},
    "byteOffset": {"type": "integer", "minimum": -1}, "byteLength": {"type": "integer", "minimum": 0},
    "snippet": ANY, "sourceLanguage": {"type": "string"}, "message": MESSAGE, "properties": PROPERTY_BAG})
ARTIFACT_LOCATION = closed({"uri": {"type": "string", "format": "uri-reference"}, "uriBaseId": {"type": "string"},
                            "index": {"type": "integer", "minimum": -1}, "description": MESSAGE,
                            "properties": PROPERTY_BAG})
PHYSICAL_LOCATION = {**closed({"address": ANY, "artifactLocation": ARTIFACT_LOCATION, "region": REGION,
                               "contextRegion": REGION, "properties": PROPERTY_BAG}),
                     "anyOf": [{"required": ["address"]}, {"required": ["artifactLocation"]}]}
LOCATION = closed({"id": {"type": "integer", "minimum": -1}, "physicalLocation": PHYSICAL_LOCATION,
                   "logicalLocations": {"type": "array"}, "message": MESSAGE, "annotations": {"type": "array"},
                   "relationships": {"type": "array"}, "properties": PROPERTY_BAG})
MULTIFORMAT = closed({"text": {"type": "string"}, "markdown": {"type": "string"}, "properties": PROPERTY_BAG},
                     ["text"])
RESULT_FIELDS = ["ruleId", "ruleIndex", "rule", "kind", "level", "message", "analysisTarget", "locations", "guid",
                 "correlationGuid", "occurrenceCount", "partialFingerprints", "fingerprints", "stacks", "codeFlows",
                 "graphs", "graphTraversals", "relatedLocations", "suppressions", "baselineState", "rank",
                 "attachments", "hostedViewerUri", "workItemUris", "provenance", "fixes", "taxa", "webRequest",
                 "webResponse", "properties"]
RESULT = closed({**{k: ANY for k in RESULT_FIELDS},
                 "ruleId": {"type": "string"}, "ruleIndex": {"type": "integer", "minimum": -1},
                 "kind": {"enum": ["notApplicable", "pass", "fail", "review", "open", "informational"]},
                 "level": {"enum": ["none", "note", "warning", "error"]}, "message": MESSAGE,
                 "locations": {"type": "array", "items": LOCATION, "uniqueItems": True}}, ["message"])
RULE_FIELDS = ["id", "deprecatedIds", "guid", "deprecatedGuids", "name", "deprecatedNames", "shortDescription",
               "fullDescription", "messageStrings", "defaultConfiguration", "helpUri", "help", "relationships",
               "properties"]
RULE = closed({**{k: ANY for k in RULE_FIELDS}, "id": {"type": "string"}, "name": {"type": "string"},
               "shortDescription": MULTIFORMAT, "fullDescription": MULTIFORMAT, "help": MULTIFORMAT,
               "helpUri": {"type": "string", "format": "uri"}}, ["id"])
DRIVER_FIELDS = ["guid", "name", "organization", "product", "productSuite", "shortDescription", "fullDescription",
                 "fullName", "version", "semanticVersion", "dottedQuadFileVersion", "releaseDateUtc", "downloadUri",
                 "informationUri", "globalMessageStrings", "notifications", "rules", "taxa", "locations",
                 "language", "contents", "isComprehensive", "localizedDataSemanticVersion",
                 "minimumRequiredLocalizedDataSemanticVersion", "associatedComponent", "translationMetadata",
                 "supportedTaxonomies", "properties"]
DRIVER = closed({**{k: ANY for k in DRIVER_FIELDS}, "name": {"type": "string"}, "version": {"type": "string"},
                 "informationUri": {"type": "string", "format": "uri"},
                 "rules": {"type": "array", "items": RULE, "uniqueItems": True}}, ["name"])
RUN_FIELDS = ["tool", "invocations", "conversion", "language", "versionControlProvenance", "originalUriBaseIds",
              "artifacts", "logicalLocations", "graphs", "results", "automationDetails", "runAggregates",
              "baselineGuid", "redactionTokens", "defaultEncoding", "defaultSourceLanguage", "newlineSequences",
              "columnKind", "externalPropertyFileReferences", "threadFlowLocations", "taxonomies", "addresses",
              "translations", "policies", "webRequests", "webResponses", "specialLocations", "properties"]
RUN = closed({**{k: ANY for k in RUN_FIELDS},
              "tool": closed({"driver": DRIVER, "extensions": {"type": "array"}, "properties": PROPERTY_BAG},
                             ["driver"]),
              "results": {"type": "array", "items": RESULT},
              "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]}}, ["tool"])
SARIF_LOG = closed({"$schema": {"type": "string", "format": "uri"}, "version": {"const": "2.1.0"},
                    "runs": {"type": ["array", "null"], "items": RUN}, "inlineExternalProperties": {"type": "array"},
                    "properties": PROPERTY_BAG}, ["version", "runs"])


def main():
    skillc, fixtures = sys.argv[1], Path(sys.argv[2])
    validator = jsonschema.Draft7Validator(SARIF_LOG, format_checker=jsonschema.FormatChecker())
    checked = results = 0
    failed = []
    for ws in sorted(p for p in fixtures.glob("*/workspace") if p.is_dir()):
        out = subprocess.run([skillc, "check", str(ws), "--format", "sarif"], capture_output=True, check=False)
        log = json.loads(out.stdout)
        errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
        checked += 1
        results += len(log["runs"][0]["results"])
        for e in errors[:3]:
            failed.append(f"{ws.parent.name}: {'/'.join(map(str, e.path))}: {e.message}")
    for f in failed:
        print("FAIL", f)
    print(f"{checked} SARIF logs with {results} results checked, {len(failed)} problems")
    return 1 if failed or checked < 20 or results < 20 else 0


if __name__ == "__main__":
    sys.exit(main())
