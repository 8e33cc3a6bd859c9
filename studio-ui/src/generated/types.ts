// Generated from the studio's Rust types by ts-rs (studio/src/contract.rs): do not edit.
// After changing a type the UI receives or sends: `bash scripts/check-ts-types.sh --write`.

/**
 * A toggle edit written: how many client files changed, and the number that undoes it.
 */
export type Applied = {
/**
 * Client files written.
 */
files: number,
/**
 * Give it to [`Session::undo_toggles`] to put those files back as they were.
 */
undo: number, };

/**
 * A skill beside the one it replaces.
 */
export type Beside = {
/**
 * The shared skill's name and SKILL.md.
 */
shared_name: string,
/**
 * Its SKILL.md.
 */
shared_file: string,
/**
 * `variant` (used where its conditions hold) or `client` (a client's own version).
 */
kind: "variant" | "client",
/**
 * A variant's conditions, in words (all must hold).
 */
when: Array<string>,
/**
 * What it changes from the shared text (`None`: one side is not a readable SKILL.md).
 */
change: DocChange | null, };

/**
 * What stands in the way of publishing.
 */
export type Blockers = {
/**
 * The build's errors (and those of the case files), each with its file and line.
 */
errors: Array<Diag>,
/**
 * Test cases that fail.
 */
failing_cases: Array<FailingCase>,
/**
 * Content-safety findings at high or critical: what an agent given the skills could be
 * made to do.
 */
findings: Array<Diag>, };

/**
 * A client's listing budget, from its documentation.
 */
export type Budget = {
/**
 * Characters of names and descriptions the listing holds.
 */
total: number,
/**
 * Characters one description keeps, if the client cuts each.
 */
per_description: number | null,
/**
 * Where the figures come from.
 */
source: string, };

/**
 * A bundle's markdown catalog (the one budgets are counted on) against its tier's budget.
 */
export type BudgetMeter = {
/**
 * Tokens of the catalog as previewed (consumer and context applied).
 */
tokens: number,
/**
 * Its characters.
 */
chars: number,
/**
 * The tier's `catalog_token_budget`, if it has one.
 */
budget: number | null,
/**
 * The budget level the build cut the catalog to (`''`: nothing was cut).
 */
level: string,
/**
 * What the build cut to meet the budget, in words.
 */
cut: string | null,
/**
 * What each client tool the workspace declares (`targets:`) lists of this catalog.
 */
targets: Array<TargetMeter>, };

/**
 * What a build did.
 */
export type BuildSummary = {
/**
 * Whether the artifact was written.
 */
written: boolean,
/**
 * Number of errors (none written when there is one).
 */
errors: number,
/**
 * Number of warnings.
 */
warnings: number,
/**
 * The errors that stopped the build (warnings are counted only, as in [`Overview`]).
 */
diagnostics: Array<Diag>,
/**
 * Content-safety findings at high or critical that are not errors: Review holds
 * publishing on them as on errors.
 */
findings: Array<Diag>,
/**
 * Bundles built.
 */
bundles: number,
/**
 * Bytes of the artifact.
 */
bytes: number,
/**
 * Its release label: the workspace's commit (`-dirty` with changes), when it is in git.
 */
release: string | null, };

/**
 * A bulk edit before it is written: the toggles that change (cells already so, and other
 * clients' own skills, are left out), per client, for the person to confirm.
 */
export type BulkPlan = {
/**
 * The toggles to set.
 */
changes: Array<ToggleChange>,
/**
 * How many of them each client gets, in the matrix's order.
 */
clients: Array<[string, number]>,
/**
 * Cells of the selection that are that way already.
 */
unchanged: number, };

/**
 * Changes of one bundle.
 */
export type BundleDiff = {
/**
 * Client (`''` for global).
 */
client: string,
/**
 * Locale of the bundle.
 */
locale: string,
/**
 * Tier of the bundle.
 */
tier: string,
/**
 * Skills now in the bundle.
 */
added: Array<string>,
/**
 * Skills no longer in the bundle.
 */
removed: Array<string>,
/**
 * Skills whose content changed, with the fields that did.
 */
changed: Array<ChangedSkill>,
/**
 * Catalogs whose text changed: `<format>` or `<format>@<consumer>`.
 */
catalogs: Array<string>, };

/**
 * The figures of one bundle.
 */
export type BundleEval = {
/**
 * Client (`None`: the global bundle).
 */
client: string | null,
/**
 * Its locale.
 */
locale: string,
/**
 * Its tier.
 */
tier: string,
/**
 * Messages with a skill to reach.
 */
positives: number,
/**
 * Messages expecting no skill.
 */
negatives: number,
/**
 * The selector's figures, when one ran.
 */
selector: SelectorEval | null,
/**
 * The candidates a route gives at most (`top_k`): the `k` of `recall_at_k`.
 */
k: number,
/**
 * Trigger examples scored.
 */
examples: number,
/**
 * Routing cases of this bundle run.
 */
cases: number,
/**
 * Messages whose skill comes first, as a share of those with a skill to reach.
 */
recall_at_1: number,
/**
 * Messages whose skill is among the first `k` reached.
 */
recall_at_k: number,
/**
 * Mean reciprocal rank of the skill (0 when not among the first `k`).
 */
mrr: number,
/**
 * Share of the messages expecting no skill that reached one.
 */
false_fire: number,
/**
 * The messages that reached another skill first, or none, grouped, most first.
 */
confusions: Array<Confusion>, };

/**
 * A candidate skill of a route, as `skillc route --format json` prints it.
 */
export type Candidate = {
/**
 * Catalog id (`SK3`).
 */
id: string,
/**
 * Selectable name.
 */
name: string,
/**
 * Qualified name.
 */
qualified_name: string,
/**
 * Score in [0, 1].
 */
score: number,
/**
 * The message's words it holds.
 */
matched: Array<string>, };

/**
 * One case of a `tests/*.yaml` file.
 */
export type Case = {
/**
 * What it checks, in words.
 */
name: string,
/**
 * Its file, relative to the workspace.
 */
file: string,
/**
 * The line of its `name`.
 */
line: number,
/**
 * The bundle and the request.
 */
request: CaseRequest,
/**
 * What must hold.
 */
expect: Expect, };

/**
 * Which bundle, in which context, with which skills selected.
 */
export type CaseRequest = {
/**
 * Client (none: the global bundle).
 */
client: string | null,
/**
 * Locale (none: the default).
 */
locale: string | null,
/**
 * Tier (none: the default).
 */
tier: string | null,
/**
 * Consumer whose filters apply.
 */
consumer: string | null,
/**
 * Run-time context: `page_url`, `turn`, …
 */
context: Array<[string, string]>,
/**
 * Selected skills (names or SK ids); the prompt is assembled when there are any, or when
 * an expectation is about the prompt.
 */
select: Array<string>,
/**
 * A visitor's message to route (`skillc route`), for `routes_to` and `routes_not_to`.
 */
message: string | null,
/**
 * The visitor's messages before it, oldest first: each text and how many seconds before
 * the message it was sent (routing's stage 0 may join the message to them).
 */
history: Array<[string, number]>, };

/**
 * A catalog.
 */
export type Catalog = {
/**
 * Client (`null` for global).
 */
client: string | null,
/**
 * Locale of the bundle.
 */
locale: string,
/**
 * Tier of the bundle.
 */
tier: string,
/**
 * The consumer whose filter applies, if any.
 */
consumer: string | null,
/**
 * Its skills.
 */
skills: Array<CatalogSkill>,
/**
 * The rendered text.
 */
text: string,
/**
 * Tokens of the text (sum of the stored counts of its parts).
 */
tokens: number, };

/**
 * Where an outside skill comes from: the repository and the commit `skillc.lock` pinned.
 */
export type CatalogExternal = {
/**
 * The workspace folder its skills appear in.
 */
into: string,
/**
 * The repository.
 */
git: string,
/**
 * The tag, branch or commit asked for.
 */
rev: string,
/**
 * The commit read.
 */
commit: string,
/**
 * Whether its code is trusted (else prompt-only).
 */
trusted: boolean, };

/**
 * One catalog line.
 */
export type CatalogSkill = {
/**
 * `SK1`, `SK2`, … in catalog order.
 */
id: string,
/**
 * Selectable name.
 */
name: string,
/**
 * `<namespace>.<name>`.
 */
qualified_name: string,
/**
 * Category id (`''` when none).
 */
category: string,
/**
 * Description (localized, whole; what the catalog text shows of it depends on the level).
 */
description: string,
/**
 * The first `max_triggers` triggers.
 */
triggers: Array<string>,
/**
 * The Claude Code plugin it comes from, when it is a plugin's skill.
 */
plugin?: Plugin,
/**
 * The outside repository it comes from (`workspace.yaml` `external:`), if any.
 */
external?: CatalogExternal, };

/**
 * One line a rename changes.
 */
export type Change = {
/**
 * The file, relative to the workspace, with `/`.
 */
file: string,
/**
 * The line (1-based).
 */
line: number,
/**
 * The line as it is (without its line ending).
 */
old: string,
/**
 * The line as the rename leaves it.
 */
new: string, };

/**
 * A changed skill.
 */
export type ChangedSkill = {
/**
 * Qualified name.
 */
name: string,
/**
 * Fields that changed (`body`, `description`, `resolved`, record fields, …).
 */
fields: Array<string>, };

/**
 * What the client page shows.
 */
export type ClientPage = {
/**
 * The client id.
 */
client: string,
/**
 * Its client.yaml, relative to the workspace.
 */
file: string,
/**
 * The locales it is built for (`None`: all of the workspace's).
 */
locales: Array<string> | null,
/**
 * Its tiers (`None`: all).
 */
tiers: Array<string> | null,
/**
 * The workspace's locales and tiers, to choose from.
 */
all_locales: Array<string>,
/**
 * The workspace's tiers.
 */
all_tiers: Array<string>,
/**
 * Its flags, as written.
 */
flags: JsonValue,
/**
 * Its variables.
 */
vars: Array<ClientVar>,
/**
 * Its toggles: skill and on/off.
 */
toggles: Array<[string, boolean]>,
/**
 * Its own skills: name and SKILL.md.
 */
own_skills: Array<[string, string]>,
/**
 * The variants chosen by flags, and which apply to this client.
 */
variants: Array<FlagVariant>, };

/**
 * What one client's visitors get, text by text.
 */
export type ClientShare = {
/**
 * Client id.
 */
client: string,
/**
 * Each text the client gets, with where.
 */
shares: Array<Share>, };

/**
 * A client's toggle of the skill.
 */
export type ClientToggle = {
/**
 * Client id.
 */
client: string,
/**
 * On or off.
 */
enabled: boolean, };

/**
 * One variable of a client.
 */
export type ClientVar = {
/**
 * `_global` or a skill's name.
 */
section: string,
/**
 * The variable.
 */
name: string,
/**
 * Its value; `None` for a secret (some skill declares it `secret: true`), never shown.
 */
value: string | null, };

/**
 * The four kinds of composition, one way.
 */
export type Composition = {
/**
 * `dependencies`.
 */
dependencies: Array<Link>,
/**
 * `augments`.
 */
augments: Array<Link>,
/**
 * `blocks`.
 */
blocks: Array<Link>,
/**
 * `imports`.
 */
imports: Array<Link>, };

/**
 * Messages that should reach one skill and reached another first (or none).
 */
export type Confusion = {
/**
 * The skill they should reach.
 */
expected: string,
/**
 * The skill they reached first (`None`: no candidate).
 */
got: string | null,
/**
 * How many messages did so.
 */
count: number,
/**
 * Up to three of them.
 */
examples: Array<string>, };

/**
 * One consumer: a part of the agent with its own catalog filter.
 */
export type ConsumerInfo = {
/**
 * Its name (dotted, such as `answer.generator.strong`).
 */
name: string,
/**
 * Only skills matching these patterns are in its catalog (when any is written).
 */
enabled: Array<string>,
/**
 * Skills matching these patterns are left out of its catalog.
 */
disabled: Array<string>, };

/**
 * Where a skill without trigger examples is found: its description routed as a message (it
 * has no example to leave out, so this says whether another skill is nearer its own words).
 */
export type Described = {
/**
 * The skill.
 */
skill: string,
/**
 * Its description, the message routed.
 */
description: string,
/**
 * The first candidate (`None`: no skill reaches the cut).
 */
first: string | null, };

/**
 * A diagnostic as the UI shows it.
 */
export type Diag = {
/**
 * `error` or `warning`.
 */
severity: "error" | "warning",
/**
 * Stable code.
 */
code: string,
/**
 * File relative to the workspace.
 */
file: string,
/**
 * 1-based line.
 */
line: number,
/**
 * 1-based column.
 */
column: number,
/**
 * What is wrong.
 */
message: string,
/**
 * Help, if any.
 */
help: string | null,
/**
 * A content-safety finding's level (`low` … `critical`); none for other codes.
 */
safety: "low" | "medium" | "high" | "critical" | null, };

/**
 * The whole comparison.
 */
export type Diff = {
/**
 * Bundles only in the new artifact.
 */
added_bundles: Array<string>,
/**
 * Bundles only in the old artifact.
 */
removed_bundles: Array<string>,
/**
 * Bundles present in both that changed.
 */
bundles: Array<BundleDiff>,
/**
 * Bundles present in both that did not change.
 */
unchanged: number, };

/**
 * What changed in a SKILL.md (or a translation of one).
 */
export type DocChange = {
/**
 * Fields added, removed or changed, in the order of the newer text.
 */
fields: Array<FieldChange>,
/**
 * Paragraphs of the body that are gone.
 */
removed: Array<string>,
/**
 * Paragraphs of the body that are new.
 */
added: Array<string>, };

/**
 * A draft's check: its diagnostics, and where its skill's trigger examples go first.
 */
export type DraftCheck = {
/**
 * The draft file's diagnostics, with the rest of the workspace as it is on disk.
 */
diagnostics: Array<Diag>,
/**
 * Each trigger example of the draft's skill, routed leave-one-out in its catalog.
 */
examples: Array<ExampleRoute>, };

/**
 * Where one trigger example of a skill goes first, leave-one-out, in the skill's own
 * catalog: what the studio's editor shows while a description or an example is typed.
 */
export type ExampleRoute = {
/**
 * The example.
 */
example: string,
/**
 * Its line in the file (1-based; 0 when unknown).
 */
line: number,
/**
 * The skill it reaches first, if any scores `min_score`.
 */
first: string | null,
/**
 * Whether that is its own skill.
 */
own: boolean,
/**
 * When it reaches another skill: the words that pulled it there, and where its own
 * skill stands, in words.
 */
pulled: Array<string>,
/**
 * Where its own skill stands when another comes first.
 */
standing: string | null, };

/**
 * What the catalog and the prompt must hold.
 */
export type Expect = {
/**
 * Selectable names the catalog shows.
 */
catalog_includes: Array<string>,
/**
 * Selectable names the catalog does not show.
 */
catalog_excludes: Array<string>,
/**
 * Skills in the prompt (by selectable name or by the skill whose content is used).
 */
prompt_includes: Array<string>,
/**
 * Skills not in the prompt, under either name.
 */
prompt_excludes: Array<string>,
/**
 * Skills left out, each with the start of its reason (`blocked`, `excluded:x`, …).
 */
removed: Array<[string, string]>,
/**
 * Texts the prompt holds (the catalog, when no prompt is assembled).
 */
text_contains: Array<string>,
/**
 * Most tokens of the prompt (the catalog, when no prompt is assembled).
 */
max_tokens: number | null,
/**
 * Skills the message must reach, each among its candidates (`Some([])`: no candidate at
 * all).
 */
routes_to: Array<string> | null,
/**
 * `routes_to` within the first this many candidates.
 */
within: number | null,
/**
 * Skills the message must not reach.
 */
routes_not_to: Array<string>, };

/**
 * One `external:` entry of `workspace.yaml`.
 */
export type ExternalSource = {
/**
 * The repository, as `git` takes it (a URL, `file://…`, a path), without the user name
 * and password a URL may hold (`without_userinfo`): what is stored and shown.
 */
git: string,
/**
 * A tag, a branch or a commit.
 */
rev: string,
/**
 * The folder of the repository to bring in (`""`: all of it).
 */
path: string,
/**
 * The workspace folder its skills appear in (its identity: one entry per folder).
 */
into: string,
/**
 * Whether its code is trusted (by default it is prompt-only, as an imported package).
 */
trust: boolean,
/**
 * The commit its skills were read at (set by the load, from `skillc.lock`).
 */
commit: string | null, };

/**
 * A test case that fails.
 */
export type FailingCase = {
/**
 * The case's name.
 */
name: string,
/**
 * Its file, relative to the workspace.
 */
file: string,
/**
 * Its line in the file.
 */
line: number,
/**
 * What did not hold.
 */
failures: Array<string>, };

/**
 * One frontmatter field before and after (`None`: absent on that side).
 */
export type FieldChange = {
/**
 * The field.
 */
key: string,
/**
 * Its value before, as a person reads it.
 */
before: string | null,
/**
 * Its value after.
 */
after: string | null, };

/**
 * One frontmatter field.
 */
export type FieldInfo = {
/**
 * The key as written.
 */
name: string,
/**
 * The shape of its value.
 */
shape: Shape,
/**
 * Part of the agentskills.io core (portable to every tool).
 */
portable: boolean,
/**
 * Other tools use this name with other shapes: a value of another shape is set aside
 * with a warning (and kept under `metadata` on export) rather than failing the build.
 */
shared: boolean,
/**
 * What it is for, in one sentence for a content person (the studio's form shows it).
 */
about: string, };

/**
 * One changed file.
 */
export type FileChange = {
/**
 * Path inside the workspace.
 */
path: string,
/**
 * `added`, `changed` or `removed`.
 */
status: "added" | "changed" | "removed",
/**
 * Unified diff against HEAD (empty past [`MAX_DIFFS`] files or for binary files).
 */
diff: string,
/**
 * For a SKILL.md or a translation, the change as a document: fields from what to what,
 * paragraphs gone and new.
 */
document: DocChange | null, };

/**
 * A file as read, with the hash that a later save compares against.
 */
export type FileState = {
/**
 * Relative path.
 */
file: string,
/**
 * The file's text as read.
 */
text: string,
/**
 * sha256 of the bytes on disk.
 */
hash: string, };

/**
 * A variant some skill chooses by this workspace's flags, and whether it applies here.
 */
export type FlagVariant = {
/**
 * The variant's name.
 */
name: string,
/**
 * Its SKILL.md.
 */
file: string,
/**
 * The skill it replaces.
 */
variant_of: string,
/**
 * Its `when` conditions in words.
 */
when: Array<string>,
/**
 * Whether its conditions hold for this client's flags.
 */
applies: boolean, };

/**
 * What the working tree does to the bundles, against HEAD.
 */
export type Impact = {
/**
 * The changes, each with the bundles where it happens (an edit of a global skill is one
 * change in every bundle that holds it).
 */
groups: Array<ImpactGroup>,
/**
 * Bundles that change, and that do not.
 */
changed: number, unchanged: number,
/**
 * Why the impact could not be computed (a side that does not build), if so.
 */
problem: string | null,
/**
 * Warnings the change brings: in the new build and not in the last commit's (compared
 * by code, file and message, as lines move).
 */
new_warnings: Array<NewWarning>, };

/**
 * One change, in words, and the bundles it happens in.
 */
export type ImpactGroup = {
/**
 * E.g. "pricing-uk's description changed; the catalog grows by 14 tokens".
 */
change: string,
/**
 * How many bundles it happens in.
 */
count: number,
/**
 * Per client (`global` for the global bundles), how many of them, in the diff's order.
 */
clients: Array<[string, number]>,
/**
 * The first of them, e.g. "hyperline.co, en, standard" (at most [`MAX_NAMED`]).
 */
bundles: Array<string>, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

/**
 * A skill named by another, with the file to open (none when no skill has that name).
 */
export type Link = {
/**
 * The name as written.
 */
name: string,
/**
 * Its SKILL.md, when it exists.
 */
file: string | null,
/**
 * The client it belongs to (empty for a global skill).
 */
client: string, };

/**
 * A place both sides changed differently: the output holds both between conflict markers.
 */
export type MergeConflict = {
/**
 * What it is, in words: `` field `description` ``, `` `routing.min_score` ``, `the body`.
 */
place: string,
/**
 * The output line of its opening marker (1-based).
 */
line: number,
/**
 * The text both started from (empty when both sides added something here).
 */
base: string,
/**
 * Our version (empty when we removed it).
 */
ours: string,
/**
 * Their version (empty when they removed it).
 */
theirs: string, };

/**
 * The result of a merge.
 */
export type Merged = {
/**
 * The merged text, conflicts marked (`<<<<<<< ours`, `=======`, `>>>>>>> theirs`).
 */
text: string,
/**
 * The conflicts left, in the order of the text; none when the merge is clean.
 */
conflicts: Array<MergeConflict>, };

/**
 * A folder a rename moves (a skill's folder named as the skill).
 */
export type Move = {
/**
 * The folder, relative to the workspace.
 */
from: string,
/**
 * Where it goes.
 */
to: string, };

/**
 * A skill to create, as the "New skill" form asks for it.
 */
export type NewSkill = {
/**
 * Its name (and folder name).
 */
name: string,
/**
 * The client it is for; `None` for every client (a global skill).
 */
client: string | null,
/**
 * Its category id (empty for none).
 */
category: string,
/**
 * Its description (a placeholder when empty).
 */
description: string,
/**
 * Messages that should select it.
 */
trigger_examples: Array<string>, };

/**
 * A warning the change brings.
 */
export type NewWarning = {
/**
 * Its code.
 */
code: string,
/**
 * The file.
 */
file: string,
/**
 * Its line.
 */
line: number,
/**
 * What is wrong.
 */
message: string, };

/**
 * What running a case found.
 */
export type Outcome = {
/**
 * The case.
 */
case: Case,
/**
 * Each expectation that did not hold, with what was seen (empty: the case passed).
 */
failures: Array<string>, };

/**
 * What the studio shows of a workspace.
 */
export type Overview = {
/**
 * The workspace folder.
 */
root: string,
/**
 * Its skills.
 */
skills: Array<SkillRow>,
/**
 * Client ids.
 */
clients: Array<string>,
/**
 * Locales the workspace builds, for the preview's choices.
 */
locales: Array<string>,
/**
 * Tiers the workspace builds, the default (first) first.
 */
tiers: Array<string>,
/**
 * Consumers `workspace.yaml` declares.
 */
consumers: Array<string>,
/**
 * Category ids.
 */
categories: Array<string>,
/**
 * Every frontmatter field the compiler knows, with its shape and what it is for (the
 * form offers these, each edited as its shape asks).
 */
fields: Array<FieldInfo>,
/**
 * The check's errors (the skill list marks their files). Warnings are counted only: the
 * editor shows each file's own, and a large workspace has thousands (3,497 on the
 * reference workload, 1.9 MB of the overview's JSON on every save).
 */
diagnostics: Array<Diag>,
/**
 * Warnings of the check.
 */
warnings: number, };

/**
 * A SKILL.md split for the form: frontmatter fields in file order, and the body.
 */
export type Parts = {
/**
 * `(key, value)` in file order.
 */
fields: Array<[string, JsonValue]>,
/**
 * The text before the body: the frontmatter with its fences, byte for byte.
 */
head: string,
/**
 * The body after the frontmatter.
 */
body: string,
/**
 * Why the frontmatter could not be read (the form is then unavailable).
 */
error: string | null, };

/**
 * One plan (tier) as workspace.yaml writes it (a wrong value still shows, to be put right).
 */
export type PlanInfo = {
/**
 * Its name.
 */
name: string,
/**
 * Its catalog's token budget as written, if it has one.
 */
catalog_token_budget: JsonValue | null,
/**
 * Its bodies: `full`, or `compact` (a skill's compact.md where it has one).
 */
body: string,
/**
 * The clients whose client.yaml names this plan (removing it leaves them an error).
 */
clients: Array<string>, };

/**
 * A Claude Code plugin's metadata, as its manifest gives it.
 */
export type Plugin = {
/**
 * Its name (the part before `:` in its skills' names).
 */
name: string,
/**
 * Its version.
 */
version: string | null,
/**
 * What it is for.
 */
description: string | null,
/**
 * Its author's name.
 */
author: string | null, };

/**
 * What a client sees.
 */
export type Preview = {
/**
 * The catalog (without its text and skills when `catalog_kept`).
 */
catalog: Catalog,
/**
 * A digest of the catalog's text and skills, for the next request's `known_catalog`.
 */
catalog_digest: string,
/**
 * The catalog is the one the request named as known: its text and skills are left out.
 */
catalog_kept: boolean,
/**
 * The prompt for the selection.
 */
prompt: Prompt,
/**
 * Tokens of each skill's part of the prompt, by selectable name.
 */
skill_tokens: { [key in string]: number },
/**
 * The catalog against its tier's budget.
 */
budget: BudgetMeter,
/**
 * The route of the request's message, when it has one.
 */
route: Route | null,
/**
 * The routing settings it was cut by.
 */
routing: RoutingSettings,
/**
 * The score the route's first candidate had to reach: `routing`'s cut, or above it for a
 * message nearer small talk than any skill (none without a route).
 */
bar: number | null,
/**
 * The score the candidates after the first had to reach: a little under `bar` when the
 * catalog's bar cuts a route by words and meaning, `bar` otherwise (none without a route).
 */
tail: number | null, };

/**
 * A preview request.
 */
export type PreviewRequest = {
/**
 * Client (empty: global).
 */
client: string,
/**
 * Locale (empty: default).
 */
locale: string,
/**
 * Tier (empty: default).
 */
tier: string,
/**
 * Consumer (empty: none).
 */
consumer: string,
/**
 * Page URL (empty: none).
 */
page_url: string,
/**
 * Turn (empty: none).
 */
turn: string,
/**
 * Selected skills: names or SK ids.
 */
selected: Array<string>,
/**
 * Catalog format.
 */
format: string,
/**
 * Other context values (`company`, `<skill>_availability`, …) as `(key, value)`.
 */
context: Array<[string, string]>,
/**
 * The `catalog_digest` of the catalog the page shows (empty: none). When the catalog is
 * still that one, its text and skills are left out of the answer: a 1,000-skill catalog
 * is most of an 800 KB answer, and a body edit does not change it.
 */
known_catalog: string,
/**
 * A visitor's message to route in the catalog (empty: none).
 */
message: string,
/**
 * The visitor's earlier messages in this conversation, oldest first, each with the
 * seconds before `message` it was sent: a fragment is routed joined to them.
 */
history: Array<[string, number]>, };

/**
 * An assembled answer prompt.
 */
export type Prompt = {
/**
 * Skills in, in prompt order.
 */
skills: Array<PromptSkill>,
/**
 * Skills out, in the order they were dropped.
 */
removed: Array<Removed>,
/**
 * Sources the included skills cite.
 */
sources: Array<SourceRef>,
/**
 * The prompt text.
 */
text: string,
/**
 * Its tokens (sum of the stored counts of its parts).
 */
tokens: number, };

/**
 * A skill in the assembled prompt.
 */
export type PromptSkill = {
/**
 * Selectable name.
 */
name: string,
/**
 * Skill whose content was used (a variant or client override).
 */
resolved: string,
/**
 * Why it is in: `selected`, `dependency:<by>`, `augments:<with>`, `import:<by>`,
 * `always_on`.
 */
reason: string, };

/**
 * Who an edit of a skill reaches: the clients that get its text in every bundle, those that
 * get it in some bundles only and those that always get a variant instead, those that use
 * their own version, those that have it turned off, the variants that replace it when their
 * conditions hold and the run-time conditions that keep it out of some conversations.
 */
export type Reach = {
/**
 * Clients in the workspace.
 */
clients: number,
/**
 * Clients that get this text in every bundle they have (no variant, not turned off).
 */
getting: number,
/**
 * Whether visitors of no client (the global bundles) get it, in some bundle at least.
 */
global: boolean,
/**
 * Clients' own skills of the same name, used by their client instead.
 */
own_version: Array<Link>,
/**
 * Clients that have it turned off (a toggle, or the skill's `default_enabled: false`).
 */
turned_off: Array<string>,
/**
 * Variants used instead of it when their conditions hold (a client's variant only for
 * that client).
 */
replaced_when: Array<Variant>,
/**
 * Clients that get this text in some of their bundles and a variant in the others.
 */
partly: Array<ClientShare>,
/**
 * Clients that never get this text: a variant (or another) takes its place in each bundle.
 */
instead: Array<ClientShare>,
/**
 * Run-time conditions of this text, in words: where they fail, no one gets it.
 */
conditions: Array<string>, };

/**
 * Everything the relations panel shows of one skill.
 */
export type Relations = {
/**
 * The skill.
 */
link: Link,
/**
 * Its qualified name.
 */
qualified_name: string,
/**
 * The skill it is a variant of, if it is one.
 */
variant_of: Link | null,
/**
 * Its variants.
 */
variants: Array<Variant>,
/**
 * Client skills of the same name, which replace it for their client.
 */
overridden_by: Array<Link>,
/**
 * The global skill this client skill replaces, if any.
 */
overrides: Link | null,
/**
 * Clients whose client.yaml toggles it.
 */
toggled_by: Array<ClientToggle>,
/**
 * What it names.
 */
uses: Composition,
/**
 * What names it.
 */
used_by: Composition,
/**
 * Consumers whose catalogs leave it out.
 */
hidden_by: Array<string>,
/**
 * Locales it has its own `SKILL.<locale>.md` for (besides the default).
 */
locales: Array<string>,
/**
 * Workspace locales it has no localized file for (the default text is used).
 */
missing_locales: Array<string>,
/**
 * `{{variables}}` it can use: the workspace's global ones and its own.
 */
variables: Array<string>,
/**
 * Its sources, for `[[S:n]]`: id, title and URL.
 */
sources: Array<[number, string, string]>,
/**
 * Who an edit of it reaches.
 */
reach: Reach,
/**
 * The Claude Code plugin it comes from, with the plugin's metadata.
 */
plugin: WorkspacePlugin | null,
/**
 * The outside repository it was brought in from (`external:`, pinned in skillc.lock).
 */
external: ExternalSource | null, };

/**
 * One commit that changed the workspace.
 */
export type Release = {
/**
 * The commit (full id).
 */
commit: string,
/**
 * Its author.
 */
author: string,
/**
 * When (the author's date, RFC 3339).
 */
date: string,
/**
 * The commit's first line.
 */
message: string, };

/**
 * A skill left out of the prompt.
 */
export type Removed = {
/**
 * Name as selected or added.
 */
name: string,
/**
 * `blocked:<by>`, `excluded:<by>`, `condition`, `hidden`, `disabled`, `unknown`,
 * `max_active`, `unavailable`.
 */
reason: string, };

/**
 * Everything a rename changes, to show before it is applied.
 */
export type RenamePlan = {
/**
 * The skill's name.
 */
old: string,
/**
 * Its new name.
 */
new: string,
/**
 * Every changed line, by file then line.
 */
changes: Array<Change>,
/**
 * Every folder moved.
 */
moves: Array<Move>, };

/**
 * The review of a workspace.
 */
export type Review = {
/**
 * Set when the workspace is not in a git repository: how to make it one.
 */
not_a_repository: string | null,
/**
 * The commit compared with (short hash), `None` before the first commit.
 */
head: string | null,
/**
 * Changed files, sorted by path.
 */
files: Array<FileChange>,
/**
 * What the change does.
 */
impact: Impact,
/**
 * Identifies exactly what was reviewed (HEAD, and each file's status and diff): a
 * publish of another state is refused.
 */
token: string,
/**
 * What stands in the way of publishing (filled by the session, which builds and runs the
 * cases).
 */
blockers: Blockers, };

/**
 * A route: the candidates at or above `min_score`, best first, at most `top_k`.
 */
export type Route = {
/**
 * The message routed.
 */
message: string,
/**
 * The text routed instead of the message when it was a fragment joined to the recent
 * messages it continues ([`history::join_fragment`]); absent (not `null`) otherwise.
 */
routed_text?: string,
/**
 * Client (`None` for the global bundle).
 */
client: string | null,
/**
 * Locale of the bundle.
 */
locale: string,
/**
 * Tier of the bundle.
 */
tier: string,
/**
 * Consumer, if any.
 */
consumer: string | null,
/**
 * `lexical`, or `hybrid` with a query vector.
 */
method: string,
/**
 * Whether the first candidate scores at least `confident`.
 */
confident: boolean,
/**
 * The candidates.
 */
candidates: Array<Candidate>, };

/**
 * The routing settings of `workspace.yaml` (`routing:`), with their defaults.
 */
export type RoutingSettings = {
/**
 * At most this many candidates.
 */
top_k: number,
/**
 * Candidates of a route by words score at least this.
 */
min_score: number,
/**
 * Candidates of a route by words and vectors (`hybrid`) score at least this: the fused
 * score is half a cosine, on another scale than the lexical one. Unset: a bar that rises
 * with the catalog ([`RoutingRules::hybrid_floor`]).
 */
hybrid_min_score: number | null,
/**
 * A first candidate scoring this or more makes the route confident.
 */
confident: number, };

/**
 * A routing setting: its key, what the workspace writes (`None`: the default) and the value
 * a route uses.
 */
export type RoutingValue = {
/**
 * The key under `routing:`.
 */
key: string,
/**
 * As written in workspace.yaml.
 */
written: JsonValue | null,
/**
 * What routes use when it is not written, in words.
 */
default: string, };

/**
 * What the Routing view shows.
 */
export type RoutingView = {
/**
 * The global bundle first, then the clients measured, in name order.
 */
bundles: Array<BundleEval>,
/**
 * Clients of the artifact.
 */
clients: number,
/**
 * Every trigger example that routes first to another skill (W119 of the check).
 */
elsewhere: Array<Diag>,
/**
 * The global catalog's skills without trigger examples, each with where its description
 * routes: measured through their own words, as examples measure the others.
 */
described: Array<Described>, };

/**
 * The outcome of a save.
 */
export type Saved = { "status": "saved",
/**
 * Hash of what is now on disk.
 */
hash: string, } | { "status": "conflict",
/**
 * What is on disk now.
 */
disk: FileState, };

/**
 * The rows and columns of the matrix a filter keeps, by index.
 */
export type Selection = {
/**
 * Client indices.
 */
clients: Array<number>,
/**
 * Skill indices.
 */
skills: Array<number>, };

/**
 * A selector's figures over one bundle's messages.
 */
export type SelectorEval = {
/**
 * Each figure's lowest and highest over the samples.
 */
spread: Spreads,
/**
 * Samples taken of each message.
 */
samples: number,
/**
 * Calls made.
 */
calls: number,
/**
 * Calls that failed, timed out or answered something else than `{"select": [...]}`.
 */
failures: number,
/**
 * The first failed calls, named.
 */
failed: Array<SelectorFailure>,
/**
 * Messages whose skill comes first, as a share of those with a skill to reach.
 */
recall_at_1: number,
/**
 * Messages whose skill is among the first `k` reached.
 */
recall_at_k: number,
/**
 * Mean reciprocal rank of the skill (0 when not among the first `k`).
 */
mrr: number,
/**
 * Share of the messages expecting no skill that reached one.
 */
false_fire: number,
/**
 * The messages that reached another skill first, or none, grouped, most first.
 */
confusions: Array<Confusion>, };

/**
 * A call that failed.
 */
export type SelectorFailure = {
/**
 * The message put to the selector.
 */
message: string,
/**
 * Which sample (1-based).
 */
sample: number,
/**
 * What went wrong.
 */
error: string, };

/**
 * How a field's value is written.
 */
export type Shape = "text" | "bool" | "int" | "name" | "names" | "texts" | "words" | "map" | "structured";

/**
 * One text a client gets and in which of its bundles.
 */
export type Share = {
/**
 * The skill whose text it is (the base, or one of its variants).
 */
text: Link,
/**
 * Whether it is the text of the skill being looked at.
 */
this: boolean,
/**
 * Where, in words: `always`, `in tier standard or pro`, `in locale fr`, `in fr/fast`.
 */
place: string, };

/**
 * A skill in the browser list.
 */
export type SkillRow = {
/**
 * Its SKILL.md, relative to the workspace.
 */
file: string,
/**
 * Selectable name.
 */
name: string,
/**
 * `public`, `internal` or `custom`.
 */
namespace: string,
/**
 * Category (empty when none).
 */
category: string,
/**
 * Client id, empty for global skills.
 */
client: string,
/**
 * Description, for the list's search and tooltip.
 */
description: string, };

/**
 * A cited source.
 */
export type SourceRef = {
/**
 * Pool id.
 */
sid: number,
/**
 * Normalised URL of the source.
 */
url: string,
/**
 * Title to show beside the link, if the source gives one.
 */
title: string | null, };

/**
 * The spread of one figure over the samples.
 */
export type Spread = {
/**
 * The lowest sample's figure.
 */
min: number,
/**
 * The highest sample's figure.
 */
max: number, };

/**
 * The spread of each figure over the samples.
 */
export type Spreads = {
/**
 * Of `recall_at_1`.
 */
recall_at_1: Spread,
/**
 * Of `recall_at_k`.
 */
recall_at_k: Spread,
/**
 * Of `mrr`.
 */
mrr: Spread,
/**
 * Of `false_fire`.
 */
false_fire: Spread, };

/**
 * An error the UI shows: a kind, a message, and the diagnostics behind it, if any.
 */
export type StudioError = {
/**
 * `io`, `request`, `invalid`, `outside`.
 */
kind: string,
/**
 * What went wrong.
 */
message: string,
/**
 * Diagnostics, with file, line and column, for the UI to link to.
 */
diagnostics: Array<Diag>, };

/**
 * A client that reads agentskills.io folders.
 */
export type Target = "claude-code" | "codex" | "gemini" | "copilot" | "agents" | "cursor" | "claude-api";

/**
 * What a client's listing keeps of a bundle's skills.
 */
export type TargetMeter = {
/**
 * The client.
 */
target: Target,
/**
 * Skills listed.
 */
skills: number,
/**
 * Characters of their names and descriptions, each description as the client cuts it.
 */
listed: number,
/**
 * The client's budget, if known.
 */
budget: Budget | null,
/**
 * Each description past the client's cut: the skill and its length.
 */
cut: Array<[string, number]>,
/**
 * About how many descriptions the client leaves out to fit its budget (the least used
 * first, which only it knows): the characters over, in descriptions of average length.
 */
dropped: number, };

/**
 * The workspace's test cases (`tests/*.yaml`) run against the last build.
 */
export type TestRun = {
/**
 * Each case with what did not hold (empty: it passed).
 */
outcomes: Array<Outcome>,
/**
 * Problems of the case files (unknown keys, clients, skills); their cases do not run.
 */
problems: Array<Diag>, };

/**
 * One toggle to set: on, off, or back to the skill's default (`None`).
 */
export type ToggleChange = {
/**
 * Client id.
 */
client: string,
/**
 * Skill name.
 */
skill: string,
/**
 * The new state.
 */
value: boolean | null, };

/**
 * What the toggles view is filtered by, as typed.
 */
export type ToggleFilter = {
/**
 * Clients: ids or parts of ids, separated by commas, semicolons, spaces or new lines.
 */
clients: string,
/**
 * Skills, the same way.
 */
skills: string,
/**
 * One category, or empty for every one.
 */
category: string, };

/**
 * Clients × skills, compact enough for 500 clients × 1,000 skills: one character per cell.
 */
export type Toggles = {
/**
 * Client ids (rows).
 */
clients: Array<string>,
/**
 * Skill names (columns).
 */
skills: Array<string>,
/**
 * Each skill's category (empty when none), for filtering and bulk edits.
 */
categories: Array<string>,
/**
 * One string per client, one character per skill: `T`/`t` toggled on/off in its
 * client.yaml, `E`/`e` on/off by the skill's `default_enabled`, `D` on by default, `-` a
 * skill of another client.
 */
cells: Array<string>, };

/**
 * One locale of a skill.
 */
export type Translation = {
/**
 * The locale.
 */
locale: string,
/**
 * Its file (where it would be, when missing).
 */
file: string,
/**
 * `untranslated` (still the default's words: a copy nobody has translated yet),
 * `current` (made from today's default text), `stale` (from an older one), `unmarked`
 * (no `translated_from`: nobody said which text it follows) or `missing`.
 */
state: "untranslated" | "current" | "stale" | "unmarked" | "missing",
/**
 * The clients whose visitors are served this locale (besides visitors of no client, who
 * are served every locale of the workspace).
 */
serving: Array<string>, };

/**
 * The translations of one skill, and what a translation saved now is made from.
 */
export type Translations = {
/**
 * The skill's name.
 */
name: string,
/**
 * Its default SKILL.md.
 */
default_file: string,
/**
 * The workspace's default locale (the default text's language).
 */
default_locale: string,
/**
 * The default text's digest: a translation saved now says `translated_from: <this>`.
 */
digest: string,
/**
 * Every other locale of the workspace, in its order.
 */
locales: Array<Translation>,
/**
 * The locale of the file asked about, when it is a translation.
 */
open_locale: string | null, };

/**
 * Something removed and kept until the next publish.
 */
export type Trashed = {
/**
 * Its place in the trash, to restore it by.
 */
id: string,
/**
 * Where it was, relative to the workspace (a skill's folder or a file).
 */
path: string,
/**
 * What to call it: the skill's name, or the file's path.
 */
label: string, };

/**
 * A variant of the skill and when it applies.
 */
export type Variant = {
/**
 * The variant.
 */
link: Link,
/**
 * Its `when` conditions in words (empty: it applies wherever its base does).
 */
when: Array<string>,
/**
 * `variant_priority`.
 */
priority: number, };

/**
 * One commit that changed the file.
 */
export type Version = {
/**
 * The commit (full id).
 */
commit: string,
/**
 * Its author.
 */
author: string,
/**
 * When (the author's date, RFC 3339).
 */
date: string,
/**
 * The commit's first line.
 */
message: string,
/**
 * The file's path in the repository at that commit (it may have been renamed since).
 */
path: string,
/**
 * What the commit changed in it, as a document (`None`: not a readable SKILL.md on one
 * side).
 */
change: DocChange | null, };

/**
 * What the settings page shows.
 */
export type WorkspacePage = {
/**
 * The file the settings live in, relative to the workspace.
 */
file: string,
/**
 * The languages, in order.
 */
locales: Array<string>,
/**
 * The language of a bundle that names none.
 */
default_locale: string,
/**
 * The plans.
 */
tiers: Array<PlanInfo>,
/**
 * Whether workspace.yaml writes `tiers:` (without it, the one plan `standard`; the first
 * plan added then writes the list).
 */
tiers_written: boolean,
/**
 * The client tools declared under `targets:`, in kebab-case.
 */
targets: Array<string>,
/**
 * Every client tool skillc knows, to choose from.
 */
known_targets: Array<string>,
/**
 * Whether `targets:` is written as a list of names (an edit then writes the whole list).
 */
targets_as_list: boolean,
/**
 * The routing settings.
 */
routing: Array<RoutingValue>,
/**
 * The consumers (parts of the agent with their own filters), by name.
 */
consumers: Array<ConsumerInfo>,
/**
 * The diagnostics of workspace.yaml, and the errors an edit of it leaves in a client.yaml
 * (a plan removed that a client names): an edit that makes either wrong says so here.
 */
diagnostics: Array<Diag>, };

/**
 * A Claude Code plugin: a namespace for the skills under its `skills/` folder (or the ones
 * its marketplace entry lists), with the metadata a catalog shows.
 */
export type WorkspacePlugin = {
/**
 * Its name: the part before `:` in its skills' names.
 */
name: string,
/**
 * Its version, as written.
 */
version: string | null,
/**
 * What it is for.
 */
description: string | null,
/**
 * Its author's name.
 */
author: string | null,
/**
 * Workspace-relative folder of the plugin (`""`: the workspace root).
 */
root: string,
/**
 * The manifest it was read from (`plugin.json`, or the marketplace's).
 */
manifest: string,
/**
 * Skill folders its marketplace entry lists (workspace-relative); `None`: every skill
 * under `<root>/skills/`.
 */
skill_dirs: Array<string> | null, };
