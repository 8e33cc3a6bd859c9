//! Skills going in and out of a workspace: ZIP [`package`]s, [`export`] to plain
//! agentskills.io folders, and the [`diff`] of two artifacts; [`fetch`] brings in and pins
//! skills from other repositories.

pub(crate) mod dialect;
pub mod diff;
pub mod export;
pub mod fetch;
pub mod oci;
pub mod package;
mod registry;
pub mod targets;
