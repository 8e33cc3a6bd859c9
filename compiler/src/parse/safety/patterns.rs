//! The text rules: wording against the user (S2xx), code fetched and run (S301), suspicious
//! URLs (S303) and secrets (S401), each a regular expression over one line. A line written
//! in look-alike characters or split into pieces (`"cu"+"rl"`) is folded back and read again.

use regex::{Regex, RegexSet};
use unicode_normalization::UnicodeNormalization as _;

use super::Finding;
use crate::diagnostic::{codes, Pos, SafetyLevel};

/// What kind of file a line is in: a script runs as written, prose is read by the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// Shell, Python, PowerShell, JavaScript and the like.
    Script,
    /// Markdown, YAML, JSON and other text.
    Prose,
}

impl FileKind {
    pub(crate) fn of(path: &str) -> FileKind {
        let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some(
                "sh" | "bash" | "zsh" | "fish" | "ps1" | "psm1" | "bat" | "cmd" | "py" | "js"
                | "mjs" | "cjs" | "ts" | "rb" | "pl" | "php" | "lua" | "go" | "rs" | "java",
            ) => FileKind::Script,
            _ => FileKind::Prose,
        }
    }
}

/// What the rules found on a line as written: the codes reported and the rules looked at.
struct Seen {
    codes: Vec<&'static str>,
    examined: Vec<usize>,
}

/// A line to scan, with what the rules read around it.
pub(crate) struct Line<'a> {
    pub text: &'a str,
    /// The line before (a warning there covers a quoted example here).
    pub before: &'a str,
    pub kind: FileKind,
}

/// Whether a URL's bare IPv4 host is loopback, private, link-local or unspecified.
fn is_private_address(url: &str) -> bool {
    let host = url.split("://").nth(1).unwrap_or("");
    let octets: Vec<u8> = host
        .split('.')
        .take(4)
        .map_while(|o| {
            o.trim_end_matches(|c: char| !c.is_ascii_digit())
                .parse()
                .ok()
        })
        .collect();
    matches!(
        octets.as_slice(),
        [127 | 10 | 0, ..] | [192, 168, ..] | [169, 254, ..] | [172, 16..=31, ..]
    )
}

/// A secret that is a documented placeholder, or a private key's header written inside code
/// or prose rather than opening a key.
fn is_placeholder(line: &str, start: usize, end: usize) -> bool {
    let m = &line[start..end];
    if m.starts_with("-----BEGIN") {
        return line.trim() != m;
    }
    // A key no service issues: one character eight times over (`AKIAYYYYYYYYYYYYYYYY`).
    let bytes = m.as_bytes();
    if bytes.windows(8).any(|w| w.iter().all(|&c| c == w[0])) {
        return true;
    }
    let upper = m.to_ascii_uppercase();
    [
        "EXAMPLE",
        "XXXX",
        "0000000",
        "1234567890",
        "ABCDEF",
        "YOUR",
        "REDACTED",
        "DUMMY",
        "FAKE",
    ]
    .iter()
    .any(|p| upper.contains(p))
}

/// One rule: a code, its level, a pattern and what a match means.
struct Rule {
    code: &'static str,
    level: SafetyLevel,
    pattern: &'static str,
    what: &'static str,
    /// Wording rules: a match quoted as an example on a line that warns against it is
    /// reported lower (a security guide names the attacks it teaches about).
    wording: bool,
}

const fn rule(
    code: &'static str,
    level: SafetyLevel,
    pattern: &'static str,
    what: &'static str,
) -> Rule {
    Rule {
        code,
        level,
        pattern,
        what,
        wording: false,
    }
}

const fn wording(
    code: &'static str,
    level: SafetyLevel,
    pattern: &'static str,
    what: &'static str,
) -> Rule {
    Rule {
        wording: true,
        ..rule(code, level, pattern, what)
    }
}

use SafetyLevel::{Critical, High, Low, Medium};

/// Hosts that take anything posted to them.
const COLLECTOR_URL: &str = r"(?i)\bhttps?://(?:[\w-]+\.)*(?:webhook\.site|requestbin\.(?:com|net)|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|interact\.sh|oast\.(?:pro|live|site|online|fun|me)|burpcollaborator\.net|canarytokens\.com|beeceptor\.com|hookbin\.com|requestcatcher\.com|discord(?:app)?\.com/api/webhooks)";
/// Hosts that serve anything pasted.
const PASTE_URL: &str = r"(?i)\bhttps?://(?:[\w-]+\.)*(?:pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.\w+|rentry\.(?:co|org)|termbin\.com|transfer\.sh|dpaste\.(?:com|org)|paste\.rs|0x0\.st|controlc\.com|justpaste\.it)";
/// A URL to a public-looking bare IPv4 address.
const IP_URL: &str =
    r"(?i)\b(?:https?|ftp)://(?:[1-9]\d{0,2})\.(?:\d{1,3})\.(?:\d{1,3})\.(?:\d{1,3})\b";
/// Link shorteners: where a link really goes is not written.
const SHORT_URL: &str = r"(?i)\bhttps?://(?:bit\.ly|tinyurl\.com|is\.gd|t\.co|goo\.gl|rb\.gy|cutt\.ly|shorturl\.at|tiny\.cc)/";

const RULES: &[Rule] = &[
    // S201: setting earlier instructions aside, or talking to the scanner.
    wording(
        codes::OVERRIDE_INSTRUCTIONS,
        High,
        r"(?i)\b(?:ignore|disregard|forget|bypass)\b.{0,24}\b(?:all\s+)?(?:the\s+|your\s+|any\s+)?(?:previous|prior|above|earlier|preceding|system|original|safety)\s+(?:instructions?|prompts?|rules|directions|guidelines|guidance|directives|messages|context)",
        "tells the agent to set earlier instructions aside",
    ),
    wording(
        codes::OVERRIDE_INSTRUCTIONS,
        High,
        r"(?i)\b(?:you\s+are\s+now\s+(?:in\s+)?(?:DAN|developer\s+mode|jailbroken|unrestricted|unfiltered)|new\s+system\s+prompt\s*:)",
        "tries to change the agent's role",
    ),
    wording(
        codes::OVERRIDE_INSTRUCTIONS,
        High,
        r"(?i)\b(?:(?:security\s+)?(?:scanner|reviewer|auditor|analy[sz]er|classifier|judge)s?\b.{0,40}\b(?:mark|report|classify|rate|treat|consider)\b.{0,30}\b(?:safe|benign|clean|harmless)\b|(?:do\s+not|don't|never)\s+(?:flag|report)\s+this\s+(?:skill|file|code))",
        "addresses the scanner reading it",
    ),
    // S202: hiding what the agent does.
    wording(
        codes::HIDE_FROM_USER,
        Medium,
        r"(?i)\b(?:do\s+not|don't|never|without)\s+(?:tell|telling|inform|informing|notify|notifying|alert|alerting|mention|mentioning|reveal|revealing|disclose|disclosing)\b.{0,30}\b(?:the\s+)?user\b",
        "tells the agent to keep something from its user",
    ),
    wording(
        codes::HIDE_FROM_USER,
        High,
        r"(?i)\b(?:silently|quietly|secretly|covertly|in\s+the\s+background\s+without\s+notice)\s+(?:runs?|executes?|sends?|uploads?|posts?|installs?|deletes?|downloads?|exfiltrates?|copy|copies|transmits?)\b",
        "tells the agent to act unseen",
    ),
    wording(
        codes::OVERRIDE_INSTRUCTIONS,
        High,
        r"(?i)\b(?:classify|mark|report|rate|label|treat)\s+(?:it|this(?:\s+(?:skill|file|code|package))?)\s+as\s+(?:safe|benign|clean|harmless|trusted)\b",
        "asks whoever reads it to call it safe",
    ),
    wording(
        codes::OVERRIDE_INSTRUCTIONS,
        High,
        r"(?i)\bignorier(?:e|en)?\s+(?:alle\s+)?(?:vorherigen|bisherigen|früheren|obigen)\s+(?:Anweisungen|Instruktionen|Regeln)|\bignore[rz]?\s+(?:toutes\s+)?les\s+(?:instructions|consignes)\s+(?:précédentes|antérieures)|\bignora\s+(?:todas\s+)?las\s+instrucciones\s+(?:anteriores|previas)|\bignora\s+(?:tutte\s+)?le\s+istruzioni\s+precedenti|\bnegeer\s+(?:alle\s+)?(?:vorige|eerdere)\s+instructies",
        "tells the agent to set earlier instructions aside",
    ),
    wording(
        codes::HIDE_FROM_USER,
        High,
        r"(?i)\b(?:leave|keep)\s+(?:it|this|that|them|these)\s+out\s+of\s+(?:your|the)\s+(?:summary|answer|response|report|reply|explanation)",
        "tells the agent to leave an action out of what the user reads",
    ),
    wording(
        codes::HIDE_FROM_USER,
        High,
        r"(?i)\b(?:hide|conceal)\s+(?:this|these|it|the\s+(?:output|command|request|upload))\s+from\s+the\s+user|\b(?:the\s+)?user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|notice|find\s+out)",
        "tells the agent to hide an action",
    ),
    // S203: credentials.
    rule(
        codes::READ_CREDENTIALS,
        High,
        r"(?i)(?:\b(?:cat|type|less|more|head|tail|cp|scp|rsync|tar|zip|base64|xxd|open|read_text|readFile(?:Sync)?|Get-Content|gc)\b|open\s*\().{0,60}(?:~|\$HOME|%USERPROFILE%|\bos\.path\.expanduser\([^)]*|/(?:home|Users)/[^/\s]+)/?\.(?:ssh|aws|gnupg|kube|docker|azure|config/gcloud)\b",
        "reads a credentials folder",
    ),
    rule(
        codes::READ_CREDENTIALS,
        Medium,
        r"(?i)(?:\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?:[^.]|$)|\.aws/credentials|\.git-credentials|\.netrc\b|/etc/shadow|\bLogin\s+Data\b|\bsecurity\s+(?:find|dump)-(?:generic-password|internet-password|keychain)|\bkeychain\s+dump|\bwallet\.dat\b|\.config/solana/id\.json|Local\s+Storage/leveldb)",
        "names a credential store",
    ),
    rule(
        codes::READ_CREDENTIALS,
        High,
        r"(?i)(?:google-chrome|chromium|Google/Chrome|BraveSoftware|Microsoft/Edge|Mozilla/Firefox|\.mozilla/firefox)/[^\s'\x22]*(?:Cookies|Login\s+Data|cookies\.sqlite|logins\.json|key4\.db|Web\s+Data)",
        "reads a browser's cookies or saved passwords",
    ),
    rule(
        codes::READ_CREDENTIALS,
        Medium,
        r#"(?i)\b(?:readFileSync|readFile|read_text|open|Get-Content)\s*\(?\s*['"][^'"]*\.env(?:\.[\w-]+)?['"]"#,
        "reads an environment file",
    ),
    rule(
        codes::READ_CREDENTIALS,
        Medium,
        r#"['"`]\.env(?:\.[\w-]+)?['"`]\s*,\s*['"`]\.env"#,
        "collects several environment files",
    ),
    rule(
        codes::READ_CREDENTIALS,
        Medium,
        r"(?i)\b(?:cat|type|Get-Content|printenv|env)\b\s+(?:\S*/)?\.env\b",
        "prints an environment file",
    ),
    // S204: data sent out.
    rule(
        codes::SEND_DATA_OUT,
        Critical,
        r"(?i)\b(?:env|printenv|set|Get-ChildItem\s+env:)\s*\|\s*(?:curl|wget|nc|ncat|netcat|Invoke-WebRequest|iwr)\b",
        "sends the environment to the network",
    ),
    rule(
        codes::SEND_DATA_OUT,
        Medium,
        r"(?i)\bcurl\b.{0,120}(?:--data(?:-binary|-raw|-urlencode)?|-d|-F|--form|-T|--upload-file)\s+['\x22]?@(?:[~/.$]|[A-Za-z])",
        "uploads a file with curl",
    ),
    rule(
        codes::SEND_DATA_OUT,
        Critical,
        r"(?i)\b(?:curl|wget)\b.{0,160}\$\((?:env|printenv|cat\s+[^)]*(?:\.ssh|\.aws|\.env|credentials|id_rsa))",
        "posts secrets or the environment",
    ),
    rule(
        codes::SEND_DATA_OUT,
        High,
        r"(?i)\b(?:cat|tar|zip|base64)\b[^|\n]{0,120}\|\s*(?:curl|nc|ncat|netcat)\b",
        "pipes files to the network",
    ),
    rule(
        codes::SEND_DATA_OUT,
        High,
        r"(?i)(?:requests|httpx|axios|fetch)\b.{0,40}\bpost\b.{0,160}(?:os\.environ|process\.env|\.ssh|\.aws)|JSON\.stringify\(\s*process\.env\s*\)|json\.dumps\(\s*dict\(\s*os\.environ",
        "posts the environment or keys",
    ),
    rule(
        codes::SEND_DATA_OUT,
        Medium,
        r"(?i)\b(?:requests|httpx|session)\.(?:post|put)\s*\([^)]*\bfiles\s*=|\b(?:Invoke-RestMethod|Invoke-WebRequest|irm|iwr)\b.{0,160}-(?:InFile\b|Body\s+\(?\s*(?:Get-Content|gc|\[(?:System\.)?IO\.File\]))",
        "uploads files to the network",
    ),
    wording(
        codes::SEND_DATA_OUT,
        High,
        r"(?i)\b(?:send|upload|post|exfiltrate|transmit|forward)\b.{0,60}(?:\.env\b|\b(?:environment\s+(?:variables|file)|credentials|secrets|api\s+keys|private\s+keys|ssh\s+keys|tokens|passwords|cookies)\b).{0,60}\b(?:to|at)\s+(?:https?://|the\s+(?:server|endpoint|url|webhook))",
        "tells the agent to send secrets out",
    ),
    // S301: fetched and run in one step; remote shells.
    rule(
        codes::FETCH_AND_RUN,
        Medium,
        r"(?i)\b(?:curl|wget|fetch)\s+[^|\n;\s][^|\n;]{0,199}\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|k|da|fi)?sh\b",
        "runs a script straight from the network",
    ),
    rule(
        codes::FETCH_AND_RUN,
        Medium,
        r"(?i)\b(?:curl|wget)\s+[^|\n;\s][^|\n;]{0,199}\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node|php)\b",
        "runs a program straight from the network",
    ),
    rule(
        codes::FETCH_AND_RUN,
        Medium,
        r#"(?i)(?:\b(?:ba|z)?sh\s+(?:-c\s+)?['"]?\$\(\s*(?:curl|wget)|(?:\bsource|\.|(?:ba|z)?sh)\s+<\(\s*(?:curl|wget)|\bpython[0-9.]*\s+-c\s+['"]?\$\(\s*(?:curl|wget)|\beval\s+['"]?\$\(\s*(?:curl|wget))"#,
        "runs a script straight from the network",
    ),
    rule(
        codes::FETCH_AND_RUN,
        Medium,
        r"(?i)\b(?:iex|Invoke-Expression)(?:\s+|\s*\().{0,80}\b(?:DownloadString|DownloadData|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|Net\.WebClient)\b|\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|\n]{0,200}\|\s*(?:iex|Invoke-Expression)\b",
        "runs PowerShell fetched from the network",
    ),
    wording(
        codes::FETCH_AND_RUN,
        Critical,
        r"(?i)\b(?:eval|exec|Function)\s*\(\s*(?:atob|Buffer\.from|base64\.b64decode|__import__\(\s*['\x22]base64|codecs\.decode|zlib\.decompress|bytes\.fromhex|urllib\.request\.urlopen|requests\.get|marshal\.loads)",
        "runs decoded or downloaded code",
    ),
    wording(
        codes::FETCH_AND_RUN,
        Critical,
        r"(?i)\b(?:base64\s+(?:-d|--decode|-D)|xxd\s+-r(?:\s+-p)?|openssl\s+(?:enc\s+)?-?base64\s+-d)\b[^|\n]{0,80}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b",
        "runs decoded shell code",
    ),
    wording(
        codes::FETCH_AND_RUN,
        Critical,
        r"(?i)(?:/dev/tcp/[\w.\-]+/\d+|\bnc(?:at)?\b[^\n|]{0,60}\s-(?:e|c)\s+/?(?:bin/)?(?:ba)?sh\b|\bsocket\.socket\b.{0,200}\bsubprocess\b.{0,80}/bin/(?:ba)?sh|\bmkfifo\b.{0,80}\bnc\b)",
        "opens a remote shell",
    ),
    // S303: where data goes or code comes from.
    rule(
        codes::SUSPICIOUS_URL,
        Medium,
        COLLECTOR_URL,
        "a URL of a webhook collector",
    ),
    rule(
        codes::SUSPICIOUS_URL,
        Medium,
        PASTE_URL,
        "a URL of a paste site",
    ),
    rule(
        codes::SUSPICIOUS_URL,
        Medium,
        IP_URL,
        "a URL to a bare IP address",
    ),
    // S401: secrets.
    rule(
        codes::SECRET_IN_FILE,
        High,
        r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----",
        "a private key",
    ),
    rule(
        codes::SECRET_IN_FILE,
        High,
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{60,}|\bglpat-[A-Za-z0-9_-]{20}\b|\bxox[abposr]-[0-9]{8,}-[0-9A-Za-z-]{10,}|\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{60,}|\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-proj-[A-Za-z0-9_-]{60,}|\bAIza[0-9A-Za-z_-]{35}\b|\bnpm_[A-Za-z0-9]{36}\b|\b[sr]k_live_[0-9A-Za-z]{24,}|\bhooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}|\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
        "a token with a known prefix",
    ),
];

/// Words that, near a quoted match, say the line warns against it rather than asks for it.
const WARNING_WORDS: &str = r"(?i)\b(?:never|avoid|attacks?|attackers?|malicious|injections?|detect|detection|dangerous|unsafe|red flags?|bad practice|beware|warn|warning|phishing|refuse|reject|suspicious|exploits?|redirect)\b";

/// `pattern` with each window of more than 9 repeats (`{0,160}`, found by `window`) opened
/// to any number (`*`): every text it matches, the opened form matches too.
fn opened(window: &Regex, pattern: &str) -> String {
    window.replace_all(pattern, "*").into_owned()
}

/// Compiled rules: built once per scan.
pub(crate) struct Rules {
    /// The rules with their long windows (`.{0,160}`) opened (`.*`): a line any rule matches
    /// matches its opened form too, so this set names every rule that may match, and `each`
    /// says which do. One set of the exact rules counts its way through every window at once:
    /// its lazy DFA kept making states on real text (its search was two fifths of `check`'s
    /// CPU over a 2,700-skill collection).
    candidates: RegexSet,
    each: Vec<Regex>,
    warning: Regex,
    /// A host code should never be fetched from (S303's hosts, link shorteners).
    suspicious_host: Regex,
    split_strings: Regex,
    /// `['c', 'u', 'r', 'l'].join('')`: an array of short strings joined with nothing.
    joined_array: Regex,
    /// Names of programs that fetch or run code.
    commands: Regex,
    /// A markup tag in a description (S102), its name captured.
    pub(super) tag: Regex,
    /// A description claiming every request for its skill (S601).
    pub(super) claims_all: Regex,
}

impl Rules {
    pub(crate) fn new() -> Rules {
        // ASCII word boundaries: a Unicode `\b` on non-ASCII text sends every search to the
        // slow engine (a 400-skill collection took seconds more); the words matched are ASCII.
        let patterns: Vec<String> = RULES
            .iter()
            .map(|r| r.pattern.replace(r"\b", r"(?-u:\b)"))
            .collect();
        let window = Regex::new(r"\{0,(\d{2,})\}").expect("compiles");
        Rules {
            // A larger cache for the lazy DFA: with the default, minified files' long lines
            // thrash it and the search falls back to the slowest engine.
            candidates: regex::RegexSetBuilder::new(patterns.iter().map(|p| opened(&window, p)))
                .dfa_size_limit(64 << 20)
                .build()
                .expect("safety rules compile"),
            each: patterns
                .iter()
                .map(|p| Regex::new(p).expect("safety rule compiles"))
                .collect(),
            warning: Regex::new(&WARNING_WORDS.replace(r"\b", r"(?-u:\b)")).expect("compiles"),
            suspicious_host: Regex::new(&[COLLECTOR_URL, PASTE_URL, IP_URL, SHORT_URL].join("|"))
                .expect("compiles"),
            joined_array: Regex::new(
                r#"\[\s*((?:["'][^"'\n]{0,8}["']\s*,\s*)+["'][^"'\n]{0,8}["'])\s*\]\s*\.join\(\s*(?:""|'')\s*\)"#,
            )
            .expect("compiles"),
            commands: Regex::new(
                r"(?i)(?-u:\b)(?:curl|wget|bash|powershell|pwsh|Invoke-Expression|Invoke-WebRequest|DownloadString|eval|exec|base64|/bin/sh|netcat|ncat)(?-u:\b)",
            )
            .expect("compiles"),
            tag: Regex::new(r"</?\s*([A-Za-z][\w:.-]*)(?:\s[^<>]*)?/?>").expect("compiles"),
            claims_all: Regex::new(
                r"(?i)\b(?:always|must|should)\s+(?:use|invoke|call|load|pick|choose|select|run)\s+this\s+skill\b.{0,60}\b(?:every|all|any)\b|\buse\s+this\s+skill\s+for\s+(?:every|all|any)\s+(?:task|request|message|question)",
            )
            .expect("compiles"),
            split_strings: Regex::new(r#"["'`]\s*(?:\+|\.|\.\.)?\s*["'`]|\^|\\\r?$"#)
                .expect("compiles"),
        }
    }

    /// The first text rule that matches `text` (a decoded blob): its code and what it means.
    pub(crate) fn first_in(&self, text: &str) -> Option<(&'static str, &'static str)> {
        text.lines()
            .find_map(|l| self.matching(l).into_iter().next())
            .map(|i| (RULES[i].code, RULES[i].what))
    }

    /// The rules that match `line`, in order.
    fn matching(&self, line: &str) -> Vec<usize> {
        (self.candidates_of(line).into_iter())
            .filter(|&i| self.each[i].is_match(line))
            .collect()
    }

    /// The rules that may match `line` (every one that does, and maybe others), in order. Most
    /// lines match nothing: one quick pass of the opened set says so before they are told apart.
    fn candidates_of(&self, line: &str) -> Vec<usize> {
        match self.candidates.is_match(line) {
            true => self.candidates.matches(line).into_iter().collect(),
            false => Vec::new(),
        }
    }

    /// Adds the findings of one line.
    pub(crate) fn scan_line(&self, at: &Line<'_>, number: usize, out: &mut Vec<Finding>) {
        let line = at.text;
        // Rules whose match on the raw line was looked at (and maybe let go): folding the
        // line does not bring them back.
        let mut examined: Vec<usize> = Vec::new();
        // Each candidate is told by its rule's own match, found below.
        let matched = self.candidates_of(line);
        let mut codes_found: Vec<&'static str> = Vec::new();
        for &i in &matched {
            let r = &RULES[i];
            // One finding per code and line: the first rule of the code that matched.
            if codes_found.contains(&r.code) {
                continue;
            }
            let Some(m) = self.each[i].find(line) else {
                continue;
            };
            examined.push(i);
            // Loopback and private addresses are the machine's own or its network's.
            if r.pattern == IP_URL && is_private_address(m.as_str()) {
                continue;
            }
            codes_found.push(r.code);
            let column = line[..m.start()].chars().count() + 1;
            let len = m.as_str().chars().count();
            let level = self.level_at(r, at, m.start(), m.end());
            out.push(finding(
                r,
                level,
                Pos {
                    line: number,
                    column,
                    len,
                },
                "",
            ));
        }
        // Look-alike letters, invisible joins and split strings, folded: what the line says
        // once a shell or a model has put it back together.
        let folded = self.fold(line);
        if folded != line {
            let seen = Seen {
                codes: codes_found,
                examined,
            };
            self.scan_folded(line, &folded, number, seen, out);
        }
    }

    /// The findings the folded form of a line adds to those of the line as written (`seen`).
    fn scan_folded(
        &self,
        line: &str,
        folded: &str,
        number: usize,
        seen: Seen,
        out: &mut Vec<Finding>,
    ) {
        let Seen {
            codes: mut codes_found,
            examined,
        } = seen;
        let start = Pos {
            line: number,
            column: 1,
            len: 0,
        };
        for i in self.matching(folded) {
            let r = &RULES[i];
            if codes_found.contains(&r.code) || examined.contains(&i) {
                continue;
            }
            codes_found.push(r.code);
            out.push(finding(
                r,
                r.level.max(High),
                start,
                " (written in look-alike or split pieces)",
            ));
        }
        // A command's name spelled in pieces (`'cu' + 'rl'`, `['c','u','r','l'].join('')`):
        // nothing honest hides the name of the program it runs.
        if codes_found.contains(&codes::FETCH_AND_RUN) {
            return;
        }
        let raw: Vec<&str> = self.commands.find_iter(line).map(|m| m.as_str()).collect();
        if let Some(m) = (self.commands.find_iter(folded)).find(|m| !raw.contains(&m.as_str())) {
            out.push(Finding {
                code: codes::FETCH_AND_RUN,
                level: High,
                pos: start,
                message: format!(
                    "spells the command `{}` in pieces, to hide what runs",
                    m.as_str()
                ),
                help: help(codes::FETCH_AND_RUN),
            });
        }
    }

    /// The level of a match in its place. Code fetched from a host nothing should come from
    /// is critical anywhere; in a script, fetched code runs as written. In prose, a wording
    /// match that is negated (`did not silently run`), or quoted on or after a line that warns
    /// against it (a security guide names the attacks it teaches about), is an example: low.
    /// A placeholder secret (AWS's `…EXAMPLE`) or a key header inside code is low.
    fn level_at(&self, r: &Rule, line: &Line<'_>, start: usize, end: usize) -> SafetyLevel {
        let text = line.text;
        if r.code == codes::FETCH_AND_RUN && self.suspicious_host.is_match(text) {
            return Critical;
        }
        if r.code == codes::SECRET_IN_FILE && is_placeholder(text, start, end) {
            return Low;
        }
        // A public key (`id_ed25519.pub`) is meant to be shared.
        let public = |w: &str| {
            [".pub", "authorized_keys", "known_hosts"]
                .iter()
                .any(|p| w.contains(p))
        };
        if r.code == codes::READ_CREDENTIALS && text[start..].split_whitespace().take(3).any(public)
        {
            return Low;
        }
        let instruction = matches!(r.code, codes::OVERRIDE_INSTRUCTIONS | codes::HIDE_FROM_USER);
        if line.kind == FileKind::Script && !instruction {
            return match r.code {
                codes::FETCH_AND_RUN => r.level.max(High),
                _ => r.level,
            };
        }
        if !r.wording {
            return r.level;
        }
        let before = text[..start].trim_end().to_ascii_lowercase();
        let negated = ["not", "never", "n't", "no"]
            .iter()
            .any(|n| before.ends_with(n));
        let after = text[end..].trim_start();
        let quoted = ["\"", "'", "`", "“", "‘", "«"]
            .iter()
            .any(|q| before.contains(q))
            && ["\"", "'", "`", "”", "’", "»"]
                .iter()
                .any(|q| after.contains(q));
        let warned = self.warning.is_match(text) || self.warning.is_match(line.before);
        // Quoted, wording is mentioned rather than said (in a script: data, a scanner's own
        // patterns); with a warning beside it, an example.
        match (negated || (quoted && warned), quoted) {
            (true, _) => Low,
            (false, true) => r.level.min(Medium),
            (false, false) => r.level,
        }
    }

    /// The line with look-alike letters mapped to ASCII (NFKC, then Cyrillic and Greek
    /// homoglyphs), invisible characters removed and string pieces joined.
    fn fold(&self, line: &str) -> String {
        if line.is_ascii() && !line.contains(['"', '\'', '`', '^', '\\']) {
            return line.to_string();
        }
        let letters: String = if line.is_ascii() {
            line.to_string()
        } else {
            line.nfkc()
                .filter(|c| !is_invisible(*c))
                .map(homoglyph)
                .collect()
        };
        let joined = self
            .joined_array
            .replace_all(&letters, |c: &regex::Captures<'_>| {
                let pieces: String = c[1]
                    .split(',')
                    .map(|p| p.trim().trim_matches(['"', '\'']))
                    .collect();
                format!("'{pieces}'")
            });
        self.split_strings.replace_all(&joined, "").into_owned()
    }
}

fn finding(r: &Rule, level: SafetyLevel, pos: Pos, note: &str) -> Finding {
    Finding {
        code: r.code,
        level,
        pos,
        message: format!("{}{note}", r.what),
        help: help(r.code),
    }
}

fn help(code: &str) -> &'static str {
    match code {
        codes::OVERRIDE_INSTRUCTIONS => {
            "a skill adds instructions; it never needs to cancel the agent's own"
        }
        codes::HIDE_FROM_USER => "an agent's actions must stay visible to its user",
        codes::READ_CREDENTIALS => {
            "a skill should ask for the credential it needs, never read key stores"
        }
        codes::SEND_DATA_OUT => {
            "files and environment must not leave the machine without the user seeing it"
        }
        codes::FETCH_AND_RUN => {
            "download, check (a digest, a signature) and then run; or ship the script in the skill"
        }
        codes::SUSPICIOUS_URL => "use the service's own domain, over HTTPS",
        codes::SECRET_IN_FILE => {
            "remove the secret from the file, rotate it, and read it from the environment"
        }
        _ => "",
    }
}

fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{00AD}' | '\u{E0000}'..='\u{E007F}')
}

/// Cyrillic and Greek letters drawn like Latin ones.
fn homoglyph(c: char) -> char {
    match c {
        'а' => 'a',
        'е' => 'e',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' | 'χ' => 'x',
        'і' | 'ι' => 'i',
        'ј' => 'j',
        'ѕ' => 's',
        'ԁ' => 'd',
        'һ' => 'h',
        'ɡ' => 'g',
        'ν' => 'v',
        'κ' => 'k',
        'τ' => 't',
        'ԝ' => 'w',
        'ӏ' => 'l',
        'А' => 'A',
        'В' | 'Β' => 'B',
        'Е' | 'Ε' => 'E',
        'К' | 'Κ' => 'K',
        'М' | 'Μ' => 'M',
        'Н' | 'Η' => 'H',
        'О' | 'Ο' => 'O',
        'Р' | 'Ρ' => 'P',
        'С' => 'C',
        'Т' | 'Τ' => 'T',
        'Х' | 'Χ' => 'X',
        'І' | 'Ι' => 'I',
        'Ѕ' => 'S',
        c => c,
    }
}
