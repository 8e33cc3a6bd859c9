//! Parsing files into the typed [`crate::model`]: text decoding, YAML with positions,
//! frontmatter, workspace files and [`load`], which turns a whole tree into a workspace.

pub mod batches;
pub(crate) mod body;
pub(crate) mod client_fields;
pub(crate) mod config;
pub(crate) mod external;
pub(crate) mod fields;
pub(crate) mod frontmatter;
pub mod load;
pub mod names;
pub mod refs;
pub mod safety;
pub mod sources;
pub(crate) mod targets;
pub(crate) mod text;
pub mod vars;
pub mod yaml;
