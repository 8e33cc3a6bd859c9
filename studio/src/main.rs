//! The `skill-studio` binary: hands over to the library so tests can drive the same wiring.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    skill_studio::run();
}
