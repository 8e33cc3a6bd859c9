//! Discovering a workspace: walking its folder ([`fsio`]) and classifying files by path
//! ([`layout`]).

pub mod fsio;
pub mod layout;
