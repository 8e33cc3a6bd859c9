//! The command line's shape is a contract (SPEC section 7): every command's `--help` — its
//! flags, defaults and help text — is kept in `tests/cli-contract/help.txt`, so a change to how
//! the arguments are declared that changes what a user or a script sees fails here.
//!
//! Run with `SKILLC_BLESS=1` to rewrite the file after a deliberate change (an added flag).

use std::path::{Path, PathBuf};

/// Every command, the hidden `generate` included; the empty name is `skillc --help`.
const COMMANDS: &[&str] = &[
    "",
    "check",
    "build",
    "fetch",
    "keygen",
    "generate",
    "test",
    "eval",
    "export-cases",
    "watch",
    "set",
    "toggle",
    "merge",
    "rename",
    "pack",
    "unpack",
    "catalog",
    "prompt",
    "route",
    "explain",
    "mcp",
    "push",
    "pull",
    "verify",
    "diff",
    "export",
];

fn help_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cli-contract/help.txt")
}

/// `skillc CMD --help` for every command, each after a `===== skillc CMD --help` line.
fn every_help() -> String {
    let mut all = String::new();
    for command in COMMANDS {
        let mut args: Vec<&str> = (!command.is_empty())
            .then_some(*command)
            .into_iter()
            .collect();
        args.push("--help");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_skillc"))
            .args(&args)
            .env_remove("COLUMNS")
            .output()
            .expect("skillc runs");
        assert_eq!(out.status.code(), Some(0), "skillc {command} --help");
        let sep = if command.is_empty() { "" } else { " " };
        all.push_str(&format!("===== skillc{sep}{command} --help\n"));
        all.push_str(&String::from_utf8_lossy(&out.stdout));
    }
    all
}

#[test]
fn every_commands_help_is_the_contracts() {
    let actual = every_help();
    if std::env::var_os("SKILLC_BLESS").is_some() {
        assert!(
            std::env::var_os("CI").is_none(),
            "SKILLC_BLESS is refused under CI: bless locally and review the diff"
        );
        std::fs::write(help_file(), &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(help_file()).unwrap();
    let changed: Vec<String> = (expected.lines().zip(actual.lines()).enumerate())
        .filter(|(_, (e, a))| e != a)
        .take(5)
        .map(|(n, (e, a))| format!("line {}:\n  kept:  {e}\n  now:   {a}", n + 1))
        .collect();
    assert!(
        expected == actual,
        "the command line's help differs from tests/cli-contract/help.txt ({} lines kept, {} \
         now); first differences:\n{}\nan existing flag, default or text must not change \
         (SPEC section 7); after a deliberate addition, bless with SKILLC_BLESS=1",
        expected.lines().count(),
        actual.lines().count(),
        changed.join("\n")
    );
}

/// Each command's arguments are one clap `Args` struct that `main` hands whole to the command
/// (issue 51): a variant with fields inline would be taken apart field by field in `main.rs`,
/// and a command near clippy's argument limit squeezed into tuples.
#[test]
fn every_command_is_one_args_struct_handed_whole() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = std::fs::read_to_string(root.join("src/cli/args.rs")).unwrap();
    let mut inline = Vec::new();
    let mut variants = 0;
    for family in ["WorkspaceCommand", "ArtifactCommand"] {
        let start = args
            .find(&format!(" enum {family} {{"))
            .unwrap_or_else(|| panic!("no enum {family} in args.rs"));
        let body = &args[start..start + args[start..].find("\n}").unwrap()];
        for line in body.lines().skip(1) {
            let Some(variant) = line.strip_prefix("    ") else {
                continue;
            };
            if !variant.starts_with(|c: char| c.is_ascii_uppercase()) {
                continue;
            }
            variants += 1;
            let name: String = variant
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            if variant != format!("{name}({name}Args),") {
                inline.push(format!("{family}::{variant}"));
            }
        }
    }
    assert!(variants >= 25, "only {variants} commands found in args.rs");
    assert!(
        inline.is_empty(),
        "commands not declared as `Name(NameArgs)`: {inline:?}"
    );
    let main = std::fs::read_to_string(root.join("src/main.rs")).unwrap();
    for line in main.lines() {
        let taken_apart = line.contains("Command::") && line.trim_end().ends_with('{');
        assert!(!taken_apart, "main.rs takes a command apart: {line}");
    }
}
