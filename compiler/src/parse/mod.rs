//! Parsing files into the typed [`crate::model`]: text decoding, YAML with positions,
//! frontmatter, workspace files and [`load`], which turns a whole tree into a workspace.

pub mod batches;
pub(crate) mod body;
pub mod census;
pub(crate) mod config;
pub(crate) mod fields;
pub(crate) mod frontmatter;
pub use frontmatter::KNOWN_FIELDS;
pub mod load;
pub(crate) mod text;
pub mod yaml;
