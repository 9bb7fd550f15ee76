//! Option types the subcommands share, as clap value parsers over the
//! library crates' own types, so that a choice has one definition: the
//! engine (`emu::nes::Engine`), the sampling trigger and its spacing
//! (`emu::sampling::{Trigger, Spacing}`) and the hot-CFG builder
//! (`gfc::BuilderKind`). `--help` lists their values.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use emu::nes::Engine;
use emu::sampling::{Spacing, Trigger};
use gfc::BuilderKind;

/// A parser accepting exactly the names of `all`.
fn choice<T>(all: &'static [T], name: fn(T) -> &'static str) -> impl TypedValueParser<Value = T>
where
    T: Copy + Send + Sync + 'static,
{
    PossibleValuesParser::new(all.iter().map(|&t| name(t))).map(move |s| {
        // The possible-values check ran first, so one of them matches.
        all.iter()
            .copied()
            .find(|&t| name(t) == s)
            .unwrap_or(all[0])
    })
}

/// `--engine interp|translate`.
pub fn engine() -> impl TypedValueParser<Value = Engine> {
    choice(&Engine::ALL, Engine::name)
}

/// `--trigger wall|emulated`.
pub fn trigger() -> impl TypedValueParser<Value = Trigger> {
    choice(&Trigger::ALL, Trigger::name)
}

/// `--spacing uniform|periodic`.
pub fn spacing() -> impl TypedValueParser<Value = Spacing> {
    choice(&Spacing::ALL, Spacing::name)
}

/// `--builder gfc|trace`.
pub fn builder() -> impl TypedValueParser<Value = BuilderKind> {
    choice(&BuilderKind::ALL, BuilderKind::name)
}
