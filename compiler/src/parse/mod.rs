//! Parsing files into the typed [`crate::model`]: text decoding, YAML with positions,
//! frontmatter, workspace files and [`load`], which turns a whole tree into a workspace.

pub(crate) mod batches;
pub(crate) mod body;
pub(crate) mod client_fields;
pub(crate) mod config;
pub(crate) mod external;
pub(crate) mod fields;
pub(crate) mod foreign;
pub(crate) mod frontmatter;
pub(crate) mod load;
pub(crate) mod names;
pub(crate) mod refs;
pub(crate) mod safety;
pub(crate) mod sources;
pub(crate) mod targets;
pub(crate) mod text;
pub(crate) mod vars;
pub(crate) mod yaml;
