//! Discovering a workspace: walking and reading its folder ([`fsio`], large files in passing)
//! and classifying files by path ([`layout`]).

pub(crate) mod fsio;
pub(crate) mod layout;
